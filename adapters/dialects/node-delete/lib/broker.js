'use strict';
// The broker: one Redis list per topic, one LPUSH per message. A push is
// sent only on a ready connection and never queued or resent by the client
// (no offline queue, no retries per request, nothing resent on reconnect),
// so it reaches Redis while the relay waits for it, or not at all; a push
// whose reply does not come within the publish timeout drops the
// connection, since a link that lost one reply may lose every later one.

const Redis = require('ioredis');

// NotSent is a push that never left the relay: the connection was not
// ready. Nothing reached Redis, so it costs the message no attempt.
class NotSent extends Error {}

// NoReply is a push whose reply did not come in time: it may have landed.
class NoReply extends Error {}

class Broker {
  constructor(cfg, log) {
    this.timeoutMs = cfg.publishTimeoutMs;
    this.log = log;
    this.redis = new Redis(cfg.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(50 * times, 500),
    });
    this.lastError = '';
    this.redis.on('error', (err) => {
      if (err.message !== this.lastError) log(`redis: ${err.message}`);
      this.lastError = err.message;
    });
    this.redis.on('ready', () => {
      this.lastError = '';
      log('redis: ready');
    });
  }

  ready() {
    return this.redis.status === 'ready';
  }

  // push LPUSHes element onto the list key.
  async push(key, element) {
    if (!this.ready()) throw new NotSent(`redis not ready (${this.redis.status})`);
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new NoReply(`no reply to LPUSH ${key} within ${this.timeoutMs}ms`)), this.timeoutMs);
    });
    try {
      await Promise.race([this.redis.lpush(key, element), late]);
    } catch (err) {
      if (err instanceof NoReply) this.redis.disconnect(true);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async close() {
    try {
      await Promise.race([this.redis.quit(), new Promise((resolve) => setTimeout(resolve, 1000))]);
    } finally {
      this.redis.disconnect();
    }
  }
}

module.exports = { Broker, NotSent };
