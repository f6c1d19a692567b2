'use strict';
// The relay loop (README.md, "A round"): claim a batch, publish each row
// and settle it, give back what the lease has no time left for, sleep a
// poll interval when nothing was due.

const { randomUUID } = require('node:crypto');
const { Unsent } = require('./sink');

const REASON_MAX = 1000;

class Relay {
  constructor(cfg, store, sink, log) {
    this.cfg = cfg;
    this.store = store;
    this.sink = sink;
    this.log = log;
    this.stopping = false;
    this.wake = () => {};
    // No row is started once this much of a lease has gone by: the add and
    // its settle, bounded by the publish timeout, end before the lease.
    this.budgetMs = cfg.leaseMs - cfg.publishTimeoutMs - cfg.leaseMs / 10;
  }

  // stop asks the loop to finish the row in hand, give the rest back and end.
  stop() {
    this.stopping = true;
    this.wake();
  }

  async run() {
    while (!this.stopping) {
      let full = false;
      try {
        full = await this.round();
      } catch (err) {
        this.log(`round: ${err.message}`);
      }
      if (!full && !this.stopping) await this.sleep(this.cfg.pollMs);
    }
  }

  sleep(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  // round claims one batch and works through it; true when the batch was
  // full (more may be due now). Nothing is claimed while Redis is not ready:
  // every add would fail and spend an attempt.
  async round() {
    if (!this.sink.ready()) return false;
    // Timed from before the claim: however late its COMMIT's reply comes,
    // the lease is never thought longer than it is.
    const start = performance.now();
    const rows = await this.store.claim(this.cfg.batch);
    let i = 0;
    for (; i < rows.length; i++) {
      if (this.stopping || performance.now() - start > this.budgetMs || !this.sink.ready()) break;
      await this.deliver(rows[i]);
    }
    if (i < rows.length) {
      const why = this.stopping ? 'released: shutting down' : this.sink.ready() ? 'released: lease nearly over' : 'released: redis not ready';
      await this.giveBack(rows.slice(i), why);
    }
    return rows.length === this.cfg.batch;
  }

  async giveBack(rows, why) {
    let n = 0;
    for (const row of rows) {
      try {
        if (await this.store.release(row, why)) n++;
      } catch (err) {
        this.log(`${why}: row ${row.id}: ${err.message} (its lease runs out on its own)`);
      }
    }
    this.log(`${why}: ${n} of ${rows.length} leases given back`);
  }

  // deliver publishes one claimed row and settles it. A database error
  // leaves the claim to run out and the row to be published again.
  async deliver(row) {
    try {
      if (!this.sink.has(row.topic)) {
        await this.store.abandon(row, `topic ${JSON.stringify(row.topic)} is not in OUTBOX_QUEUES`);
        return;
      }
      try {
        await this.sink.add(row.topic, this.messageId(row), row.payload);
      } catch (err) {
        await this.failed(row, err);
        return;
      }
      if (!(await this.store.published(row))) this.log(`row ${row.id}: published, but the lease ran out before the mark (it will be published again, same id)`);
    } catch (err) {
      this.log(`row ${row.id}: ${err.message}`);
    }
  }

  // messageId is the id the message carries: the row's uuid, on every
  // publish of it.
  messageId(row) {
    if (this.cfg.plant === 'new-id-on-republish' && row.started_attempts > 1) return randomUUID();
    return row.id;
  }

  // failed settles an add that did not go through: one that never left
  // gives the row back untouched; any other is a transient failure, with a
  // backoff, or the end of the row at its last attempt.
  async failed(row, err) {
    if (err instanceof Unsent) {
      await this.store.release(row, `released: ${err.message}`);
      return;
    }
    const reason = `add to ${row.topic} failed (attempt ${row.started_attempts}): ${err.message}`.slice(0, REASON_MAX);
    if (row.started_attempts >= this.cfg.maxAttempts) {
      const done = await this.store.abandon(row, reason);
      this.log(`row ${row.id}: ${done ? 'abandoned' : 'lease lost before the abandon'}: ${reason}`);
      return;
    }
    if (!(await this.store.retry(row, reason, this.backoffMs(row.started_attempts)))) this.log(`row ${row.id}: lease lost before the retry was written`);
  }

  // backoffMs doubles from the base with each attempt, up to the maximum,
  // less up to a quarter of jitter.
  backoffMs(attempt) {
    const full = Math.min(this.cfg.backoffMaxMs, this.cfg.backoffBaseMs * 2 ** Math.min(attempt - 1, 30));
    return full * (1 - Math.random() / 4);
  }
}

module.exports = { Relay };
