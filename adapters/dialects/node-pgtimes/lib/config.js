'use strict';
// Settings, from the contract's environment (docs/contract.md §3). load
// throws a ConfigError whose message is one line: the variable, what is
// wrong with it, and what to write.

class ConfigError extends Error {}

// PLANTS are the bugs the relay can be started with (OUTBOXCHAOS_PLANT),
// for the harness's own tests only (README.md, "Planted bugs").
const PLANTS = Object.freeze(['recovery-ignores-processed', 'new-id-on-republish']);

// Go's duration units, in milliseconds.
const UNIT_MS = { h: 3600e3, m: 60e3, s: 1e3, ms: 1, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ns: 1e-6 };
const TERM = /^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)/;

// parseDuration reads Go's duration syntax ("250ms", "1m30s") into
// milliseconds; NaN when text is not one.
function parseDuration(text) {
  if (text === '0') return 0;
  let ms = 0;
  let rest = text;
  while (rest !== '') {
    const t = TERM.exec(rest);
    if (!t) return NaN;
    ms += Number(t[1]) * UNIT_MS[t[2]];
    rest = rest.slice(t[0].length);
  }
  return text === '' ? NaN : ms;
}

// QUEUE_NAME is what the relay accepts as a BullMQ queue name: BullMQ
// joins its keys with ':'.
const QUEUE_NAME = /^[A-Za-z0-9_.-]+$/;

function load(env) {
  const get = (name) => (env[name] === undefined ? '' : env[name].trim());
  const must = (name, example) => {
    const v = get(name);
    if (v === '') throw new ConfigError(`${name} is empty: set it, e.g. ${name}=${example}`);
    return v;
  };
  const ms = (name, dflt) => {
    const v = get(name) || dflt;
    const n = parseDuration(v);
    if (!(n > 0)) throw new ConfigError(`${name}=${JSON.stringify(v)} is not a positive Go duration: write e.g. 250ms, 2s or 1m30s`);
    return n;
  };
  const whole = (name, dflt) => {
    const v = get(name) || dflt;
    if (!/^[0-9]+$/.test(v) || Number(v) < 1) throw new ConfigError(`${name}=${JSON.stringify(v)} is not a whole number of at least 1: write e.g. ${dflt}`);
    return Number(v);
  };

  const plant = get('OUTBOXCHAOS_PLANT');
  if (plant !== '' && !PLANTS.includes(plant)) {
    throw new ConfigError(`OUTBOXCHAOS_PLANT=${JSON.stringify(plant)} names no planted bug of this relay: unset it, or write one of ${PLANTS.join(', ')}`);
  }
  const postgresUrl = must('OUTBOX_POSTGRES_URL', 'postgres://me:pw@127.0.0.1:5432/outbox');
  if (!/^postgres(ql)?:\/\//.test(postgresUrl)) {
    throw new ConfigError(`OUTBOX_POSTGRES_URL=${JSON.stringify(postgresUrl)} is not a postgres:// URL: write e.g. postgres://me:pw@127.0.0.1:5432/outbox`);
  }
  const queues = must('OUTBOX_QUEUES', 'orders,invoices').split(',').map((q) => q.trim()).filter((q) => q !== '');
  if (queues.length === 0) throw new ConfigError('OUTBOX_QUEUES names no queue: write comma-separated queue names, e.g. orders,invoices');
  const bad = queues.find((q) => !QUEUE_NAME.test(q));
  if (bad !== undefined) throw new ConfigError(`OUTBOX_QUEUES has ${JSON.stringify(bad)}: a queue name is letters, digits, '.', '_' and '-' only`);

  const cfg = {
    postgresUrl,
    redisUrl: must('OUTBOX_REDIS_URL', 'redis://127.0.0.1:6379/0'),
    owner: must('OUTBOX_INSTANCE_ID', 'relay-1'),
    prefix: get('OUTBOX_BULL_PREFIX') || 'bull',
    queues,
    pollMs: ms('OUTBOX_POLL_INTERVAL', '50ms'),
    batch: whole('OUTBOX_BATCH_SIZE', '100'),
    leaseMs: ms('OUTBOX_LEASE', '2s'),
    maxAttempts: whole('OUTBOX_MAX_ATTEMPTS', '5'),
    backoffBaseMs: ms('OUTBOX_BACKOFF_BASE', '100ms'),
    backoffMaxMs: ms('OUTBOX_BACKOFF_MAX', '5s'),
    publishTimeoutMs: ms('OUTBOX_PUBLISH_TIMEOUT', '1s'),
    plant,
  };
  if (cfg.prefix.includes(':')) throw new ConfigError(`OUTBOX_BULL_PREFIX=${JSON.stringify(cfg.prefix)} holds ':': write a prefix without it, e.g. bull`);
  // One add and its settle must fit in a lease with room to spare.
  if (cfg.publishTimeoutMs * 2 > cfg.leaseMs) {
    throw new ConfigError(`OUTBOX_LEASE=${cfg.leaseMs}ms is less than twice OUTBOX_PUBLISH_TIMEOUT=${cfg.publishTimeoutMs}ms: lengthen the lease or shorten the publish timeout`);
  }
  return Object.freeze(cfg);
}

module.exports = { load, ConfigError, parseDuration, PLANTS };
