'use strict';
// The poll loop: recover expired leases, claim a batch, dispatch each event
// (docs/contract.md §2), sleep when there was nothing to do. SIGTERM
// stops claiming, finishes the event in hand, releases the rest, exits 0.

const { Queue } = require('bullmq');
const IORedis = require('ioredis');
const { Outbox } = require('./outbox');

const ENQUEUE = 'ai.job.enqueue';
const MARGIN_MS = 100;
const DEDUPE_TTL_MS = 7 * 24 * 3600 * 1000; // how long a jobId stays deduplicated after its add // slack kept between the end of an add and the lease end

// jobIdProblem returns why id cannot be a BullMQ custom jobId, or ''.
// All digits of any length is refused: BullMQ's own parseInt round trip
// misses ids past 2^53, which a worker would then confuse with counters.
function jobIdProblem(id) {
  if (typeof id !== 'string' || id === '') return 'empty jobId';
  if (/^[0-9]+$/.test(id)) return 'illegal jobId ' + JSON.stringify(id) + ': all digits';
  if (id.includes(':')) return 'illegal jobId ' + JSON.stringify(id) + ': holds ":"';
  return '';
}

// backoffMs grows with the attempt number (doubling from the base) up to
// the cap.
function backoffMs(cfg, attempts) {
  const n = Math.max(1, attempts);
  return Math.min(cfg.backoffMaxMs, cfg.backoffBaseMs * 2 ** Math.min(n - 1, 40));
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(what + ' timed out after ' + ms + 'ms')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

class Dispatcher {
  constructor(cfg, pool, log) {
    this.cfg = cfg;
    this.log = log;
    this.outbox = new Outbox(pool, cfg);
    this.stopping = false;
    this.wake = null;
    // Offline queue off: an add while Redis is away fails at once instead of
    // landing later, after the event was already retried or failed.
    this.redis = new IORedis(cfg.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 1000,
      retryStrategy: (n) => Math.min(50 * n, 500),
    });
    this.redisDown = '';
    this.redis.on('error', (err) => this.noteRedis(err.message));
    this.redis.on('ready', () => this.noteRedis(''));
    this.queues = new Map();
    for (const name of cfg.queues) {
      const q = new Queue(name, { connection: this.redis, prefix: cfg.prefix });
      q.on('error', (err) => this.noteRedis(err.message));
      this.queues.set(name, q);
    }
  }

  noteRedis(problem) {
    if (problem !== this.redisDown) this.log(problem === '' ? 'redis ready' : 'redis: ' + problem);
    this.redisDown = problem;
  }

  stop() {
    this.stopping = true;
    if (this.wake) this.wake();
  }

  sleep(ms) {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    }).finally(() => {
      this.wake = null;
    });
  }

  // redisReady resolves true once the Redis connection is ready, false
  // after ms without it.
  redisReady(ms) {
    if (this.redis.status === 'ready') return Promise.resolve(true);
    return new Promise((resolve) => {
      let timer = null;
      const onReady = () => {
        clearTimeout(timer);
        resolve(true);
      };
      timer = setTimeout(() => {
        this.redis.removeListener('ready', onReady);
        resolve(false);
      }, ms);
      this.redis.once('ready', onReady);
    });
  }

  async run() {
    // A fresh instance claims nothing before its Redis connection is up:
    // each add would fail at once and spend the events' attempts.
    while (!this.stopping && !(await this.redisReady(1000))) this.log('waiting for redis (' + this.redis.status + ')');
    while (!this.stopping) {
      let full = false;
      try {
        full = await this.round();
      } catch (err) {
        this.log('round: ' + err.message);
      }
      if (!full && !this.stopping) await this.sleep(this.cfg.pollMs);
    }
  }

  // round recovers, claims and dispatches one batch; it tells whether the
  // batch was full (more may be due at once).
  async round() {
    const recovered = await this.outbox.recoverExpired();
    if (recovered > 0) this.log('recovered ' + recovered + ' expired claims');
    if (this.stopping) return false;
    const started = performance.now();
    const { token, events } = await this.outbox.claim();
    const leaseEnd = started + this.cfg.leaseMs;
    for (let i = 0; i < events.length; i++) {
      if (this.stopping) {
        const n = await this.outbox.release(events.slice(i).map((e) => e.id), token);
        this.log('released ' + n + ' claims on shutdown');
        break;
      }
      // An add must finish well before the lease ends; past that point the
      // claim is left for recovery rather than raced.
      if (performance.now() + this.cfg.publishTimeoutMs + MARGIN_MS > leaseEnd) {
        this.log('lease nearly over: ' + (events.length - i) + ' claims left for recovery');
        break;
      }
      await this.dispatchOne(events[i], token);
    }
    return events.length === this.cfg.batch;
  }

  async dispatchOne(ev, token) {
    try {
      const problem = this.permanentProblem(ev);
      if (problem === 'dispatched') {
        await this.outbox.published(ev, token);
        return;
      }
      if (problem !== '') {
        await this.outbox.failed(ev, token, problem);
        return;
      }
      try {
        await this.add(ev.job);
      } catch (err) {
        await this.transient(ev, token, 'publish: ' + err.message);
        return;
      }
      if (!(await this.outbox.published(ev, token))) this.log('event ' + ev.id + ': claim lost before finalize');
    } catch (err) {
      // A MySQL error while finalizing: the claim stays processing and is
      // recovered after its lease.
      this.log('event ' + ev.id + ': ' + err.message);
    }
  }

  // permanentProblem returns the permanent reason, 'dispatched' for a job
  // past created (close as published, no second add), or '' to add.
  permanentProblem(ev) {
    if (ev.event_type !== ENQUEUE) return 'unknown event_type ' + JSON.stringify(ev.event_type);
    if (!ev.job) return 'job ' + JSON.stringify(ev.aggregate_id) + ' not found';
    if (ev.job.status !== 'created') return 'dispatched';
    if (!this.queues.has(ev.job.queue_name)) return 'queue ' + JSON.stringify(ev.job.queue_name) + ' not allowed';
    return jobIdProblem(ev.job.id);
  }

  async add(job) {
    if (!(await this.redisReady(this.cfg.publishTimeoutMs))) throw new Error('redis not ready (' + this.redis.status + ')');
    // The jobId makes a re-add a no-op while the job hash exists; the
    // deduplication key (BullMQ 5, a week's ttl) keeps it one after the
    // consumer removed the job (removeOnComplete), which the jobId alone
    // does not survive.
    const opts = this.cfg.plant === 'no-job-id' ? {} : { jobId: job.id, deduplication: { id: job.id, ttl: DEDUPE_TTL_MS } };
    const q = this.queues.get(job.queue_name);
    await withTimeout(q.add(ENQUEUE, { jobId: job.id }, opts), this.cfg.publishTimeoutMs, 'add');
  }

  async transient(ev, token, reason) {
    if (ev.attempts >= this.cfg.maxAttempts) {
      await this.outbox.failed(ev, token, 'gave up after ' + ev.attempts + ' attempts: ' + reason);
      return;
    }
    const delay = this.cfg.plant === 'no-backoff' ? 0 : backoffMs(this.cfg, ev.attempts);
    await this.outbox.retryLater(ev, token, reason, delay);
  }

  async close() {
    for (const q of this.queues.values()) {
      await q.close().catch(() => {});
    }
    await withTimeout(this.redis.quit(), 1000, 'redis quit').catch(() => this.redis.disconnect());
  }
}

module.exports = { Dispatcher, jobIdProblem, backoffMs };
