'use strict';
// The relay's settings, read from the contract's environment
// (docs/contract.md §3). readConfig throws a ConfigError whose message is one line
// naming the variable and what to write instead.

class ConfigError extends Error {}

// The bugs this relay can be started with (OUTBOXCHAOS_PLANT), for the
// harness's own tests: README.md says what each does.
const PLANTS = Object.freeze(['delete-before-publish', 'new-id-on-republish']);

const UNITS = { h: 3600000, m: 60000, s: 1000, ms: 1, us: 0.001, 'µs': 0.001, 'μs': 0.001, ns: 0.000001 };
const PART = /^(\d+\.?\d*|\.\d+)(h|ms|m|s|us|µs|μs|ns)/;

// durationMs reads a Go duration ("50ms", "2s", "1m30s") as milliseconds,
// or returns NaN when text is not one.
function durationMs(text) {
  let rest = text;
  let total = 0;
  if (rest === '') return NaN;
  while (rest.length > 0) {
    const m = PART.exec(rest);
    if (m === null) return NaN;
    total += Number(m[1]) * UNITS[m[2]];
    rest = rest.slice(m[0].length);
  }
  return total;
}

function readConfig(env) {
  const value = (name, fallback) => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? fallback : v.trim();
  };
  const required = (name, example) => {
    const v = value(name);
    if (v === undefined) throw new ConfigError(`${name} is not set: give it, e.g. ${example}`);
    return v;
  };
  const duration = (name, fallback) => {
    const v = value(name, fallback);
    const ms = durationMs(v);
    if (!(ms > 0)) throw new ConfigError(`${name}=${JSON.stringify(v)} is not a positive Go duration: write e.g. 100ms, 2s or 1m30s`);
    return ms;
  };
  const count = (name, fallback) => {
    const v = value(name, fallback);
    if (!/^[1-9]\d*$/.test(v)) throw new ConfigError(`${name}=${JSON.stringify(v)} is not a whole number of 1 or more: write e.g. ${fallback}`);
    return Number(v);
  };

  const plant = value('OUTBOXCHAOS_PLANT', '');
  if (plant !== '' && !PLANTS.includes(plant)) {
    throw new ConfigError(`OUTBOXCHAOS_PLANT=${JSON.stringify(plant)} is not a planted bug of this relay: unset it, or use one of ${PLANTS.join(', ')}`);
  }
  const topics = required('OUTBOX_QUEUES', 'orders,notifications').split(',').map((q) => q.trim()).filter((q) => q !== '');
  if (topics.length === 0) throw new ConfigError('OUTBOX_QUEUES names no list: give comma-separated names, e.g. orders,notifications');

  const cfg = {
    mysqlUrl: required('OUTBOX_MYSQL_URL', 'mysql://root:@127.0.0.1:3306/outbox'),
    redisUrl: required('OUTBOX_REDIS_URL', 'redis://127.0.0.1:6379/0'),
    owner: required('OUTBOX_INSTANCE_ID', 'relay-1'),
    defaultTopic: topics[0],
    pollMs: duration('OUTBOX_POLL_INTERVAL', '50ms'),
    batch: count('OUTBOX_BATCH_SIZE', '100'),
    leaseMs: duration('OUTBOX_LEASE', '2s'),
    maxAttempts: count('OUTBOX_MAX_ATTEMPTS', '5'),
    backoffBaseMs: duration('OUTBOX_BACKOFF_BASE', '100ms'),
    backoffMaxMs: duration('OUTBOX_BACKOFF_MAX', '5s'),
    publishTimeoutMs: duration('OUTBOX_PUBLISH_TIMEOUT', '1s'),
    plant,
  };
  return Object.freeze(cfg);
}

module.exports = { readConfig, ConfigError, durationMs, PLANTS };
