'use strict';
// Settings from the contract's environment (docs/contract.md §3), plus
// this dialect's own OUTBOX_DEDUPE_TTL. Every problem throws a BadSetting
// whose message is one line: the variable, the value, what to write instead.

class BadSetting extends Error {}

// The bugs this dialect can be started with (OUTBOXCHAOS_PLANT), only for
// the harness's own tests.
const PLANTS = {
  'short-dedupe-ttl': 'gives the deduplication key a ttl of 250ms, shorter than the crash window: ' +
    'a re-add after the consumer removed the job creates it again',
};

const UNIT_MS = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };

// goDurationMs reads Go's time.ParseDuration syntax ("50ms", "1m30s") into
// milliseconds, or returns NaN.
function goDurationMs(text) {
  if (typeof text !== 'string' || text === '') return NaN;
  if (text === '0') return 0;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < text.length) {
    part.lastIndex = at;
    const m = part.exec(text);
    if (!m) return NaN;
    total += Number(m[1]) * UNIT_MS[m[2]];
    at = part.lastIndex;
  }
  return total;
}

function pick(env, name, fallback) {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function needed(env, name, example) {
  const v = env[name];
  if (v === undefined || v === '') throw new BadSetting(name + ' is not set: set it, e.g. ' + name + '=' + example);
  return v;
}

function duration(env, name, fallback, { zeroOk = false } = {}) {
  const raw = pick(env, name, fallback);
  const ms = goDurationMs(raw);
  if (Number.isNaN(ms)) throw new BadSetting(name + '=' + JSON.stringify(raw) + ' is not a Go duration: write e.g. 250ms or 2s');
  if (ms < 0 || (ms === 0 && !zeroOk)) throw new BadSetting(name + '=' + JSON.stringify(raw) + ' must be positive');
  return ms;
}

function count(env, name, fallback) {
  const raw = pick(env, name, fallback);
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1) {
    throw new BadSetting(name + '=' + JSON.stringify(raw) + ' is not a whole number of at least 1');
  }
  return Number(raw);
}

function queues(env) {
  const list = needed(env, 'OUTBOX_QUEUES', 'ai-default,ai-bulk').split(',').map((q) => q.trim());
  if (list.some((q) => q === '' || q.includes(':'))) {
    throw new BadSetting('OUTBOX_QUEUES=' + JSON.stringify(env.OUTBOX_QUEUES) + ' must be queue names without ":", separated by commas');
  }
  return list;
}

function plant(env) {
  const p = pick(env, 'OUTBOXCHAOS_PLANT', '');
  if (p !== '' && !PLANTS[p]) {
    throw new BadSetting('OUTBOXCHAOS_PLANT=' + JSON.stringify(p) + ' is unknown: use one of ' + Object.keys(PLANTS).join(', ') + ', or leave it empty');
  }
  return p;
}

// read returns the settings, or throws a BadSetting.
function read(env) {
  const s = {
    mysqlUrl: needed(env, 'OUTBOX_MYSQL_URL', 'mysql://root:@127.0.0.1:3306/outbox'),
    redisUrl: needed(env, 'OUTBOX_REDIS_URL', 'redis://127.0.0.1:6379/0'),
    queues: queues(env),
    instance: needed(env, 'OUTBOX_INSTANCE_ID', 'd1'),
    prefix: pick(env, 'OUTBOX_BULL_PREFIX', 'bull'),
    pollMs: duration(env, 'OUTBOX_POLL_INTERVAL', '50ms'),
    batch: count(env, 'OUTBOX_BATCH_SIZE', '50'),
    leaseMs: duration(env, 'OUTBOX_LEASE', '30s'),
    maxAttempts: count(env, 'OUTBOX_MAX_ATTEMPTS', '5'),
    backoffBaseMs: duration(env, 'OUTBOX_BACKOFF_BASE', '100ms'),
    backoffMaxMs: duration(env, 'OUTBOX_BACKOFF_MAX', '5s'),
    publishTimeoutMs: duration(env, 'OUTBOX_PUBLISH_TIMEOUT', '1s'),
    // How long a jobId stays deduplicated after its add, whatever became of
    // the job: it must outlast every way an event can come back to the add.
    dedupeTtlMs: duration(env, 'OUTBOX_DEDUPE_TTL', '168h'),
    plant: plant(env),
  };
  if (s.plant === 'short-dedupe-ttl') s.dedupeTtlMs = 250;
  return s;
}

module.exports = { read, BadSetting, PLANTS, goDurationMs };
