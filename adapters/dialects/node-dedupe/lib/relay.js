'use strict';
// The relay loop (docs/contract.md §2): sweep expired claims, claim a
// batch, dispatch each event, sleep when idle.
//
// Deduplication: every add passes BullMQ 5's own opts.deduplication with the
// jobId as its id and a ttl (OUTBOX_DEDUPE_TTL, 168h by default). BullMQ
// then sets bull:<q>:de:<jobId> NX with that ttl inside the add; a later add
// of the same jobId while the key lives creates nothing (a "deduplicated"
// entry in the events stream) even after the consumer removed the job hash
// (removeOnComplete), which the jobId alone does not survive. Without a ttl
// BullMQ would drop the key when the job completes, so the ttl is what
// closes that gap; it must outlast every way an event comes back to the add
// (a lease, the backoffs of the retries, a restart).

const { Queue } = require('bullmq');
const IORedis = require('ioredis');
const { Store } = require('./store');

const ENQUEUE = 'ai.job.enqueue';

// illegalJobId tells why id cannot be a custom BullMQ jobId ('' when it can):
// all digits, whatever the length, or a ':'.
function illegalJobId(id) {
  if (/^\d+$/.test(id)) return 'jobId ' + JSON.stringify(id) + ' is all digits';
  if (id.indexOf(':') >= 0) return 'jobId ' + JSON.stringify(id) + ' contains ":"';
  return '';
}

function deadline(promise, ms, what) {
  let t;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      t = setTimeout(() => reject(new Error(what + ': no answer in ' + ms + 'ms')), ms);
    }),
  ]).finally(() => clearTimeout(t));
}

class Relay {
  constructor(settings, pool, say) {
    this.s = settings;
    this.say = say;
    this.store = new Store(pool, settings, say);
    this.halt = false;
    this.nudge = () => {};
    this.redis = new IORedis(settings.redisUrl, {
      enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 1000,
      retryStrategy: (n) => Math.min(100 * n, 1000),
    });
    this.redis.on('error', () => {}); // the add reports it; ioredis reconnects
    this.queues = {};
    for (const name of settings.queues) {
      this.queues[name] = new Queue(name, { connection: this.redis, prefix: settings.prefix });
      this.queues[name].on('error', () => {});
    }
  }

  stop() {
    this.halt = true;
    this.nudge();
  }

  idle(ms) {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.nudge = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  async run() {
    // No claim before Redis answers: a claim taken now would only fail.
    while (!this.halt && !(await this.ready(1000))) this.say('waiting for redis (' + this.redis.status + ')');
    while (!this.halt) {
      let busy = false;
      try {
        const n = await this.store.sweep();
        if (n > 0) this.say('swept ' + n + ' expired claims back to pending');
        if (!this.halt) busy = await this.batch();
      } catch (err) {
        this.say('round failed: ' + err.message);
      }
      if (!busy && !this.halt) await this.idle(this.s.pollMs);
    }
  }

  // batch claims and dispatches one batch; true when it was full.
  async batch() {
    const t0 = Date.now();
    const { token, rows } = await this.store.claim();
    for (let i = 0; i < rows.length; i++) {
      if (this.halt) {
        await this.giveBack(rows.slice(i), token, 'released: shutting down');
        break;
      }
      // Too close to the lease end for an add: give the rest back rather
      // than race a recovery.
      if (Date.now() - t0 + this.s.publishTimeoutMs + 150 > this.s.leaseMs) {
        await this.giveBack(rows.slice(i), token, 'released: lease nearly over');
        break;
      }
      await this.one(rows[i], token).catch((err) => this.say('event ' + rows[i].id + ': ' + err.message));
    }
    return rows.length === this.s.batch;
  }

  async giveBack(rows, token, why) {
    for (const r of rows) await this.store.later(r.id, token, why, 0);
    this.say(why + ': ' + rows.length + ' claims');
  }

  // permanent returns the reason r can never be dispatched, or ''.
  permanent(r) {
    if (r.event_type !== ENQUEUE) return 'unknown event_type ' + JSON.stringify(r.event_type);
    if (r.job_id === null) return 'ai_jobs row ' + JSON.stringify(r.aggregate_id) + ' not found';
    if (!this.queues[r.queue_name]) return 'queue ' + JSON.stringify(r.queue_name) + ' is not allowed';
    return illegalJobId(r.job_id);
  }

  async one(r, token) {
    const why = this.permanent(r);
    if (why !== '') {
      await this.store.failed(r.id, token, why);
      return;
    }
    if (r.job_status !== 'created') {
      // Dispatched before (an owner died before its finalize): no second add.
      await this.store.published(r.id, null, token);
      return;
    }
    try {
      await this.add(r.queue_name, r.job_id);
    } catch (err) {
      await this.retry(r, token, 'add to ' + r.queue_name + ': ' + err.message);
      return;
    }
    if (!(await this.store.published(r.id, r.job_id, token))) this.say('event ' + r.id + ': claim lost before its finalize');
  }

  // ready waits up to ms for the Redis connection to be ready; false when
  // it is not by then.
  ready(ms) {
    if (this.redis.status === 'ready') return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok) => {
        clearTimeout(t);
        this.redis.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const t = setTimeout(() => done(false), ms);
      this.redis.on('ready', onReady);
    });
  }

  async add(queue, jobId) {
    if (!(await this.ready(this.s.publishTimeoutMs))) throw new Error('redis is ' + this.redis.status);
    const opts = { jobId, deduplication: { id: jobId, ttl: this.s.dedupeTtlMs } };
    await deadline(this.queues[queue].add(ENQUEUE, { jobId }, opts), this.s.publishTimeoutMs, 'add');
  }

  // retry backs a transient failure off by base * 2^(attempts-1), capped;
  // attempts counts claims, so at the maximum the event fails.
  async retry(r, token, why) {
    const n = Number(r.attempts);
    if (n >= this.s.maxAttempts) {
      // An add whose answer was lost may have landed: then it is published.
      if (await this.landed(r.queue_name, r.job_id)) {
        await this.store.published(r.id, r.job_id, token);
        return;
      }
      await this.store.failed(r.id, token, 'failed after ' + n + ' attempts: ' + why);
      return;
    }
    const wait = Math.min(this.s.backoffMaxMs, this.s.backoffBaseMs * 2 ** Math.min(n - 1, 30));
    await this.store.later(r.id, token, why, wait);
  }

  // landed tells whether Redis holds the job or its deduplication key; false
  // when Redis cannot say.
  async landed(queue, jobId) {
    const base = this.s.prefix + ':' + queue + ':';
    try {
      return (await deadline(this.redis.exists(base + jobId, base + 'de:' + jobId), this.s.publishTimeoutMs, 'exists')) > 0;
    } catch (_) {
      return false;
    }
  }

  async close() {
    await Promise.all(Object.values(this.queues).map((q) => q.close().catch(() => {})));
    this.redis.disconnect();
  }
}

module.exports = { Relay, illegalJobId };
