'use strict';
// The relay loop (README.md): claim a batch, then for each row push its
// message and delete the row; a failed push is retried later with backoff,
// or dead-lettered at the last attempt. Rows not reached before the lease
// nears its end, or before a stop, are released.

const { randomUUID } = require('node:crypto');
const { NotSent } = require('./broker');

// Push no more rows of a batch once this share of the lease has gone by.
const LEASE_BUDGET = 0.75;
const MAX_REASON = 1000;

class Relay {
  constructor(cfg, store, broker, log) {
    this.cfg = cfg;
    this.store = store;
    this.broker = broker;
    this.log = log;
    this.stopping = false;
    this.wake = () => {};
  }

  // stop asks the loop to finish the row in hand, release the rest and end.
  stop() {
    this.stopping = true;
    this.wake();
  }

  async run() {
    while (!this.stopping) {
      let claimed = 0;
      try {
        claimed = await this.round();
      } catch (err) {
        this.log(`round: ${err.message}`);
      }
      if (claimed === 0) await this.idle();
    }
  }

  // idle waits one poll interval, or less when stop is called.
  idle() {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.cfg.pollMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  // round claims one batch and works through it; it returns how many rows
  // it claimed. Nothing is claimed while Redis is not ready.
  async round() {
    if (!this.broker.ready()) return 0;
    // The lease starts on the database clock somewhere inside the claim:
    // timed from before it, it is never thought longer than it is, however
    // late the claim's COMMIT comes back.
    const leasedAt = performance.now();
    const rows = await this.store.claim(this.cfg.batch);
    const held = new Set(rows.map((r) => r.id));
    let why = 'released: lease nearly over';
    try {
      for (const row of rows) {
        if (this.stopping) {
          why = 'released: shutting down';
          break;
        }
        if (performance.now() - leasedAt > LEASE_BUDGET * this.cfg.leaseMs) break;
        const went = await this.deliver(row);
        held.delete(row.id);
        if (!went && !this.broker.ready()) {
          why = 'released: redis unavailable';
          break;
        }
      }
    } finally {
      await this.giveBack([...held], why);
    }
    return rows.length;
  }

  async giveBack(ids, why) {
    if (ids.length === 0) return;
    try {
      const n = await this.store.release(ids, why);
      this.log(`${why}: ${n} of ${ids.length} leases given back`);
    } catch (err) {
      this.log(`release ${ids.length} leases: ${err.message} (they run out on their own)`);
    }
  }

  // deliver publishes one row and deletes it; false when the push failed.
  async deliver(row) {
    const topic = row.topic || this.cfg.defaultTopic;
    const element = JSON.stringify({ id: this.messageId(row), topic, payload: payloadOf(row.payload) });
    if (this.cfg.plant === 'delete-before-publish' && !(await this.store.remove(row.id))) {
      this.log(`row ${row.id}: lease lost before the delete`);
      return true;
    }
    try {
      await this.broker.push(topic, element);
    } catch (err) {
      await this.failed(row, topic, err);
      return false;
    }
    if (this.cfg.plant !== 'delete-before-publish' && !(await this.store.remove(row.id))) {
      this.log(`row ${row.id}: pushed, but its lease was taken over before the delete (the new owner pushes it again)`);
    }
    return true;
  }

  // messageId is the id the message carries: the outbox id, whoever
  // publishes it and however often.
  messageId(row) {
    if (this.cfg.plant === 'new-id-on-republish' && row.lease_owner !== null) return randomUUID();
    return String(row.id);
  }

  // failed records a push that did not go through: a push that never left
  // the relay gives the row back as it was; any other counts as an attempt.
  async failed(row, topic, err) {
    if (err instanceof NotSent) {
      await this.store.release([row.id], `released: ${err.message}`);
      return;
    }
    const attempt = row.attempts + 1;
    const reason = `push to ${topic} failed (attempt ${attempt}): ${err.message}`.slice(0, MAX_REASON);
    if (attempt >= this.cfg.maxAttempts) {
      const buried = await this.store.bury(row.id, reason);
      this.log(`row ${row.id}: ${buried ? 'dead-lettered' : 'lease lost before the dead letter'}: ${reason}`);
      return;
    }
    const delay = Math.min(this.cfg.backoffBaseMs * 2 ** (attempt - 1), this.cfg.backoffMaxMs);
    if (!(await this.store.retry(row.id, reason, delay))) this.log(`row ${row.id}: lease lost before the retry was written`);
  }
}

// payloadOf is the payload as JSON: MySQL hands a JSON column over parsed,
// MariaDB (where JSON is LONGTEXT) as text.
function payloadOf(v) {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch (_) {
    return v;
  }
}

module.exports = { Relay };
