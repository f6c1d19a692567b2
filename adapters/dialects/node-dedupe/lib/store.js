'use strict';
// The outbox's SQL, on the contract's reference schema. Times are the
// database's: leases and backoffs are written as NOW(6) + an interval.
//
// Claims: one transaction takes due pending rows FOR UPDATE SKIP LOCKED and
// marks them processing under a fresh token, counting the attempt (attempts
// count claims). Every later write of a claimed row names that token and
// status = 'processing', so a write by an owner whose claim was recovered
// changes nothing. Recovery: any instance's sweep returns rows whose lease
// ran out to pending, leaving last_error and available_at as they were.
//
// No statement waits on a producer's open transaction: the claim skips the
// rows it cannot lock, the sweep scans under READ COMMITTED (see sweep), and
// every other write names one row by its primary key (id = ?), or many
// with no status guard (id IN (...)) that the status index could serve.
//
// A failure text that does not fit last_error: texts are written as they
// come (LEFT(?, 1024), the contract's width). When the server refuses one
// under strict mode (errno 1406 "Data too long", 1366 "Incorrect string
// value"; a deployment's column may be narrower than the contract's), the
// same write is sent again with a short fixed text of the same kind
// ('failed: reason did not fit', 'released: ...' for a release,
// 'transient: ...' otherwise), and with NULL if even that is refused, so
// that a poison event still ends failed at once. The whole text goes to the
// log.

const { randomUUID } = require('node:crypto');

const STATEMENT_MS = 5000;

function ms2us(ms) {
  return Math.max(0, Math.round(ms * 1000));
}

class Store {
  constructor(pool, settings, say = () => {}) {
    this.pool = pool;
    this.s = settings;
    this.say = say;
    this.readCommitted = new WeakSet(); // connections whose session reads committed
  }

  async q(conn, sql, values) {
    const [out] = await conn.query({ sql, timeout: STATEMENT_MS, values });
    return out;
  }

  // inTx runs body(conn) inside one READ COMMITTED transaction: its locking
  // reads lock the rows they return and no gaps, so a producer's insert never
  // waits on a claim. The level is set once per connection, for its session,
  // the first time inTx gets it: a SET before each transaction was one more
  // round trip in every finalize. A connection that saw an error is
  // destroyed: its state is unknown.
  async inTx(body) {
    const conn = await this.pool.getConnection();
    try {
      if (!this.readCommitted.has(conn.connection)) {
        await this.q(conn, 'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED', []);
        this.readCommitted.add(conn.connection);
      }
      await conn.beginTransaction();
      const out = await body(conn);
      await conn.commit();
      conn.release();
      return out;
    } catch (err) {
      conn.destroy();
      throw err;
    }
  }

  // sweep returns every expired claim to pending and tells how many. It
  // runs in a READ COMMITTED transaction, as the claim and the finalize do,
  // not as a bare statement on the pool (REPEATABLE READ): while
  // most rows of a small table are processing, the optimizer scans the
  // whole primary key for it, and under REPEATABLE READ that scan locks
  // every row it reads and waits on each row another transaction holds,
  // such as a producer's INSERT not committed yet. Each round then waited
  // for the producers' open transactions, and the owners' finalizes of the
  // rows the sweep had locked waited with it (commit-order-gaps). Under
  // READ COMMITTED the UPDATE reads a held row at its last committed
  // version, passes over it when that does not match (an uncommitted
  // INSERT has none), and unlocks at once the rows it does not change.
  async sweep() {
    const res = await this.inTx((conn) => this.q(conn,
      `UPDATE outbox_events SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL
        WHERE status = 'processing' AND locked_until < NOW(6)`, []));
    return res.affectedRows;
  }

  // claim takes up to batch due events with their jobs rows, under one
  // token; it returns {token, rows}.
  async claim() {
    const token = randomUUID();
    const rows = await this.inTx(async (conn) => {
      const due = await this.q(conn,
        `SELECT id FROM outbox_events WHERE status = 'pending' AND available_at <= NOW(6)
          ORDER BY available_at, id LIMIT ? FOR UPDATE SKIP LOCKED`, [this.s.batch]);
      if (due.length === 0) return [];
      const ids = due.map((r) => r.id);
      await this.q(conn,
        `UPDATE outbox_events SET status = 'processing', attempts = attempts + 1, locked_by = ?, lock_token = ?,
                locked_until = NOW(6) + INTERVAL ? MICROSECOND
          WHERE id IN (?)`, [this.s.instance, token, ms2us(this.s.leaseMs), ids]);
      return this.q(conn,
        `SELECT e.id, e.event_type, e.aggregate_id, e.attempts, j.id AS job_id, j.queue_name, j.status AS job_status
           FROM outbox_events e LEFT JOIN ai_jobs j ON j.id = e.aggregate_id
          WHERE e.id IN (?) ORDER BY e.id`, [ids]);
    });
    return { token, rows };
  }

  // published closes a claimed event and moves its job created -> queued, in
  // one transaction; false when the claim was no longer ours.
  async published(id, jobId, token) {
    return this.inTx(async (conn) => {
      const res = await this.q(conn,
        `UPDATE outbox_events SET status = 'published', published_at = NOW(6), locked_by = NULL, lock_token = NULL,
                locked_until = NULL WHERE id = ? AND status = 'processing' AND lock_token = ?`, [id, token]);
      if (res.affectedRows !== 1) return false;
      if (jobId !== null) {
        await this.q(conn, `UPDATE ai_jobs SET status = 'queued' WHERE id = ? AND status = 'created'`, [jobId]);
      }
      return true;
    });
  }

  async failed(id, token, reason) {
    const res = await this.withText(reason, 'failed: reason did not fit', (text) => this.q(this.pool,
      `UPDATE outbox_events SET status = 'failed', last_error = LEFT(?, 1024), locked_by = NULL, lock_token = NULL,
              locked_until = NULL WHERE id = ? AND status = 'processing' AND lock_token = ?`, [text, id, token]));
    return res.affectedRows === 1;
  }

  // later returns a claimed event to pending after delayMs (a transient
  // failure); delayMs 0 with a 'released: ' reason is a release.
  async later(id, token, reason, delayMs) {
    const short = (reason.startsWith('released: ') ? 'released: ' : 'transient: ') + 'reason did not fit';
    const res = await this.withText(reason, short, (text) => this.q(this.pool,
      `UPDATE outbox_events SET status = 'pending', last_error = LEFT(?, 1024), available_at = NOW(6) + INTERVAL ? MICROSECOND,
              locked_by = NULL, lock_token = NULL, locked_until = NULL
        WHERE id = ? AND status = 'processing' AND lock_token = ?`, [text, ms2us(delayMs), id, token]));
    return res.affectedRows === 1;
  }

  // withText runs write(text); when the server refuses the text itself it
  // runs write(short), then write(null).
  async withText(text, short, write) {
    for (const t of [text, short]) {
      try {
        return await write(t);
      } catch (err) {
        if (err.errno !== 1406 && err.errno !== 1366) throw err;
        this.say('last_error refused ' + JSON.stringify(t) + ' (' + err.message + ')');
      }
    }
    return write(null);
  }
}

module.exports = { Store };
