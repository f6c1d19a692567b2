'use strict';
// Configuration from the contract's environment variables (docs/contract.md §3).
// Every problem is a ConfigError whose message is one line naming the
// variable and what to fix.

const { parseDuration } = require('./duration');

class ConfigError extends Error {}

// Planted bugs this dialect can run with (OUTBOXCHAOS_PLANT), for the
// harness's own tests: each breaks one promise of the contract on purpose.
const PLANTS = {
  'no-job-id': 'adds without a custom jobId (and so without its deduplication key), so BullMQ numbers the job itself',
  'no-backoff': 'returns a transient failure to pending with available_at = NOW(6)',
  'app-clock-lease': 'writes locked_until from its own clock (Date.now() + lease) instead of NOW(6) + lease',
};

function required(env, name) {
  const v = env[name];
  if (v === undefined || v.trim() === '') throw new ConfigError(name + ' is not set');
  return v.trim();
}

function duration(env, name, fallback, min) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let ms;
  try {
    ms = parseDuration(raw);
  } catch (e) {
    throw new ConfigError(name + '=' + JSON.stringify(raw) + ': not a Go duration (' + e.message + '), e.g. 2s or 150ms');
  }
  if (ms < min) throw new ConfigError(name + '=' + JSON.stringify(raw) + ': must be at least ' + min + 'ms');
  return ms;
}

function integer(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || Number(raw) > 100000) {
    throw new ConfigError(name + '=' + JSON.stringify(raw) + ': must be a whole number from 1 to 100000');
  }
  return Number(raw);
}

function url(env, name, protocols) {
  const raw = required(env, name);
  let u;
  try {
    u = new URL(raw);
  } catch (e) {
    throw new ConfigError(name + ': not a URL (want ' + protocols[0] + '//host:port/...)');
  }
  if (!protocols.includes(u.protocol)) throw new ConfigError(name + ': scheme ' + u.protocol + ' is not ' + protocols.join(' or '));
  return raw;
}

// load reads and validates the configuration.
function load(env) {
  const queues = required(env, 'OUTBOX_QUEUES').split(',').map((q) => q.trim()).filter((q) => q !== '');
  if (queues.length === 0) throw new ConfigError('OUTBOX_QUEUES names no queue');
  for (const q of queues) {
    if (q.includes(':')) throw new ConfigError('OUTBOX_QUEUES: queue name ' + JSON.stringify(q) + ' must not hold ":"');
  }
  const plant = env.OUTBOXCHAOS_PLANT || '';
  if (plant !== '' && !(plant in PLANTS)) {
    throw new ConfigError('OUTBOXCHAOS_PLANT=' + JSON.stringify(plant) + ': unknown bug, use one of ' + Object.keys(PLANTS).join(', '));
  }
  const cfg = {
    mysqlUrl: url(env, 'OUTBOX_MYSQL_URL', ['mysql:']),
    redisUrl: url(env, 'OUTBOX_REDIS_URL', ['redis:']),
    queues,
    instance: required(env, 'OUTBOX_INSTANCE_ID'),
    prefix: (env.OUTBOX_BULL_PREFIX || 'bull').trim(),
    pollMs: duration(env, 'OUTBOX_POLL_INTERVAL', 50, 1),
    batch: integer(env, 'OUTBOX_BATCH_SIZE', 100),
    leaseMs: duration(env, 'OUTBOX_LEASE', 2000, 100),
    maxAttempts: integer(env, 'OUTBOX_MAX_ATTEMPTS', 5),
    backoffBaseMs: duration(env, 'OUTBOX_BACKOFF_BASE', 100, 1),
    backoffMaxMs: duration(env, 'OUTBOX_BACKOFF_MAX', 5000, 1),
    publishTimeoutMs: duration(env, 'OUTBOX_PUBLISH_TIMEOUT', 1000, 1),
    plant,
  };
  if (cfg.prefix === '' || cfg.prefix.includes(':')) throw new ConfigError('OUTBOX_BULL_PREFIX must be non-empty and hold no ":"');
  if (cfg.backoffMaxMs < cfg.backoffBaseMs) throw new ConfigError('OUTBOX_BACKOFF_MAX must not be below OUTBOX_BACKOFF_BASE');
  if (cfg.publishTimeoutMs >= cfg.leaseMs) throw new ConfigError('OUTBOX_PUBLISH_TIMEOUT must be shorter than OUTBOX_LEASE');
  return cfg;
}

module.exports = { load, ConfigError, PLANTS };
