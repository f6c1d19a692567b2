'use strict';

// BullMQ side: one bullmq Queue per allowed queue name, each add bounded by
// the publish timeout. jobId = ai_jobs.id makes a re-add a no-op while the
// job exists, which is what closes the crash window between the add and the
// finalize.

const { Queue } = require('bullmq');

class TimeoutError extends Error {}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what}: no answer within ${ms}ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

class Publisher {
  constructor(cfg, log) {
    this.cfg = cfg;
    this.log = log;
    this.queues = new Map();
    this.lastErrorLog = 0;
  }

  connection() {
    const r = this.cfg.redis;
    return {
      host: r.host,
      port: r.port,
      db: r.db,
      username: r.username,
      password: r.password,
      // Fail fast while disconnected instead of queueing adds in memory: the
      // event is retried with a backoff, on the database's clock.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: Math.max(this.cfg.publishTimeoutMs, 1000),
      retryStrategy: (times) => Math.min(100 * times, 1000),
    };
  }

  // queue returns the Queue for name, replacing one whose connection setup
  // failed for good (bullmq does not retry that).
  queue(name) {
    let entry = this.queues.get(name);
    if (entry && entry.broken) {
      entry.queue.close().catch(() => {});
      entry = undefined;
    }
    if (!entry) {
      const queue = new Queue(name, { connection: this.connection(), prefix: this.cfg.prefix });
      entry = { queue, broken: false };
      const e = entry;
      queue.on('error', (err) => this.logError(name, err));
      queue.client.catch(() => { e.broken = true; });
      this.queues.set(name, entry);
    }
    return entry.queue;
  }

  logError(name, err) {
    const now = Date.now();
    if (now - this.lastErrorLog > 1000) {
      this.lastErrorLog = now;
      this.log(`redis error on queue ${name}: ${err && err.message}`);
    }
  }

  // addAll adds one job per event, all at once, within the publish timeout.
  // Returns, per event, null (BullMQ has the job: added or already there) or
  // the error (outcome unknown: the retry re-adds, a no-op if it landed).
  async addAll(items) {
    const adds = items.map(({ event, queue }) =>
      withTimeout(this.queue(queue).add(event.type, { jobId: event.jobId }, { jobId: event.jobId }),
        this.cfg.publishTimeoutMs, `add job ${event.jobId} to ${queue}`));
    const settled = await Promise.allSettled(adds);
    const errors = settled.map((s) => (s.status === 'fulfilled' ? null : s.reason));
    if (this.cfg.redisReplicas > 0) await this.awaitReplicas(items, errors);
    return errors;
  }

  // awaitReplicas sends WAIT on the connection of each queue that added
  // jobs (WAIT answers for the writes of its own connection) and turns every
  // add it did not count on enough replicas into an error: the primary has
  // the job, but a failover to its replica might not.
  async awaitReplicas(items, errors) {
    const byQueue = new Map();
    items.forEach(({ queue }, i) => {
      if (errors[i]) return;
      if (!byQueue.has(queue)) byQueue.set(queue, []);
      byQueue.get(queue).push(i);
    });
    const want = this.cfg.redisReplicas;
    await Promise.all([...byQueue].map(async ([name, added]) => {
      let why = null;
      try {
        const client = await this.queue(name).client;
        const n = await withTimeout(client.wait(want, this.cfg.waitMs), this.cfg.publishTimeoutMs, `WAIT on queue ${name}`);
        if (n < want) why = `WAIT counted ${n} of ${want} replicas within ${this.cfg.waitMs}ms`;
      } catch (err) {
        why = `WAIT failed: ${err && err.message}`;
      }
      if (!why) return;
      for (const i of added) {
        errors[i] = new Error(`add job ${items[i].event.jobId} to ${name}: not yet on enough replicas: ${why}`);
      }
    }));
  }

  async close() {
    const closes = [...this.queues.values()].map((e) => withTimeout(e.queue.close(), 2000, 'close queue').catch(() => {}));
    await Promise.all(closes);
  }
}

module.exports = { Publisher };
