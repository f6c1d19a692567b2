'use strict';
// The sink: one BullMQ queue per topic, written through the real bullmq
// Queue.add with jobId = the message's uuid. While a job with that id
// exists BullMQ turns a second add away, so a re-publish after a crash is
// a no-op; once the consumer removed it, the re-publish makes the job again
// under the same id, which an at-least-once consumer drops by that id.

const { Queue } = require('bullmq');
const IORedis = require('ioredis');

// Unsent is an add that never left the relay (Redis was not ready): it
// costs the message no attempt.
class Unsent extends Error {}

class Sink {
  constructor(cfg, log) {
    this.cfg = cfg;
    this.log = log;
    // No offline queue and no resends: an add reaches Redis while the
    // relay waits for it, or not at all, never later behind its back.
    this.redis = new IORedis(cfg.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      autoResendUnfulfilledCommands: false,
      connectTimeout: 1500,
      retryStrategy: (n) => Math.min(50 * n, 500),
    });
    this.problem = '';
    this.redis.on('error', (err) => this.note(err.message));
    this.redis.on('ready', () => this.note(''));
    this.queues = new Map(cfg.queues.map((name) => {
      const q = new Queue(name, { connection: this.redis, prefix: cfg.prefix });
      q.on('error', (err) => this.note(err.message));
      return [name, q];
    }));
  }

  note(problem) {
    if (problem !== this.problem) this.log(problem === '' ? 'redis: ready' : `redis: ${problem}`);
    this.problem = problem;
  }

  ready() {
    return this.redis.status === 'ready';
  }

  has(topic) {
    return this.queues.has(topic);
  }

  // add publishes one message as a job of queue topic, bounded by the
  // publish timeout. A missing reply drops the connection: a link that
  // lost one reply may lose the next.
  async add(topic, messageId, payload) {
    if (!this.ready()) throw new Unsent(`redis not ready (${this.redis.status})`);
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no reply to the add within ${this.cfg.publishTimeoutMs}ms`)), this.cfg.publishTimeoutMs);
    });
    try {
      await Promise.race([this.queues.get(topic).add(topic, payload, { jobId: messageId }), late]);
    } catch (err) {
      if (/no reply to the add/.test(err.message)) this.redis.disconnect(true);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async close() {
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
    await Promise.race([this.redis.quit().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000))]);
    this.redis.disconnect();
  }
}

module.exports = { Sink, Unsent };
