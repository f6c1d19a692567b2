'use strict';

// Configuration from the contract's environment variables
// (docs/contract.md §3). A bad value throws a ConfigError; main.js prints its
// one line on stderr and exits 2.

class ConfigError extends Error {}

const UNIT_MS = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };

// parseDuration reads Go's duration syntax ("50ms", "1.5s", "1m30s") into
// milliseconds.
function parseDuration(name, text) {
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  let m;
  while ((m = re.exec(text)) !== null) {
    total += Number(m[1]) * UNIT_MS[m[2]];
    matched = re.lastIndex;
  }
  if (text === '' || matched !== text.length) {
    throw new ConfigError(`${name}=${JSON.stringify(text)}: not a duration (e.g. 2s or 150ms)`);
  }
  if (total <= 0) {
    throw new ConfigError(`${name}=${JSON.stringify(text)}: must be a positive duration`);
  }
  return total;
}

function parseCount(name, text, lo, hi) {
  if (!/^\d+$/.test(text)) {
    throw new ConfigError(`${name}=${JSON.stringify(text)}: not a whole number`);
  }
  const n = Number(text);
  if (n < lo || n > hi) {
    throw new ConfigError(`${name}=${text}: must be between ${lo} and ${hi}`);
  }
  return n;
}

function parseMySQLURL(text) {
  let u;
  try {
    u = new URL(text);
  } catch (e) {
    throw new ConfigError(`OUTBOX_MYSQL_URL=${JSON.stringify(text)}: not a URL (mysql://user:pass@host:port/db)`);
  }
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (u.protocol !== 'mysql:' || !u.hostname || !database) {
    throw new ConfigError('OUTBOX_MYSQL_URL: want mysql://user:pass@host:port/database');
  }
  return {
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database,
  };
}

function parseRedisURL(text) {
  let u;
  try {
    u = new URL(text);
  } catch (e) {
    throw new ConfigError(`OUTBOX_REDIS_URL=${JSON.stringify(text)}: not a URL (redis://host:port/db)`);
  }
  const db = u.pathname.replace(/^\//, '') || '0';
  if (u.protocol !== 'redis:' || !u.hostname || !/^\d+$/.test(db)) {
    throw new ConfigError('OUTBOX_REDIS_URL: want redis://[:password@]host:port/db');
  }
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    db: Number(db),
    username: decodeURIComponent(u.username) || undefined,
    password: decodeURIComponent(u.password) || undefined,
  };
}

const KNOWN = new Set([
  'OUTBOX_MYSQL_DSN', 'OUTBOX_MYSQL_URL', 'OUTBOX_REDIS_URL', 'OUTBOX_QUEUES', 'OUTBOX_INSTANCE_ID',
  'OUTBOX_BULL_PREFIX', 'OUTBOX_POLL_INTERVAL', 'OUTBOX_BATCH_SIZE', 'OUTBOX_LEASE', 'OUTBOX_MAX_ATTEMPTS',
  'OUTBOX_BACKOFF_BASE', 'OUTBOX_BACKOFF_MAX', 'OUTBOX_PUBLISH_TIMEOUT', 'OUTBOX_REDIS_REPLICAS',
]);

function required(env, name) {
  const v = (env[name] || '').trim();
  if (!v) {
    throw new ConfigError(`${name} is not set`);
  }
  return v;
}

// load returns the configuration and the warnings worth a log line.
function load(env) {
  const warnings = [];
  for (const name of Object.keys(env).sort()) {
    if (name.startsWith('OUTBOX_') && !KNOWN.has(name) && env[name] !== '') {
      warnings.push(`${name} is not read by this dispatcher (it has no crash points and no such setting)`);
    }
  }
  const opt = (name, parse, dflt) => (env[name] ? parse(name, env[name].trim()) : dflt);
  const c = {
    mysql: parseMySQLURL(required(env, 'OUTBOX_MYSQL_URL')),
    redis: parseRedisURL(required(env, 'OUTBOX_REDIS_URL')),
    queues: required(env, 'OUTBOX_QUEUES').split(',').map((q) => q.trim()).filter(Boolean),
    instanceId: required(env, 'OUTBOX_INSTANCE_ID'),
    prefix: (env.OUTBOX_BULL_PREFIX || 'bull').trim(),
    pollMs: opt('OUTBOX_POLL_INTERVAL', parseDuration, 1000),
    batchSize: opt('OUTBOX_BATCH_SIZE', (n, v) => parseCount(n, v, 1, 1000), 20),
    leaseMs: opt('OUTBOX_LEASE', parseDuration, 60000),
    maxAttempts: opt('OUTBOX_MAX_ATTEMPTS', (n, v) => parseCount(n, v, 1, 1000), 3),
    backoffBaseMs: opt('OUTBOX_BACKOFF_BASE', parseDuration, 1000),
    backoffMaxMs: opt('OUTBOX_BACKOFF_MAX', parseDuration, 60000),
    publishTimeoutMs: opt('OUTBOX_PUBLISH_TIMEOUT', parseDuration, 5000),
    // Replicas each add must reach before its event is published (WAIT);
    // 0 publishes on the primary's answer alone.
    redisReplicas: opt('OUTBOX_REDIS_REPLICAS', (n, v) => parseCount(n, v, 0, 16), 0),
  };
  c.waitMs = Math.max(1, Math.floor(c.publishTimeoutMs / 4));
  if (c.queues.length === 0 || c.queues.some((q) => q.includes(':'))) {
    throw new ConfigError('OUTBOX_QUEUES: give a comma-separated list of queue names without ":"');
  }
  if (c.backoffMaxMs < c.backoffBaseMs) {
    throw new ConfigError('OUTBOX_BACKOFF_MAX must be at least OUTBOX_BACKOFF_BASE');
  }
  if (c.leaseMs < 2 * c.publishTimeoutMs) {
    throw new ConfigError('OUTBOX_LEASE must be at least twice OUTBOX_PUBLISH_TIMEOUT');
  }
  return { config: c, warnings };
}

module.exports = { load, parseDuration, ConfigError };
