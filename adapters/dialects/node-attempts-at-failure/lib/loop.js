'use strict';
// The dispatch loop (docs/contract.md §2).
//
// Each round: look after expired claims, claim a batch, dispatch it in
// order. An expired claim is recovered only once it has stayed expired for
// a grace of one more lease: a sweep notes the claims it sees expired and
// since when (the database's clock), and the first sweep a lease past that
// recovers them, each only if it is still processing
// under the token noted and still expired (one fenced UPDATE). An owner
// that is merely slow gets time to finish, and its fenced finalize wins.
// A transient failure counts the attempt (attempts + 1) and backs off
// base * 2^(attempts-1), capped; at the maximum the event fails, unless
// Redis already holds its job or its deduplication key.

const { Queue } = require('bullmq');
const IORedis = require('ioredis');
const { outbox } = require('./sql');

const TYPE = 'ai.job.enqueue';
// The deduplication key outlives a job the consumer removed, so a re-add
// after a crash stays a no-op for a week (BullMQ 5's opts.deduplication).
const DEDUPE_TTL_MS = 7 * 24 * 3600 * 1000;

function badJobId(id) {
  if (/^[0-9]+$/.test(id)) return 'illegal jobId "' + id + '": all digits';
  if (id.includes(':')) return 'illegal jobId "' + id + '": contains a colon';
  return null;
}

function timed(p, ms, label) {
  let timer;
  const lapse = new Promise((_, no) => {
    timer = setTimeout(() => no(new Error(label + ' timed out after ' + ms + 'ms')), ms);
  });
  return Promise.race([p, lapse]).finally(() => clearTimeout(timer));
}

function dispatcher(cfg, pool, log) {
  const db = outbox(pool, cfg);
  const redis = new IORedis(cfg.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 1000 });
  redis.on('error', () => {});
  const queues = new Map(cfg.queues.map((name) => [name, new Queue(name, { connection: redis, prefix: cfg.prefix })]));
  for (const q of queues.values()) q.on('error', () => {});
  const seen = new Map(); // id -> {token, at}: claims a sweep saw expired
  let lastSweep = 0;
  let stopping = false;
  let wakeUp = () => {};

  const redisReady = (ms) => new Promise((resolve) => {
    if (redis.status === 'ready') return resolve(true);
    const t = setTimeout(() => { redis.removeListener('ready', ok); resolve(false); }, ms);
    const ok = () => { clearTimeout(t); resolve(true); };
    redis.once('ready', ok);
  });

  async function sweep() {
    const now = Date.now();
    if (now - lastSweep < cfg.lease / 4) return;
    lastSweep = now;
    // The grace runs from the lease's end on the database's clock, so an
    // instance started after the one that first saw a claim expired (and
    // died) does not begin the grace again.
    for (const c of await db.expired()) if (!seen.has(c.id)) seen.set(c.id, { token: c.token, at: now - c.expiredMs });
    const due = [...seen].filter(([, s]) => now - s.at >= cfg.lease).map(([id]) => id);
    if (due.length === 0) return;
    let n = 0;
    if (cfg.plant === 'recovery-overwrites-finalized') {
      n = await db.recoverBlind(due);
    } else {
      for (const id of due) if (await db.recover(id, seen.get(id).token)) n++;
    }
    for (const id of due) seen.delete(id);
    log('recovered ' + n + ' claims expired for over a lease');
  }

  function problem(ev) {
    if (ev.event_type !== TYPE) return 'unknown event_type "' + ev.event_type + '"';
    if (ev.job === null) return 'job "' + ev.aggregate_id + '" not found';
    if (!queues.has(ev.queue)) return 'queue "' + ev.queue + '" not in the allowlist';
    return badJobId(ev.job);
  }

  async function inRedis(ev) {
    const key = cfg.prefix + ':' + ev.queue + ':';
    try {
      return (await timed(redis.exists(key + ev.job, key + 'de:' + ev.job), cfg.publishTimeout, 'exists')) > 0;
    } catch (_) {
      return false;
    }
  }

  async function transient(ev, token, why) {
    const attempts = Number(ev.attempts) + 1;
    if (attempts >= cfg.maxAttempts && (await inRedis(ev))) {
      await db.publish(ev.id, ev.job, token); // the lost add had landed
      return;
    }
    const delay = Math.min(cfg.backoffMax, cfg.backoffBase * 2 ** Math.min(attempts - 1, 30));
    await db.failRetry(ev.id, token, (attempts >= cfg.maxAttempts ? 'gave up at attempt ' + attempts + ': ' : '') + why, attempts, delay);
  }

  async function dispatch(ev, token) {
    const why = problem(ev);
    if (why) return db.failPermanent(ev.id, token, why);
    if (ev.job_status !== 'created') return db.publish(ev.id, null, token); // dispatched before: no second add
    try {
      if (!(await redisReady(cfg.publishTimeout))) throw new Error('redis not ready (' + redis.status + ')');
      const opts = { jobId: ev.job, deduplication: { id: ev.job, ttl: DEDUPE_TTL_MS } };
      await timed(queues.get(ev.queue).add(TYPE, { jobId: ev.job }, opts), cfg.publishTimeout, 'add');
    } catch (err) {
      return transient(ev, token, 'enqueue: ' + err.message);
    }
    if (!(await db.publish(ev.id, ev.job, token))) log('event ' + ev.id + ' was taken from us before its finalize');
  }

  async function round() {
    if (!(await db.learnWidth().catch((err) => log('read last_error width: ' + err.message)))) log('last_error width unknown: cutting failure texts to 1024');
    await sweep();
    const began = Date.now();
    const { token, rows } = await db.claim();
    for (let i = 0; i < rows.length; i++) {
      if (stopping) {
        log('shutdown: released ' + (await db.release(rows.slice(i).map((r) => r.id), token)) + ' claims');
        return false;
      }
      // No add that could end after the lease: the rest is left to expire.
      if (Date.now() - began + cfg.publishTimeout + 200 > cfg.lease) break;
      await dispatch(rows[i], token).catch((err) => log('event ' + rows[i].id + ': ' + err.message));
    }
    return rows.length === cfg.batch;
  }

  async function run() {
    while (!stopping && !(await redisReady(1000))) log('redis not ready yet');
    while (!stopping) {
      let more = false;
      try {
        more = await round();
      } catch (err) {
        log('round: ' + err.message);
      }
      if (!more && !stopping) await new Promise((resolve) => { const t = setTimeout(resolve, cfg.poll); wakeUp = () => { clearTimeout(t); resolve(); }; });
    }
    await Promise.all([...queues.values()].map((q) => q.close().catch(() => {})));
    redis.disconnect();
  }

  return { run, stop: () => { stopping = true; wakeUp(); } };
}

module.exports = { dispatcher, badJobId };
