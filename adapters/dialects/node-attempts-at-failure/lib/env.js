'use strict';
// Configuration (docs/contract.md §3). parse(env) returns the config or
// throws an EnvError: one line naming the variable and what to fix.

class EnvError extends Error {}

// Planted bugs (OUTBOXCHAOS_PLANT), for the harness's own tests only.
const PLANTED = new Set(['recovery-overwrites-finalized']);

const FACTOR = { h: 3600e3, m: 60e3, s: 1e3, ms: 1, us: 1e-3, µs: 1e-3, ns: 1e-6 };

// millis reads a Go duration ("2s", "1m30s", "250ms") into milliseconds;
// undefined when the text is not one.
function millis(text) {
  if (text === '0') return 0;
  let rest = String(text);
  let sum = 0;
  if (rest === '') return undefined;
  while (rest !== '') {
    const m = rest.match(/^([0-9]*\.?[0-9]+)(h|ms|m|s|us|µs|ns)/);
    if (!m) return undefined;
    sum += parseFloat(m[1]) * FACTOR[m[2]];
    rest = rest.slice(m[0].length);
  }
  return sum;
}

function parse(env) {
  const get = (name, dflt) => (env[name] === undefined || env[name] === '' ? dflt : env[name]);
  const must = (name) => {
    const v = get(name);
    if (v === undefined) throw new EnvError(name + ' is required (docs/contract.md §3)');
    return v;
  };
  const dur = (name, dflt) => {
    const v = get(name, dflt);
    const ms = millis(v);
    if (ms === undefined || !(ms > 0)) throw new EnvError(name + '=' + JSON.stringify(v) + ': write a positive Go duration such as 100ms or 2s');
    return ms;
  };
  const int = (name, dflt) => {
    const v = get(name, dflt);
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < 1) throw new EnvError(name + '=' + JSON.stringify(v) + ': write a whole number, 1 or more');
    return n;
  };
  const plant = get('OUTBOXCHAOS_PLANT', '');
  if (plant !== '' && !PLANTED.has(plant)) {
    throw new EnvError('OUTBOXCHAOS_PLANT=' + JSON.stringify(plant) + ' is not a planted bug of this dialect: use ' + [...PLANTED].join(' or ') + ', or unset it');
  }
  const queues = must('OUTBOX_QUEUES').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (queues.length === 0) throw new EnvError('OUTBOX_QUEUES names no queue: list them with commas, e.g. ai-default,ai-bulk');
  return {
    mysqlUrl: must('OUTBOX_MYSQL_URL'),
    redisUrl: must('OUTBOX_REDIS_URL'),
    queues,
    me: must('OUTBOX_INSTANCE_ID'),
    prefix: get('OUTBOX_BULL_PREFIX', 'bull'),
    poll: dur('OUTBOX_POLL_INTERVAL', '100ms'),
    batch: int('OUTBOX_BATCH_SIZE', '20'),
    lease: dur('OUTBOX_LEASE', '30s'),
    maxAttempts: int('OUTBOX_MAX_ATTEMPTS', '5'),
    backoffBase: dur('OUTBOX_BACKOFF_BASE', '200ms'),
    backoffMax: dur('OUTBOX_BACKOFF_MAX', '10s'),
    publishTimeout: dur('OUTBOX_PUBLISH_TIMEOUT', '1s'),
    plant,
  };
}

module.exports = { parse, EnvError, millis };
