'use strict';
// The SQL of this dialect, on the contract's reference schema. Every time is
// the database's (NOW(6)); the process only computes intervals.
//
// Convention: each instance recovers expired leases itself, at the start of
// each of its poll rounds (recoverExpired), writing a reason in last_error.
// Claims take FOR UPDATE SKIP LOCKED and count the attempt; every write
// after the claim is fenced by status = 'processing' AND the claim's token.
//
// Producers' open transactions: a locking statement here never waits on an
// INSERT not committed yet (the commit-order-gaps scenario holds one
// producer transaction in eight open for up to 1.5 s). The claim's read
// skips the rows it cannot lock. A statement that scans a status (the
// recovery, a release) runs in a READ COMMITTED transaction: its UPDATE
// reads a row another transaction holds at its last committed version and
// passes over it when that does not match, and an uncommitted INSERT has
// none. As a bare statement on the pool (REPEATABLE READ) the recovery
// scanned the whole primary key while most rows were processing, locked
// every row it read and waited for each producer's commit, and the owners'
// finalizes of the rows it had locked waited behind it. A statement that
// names rows by id leaves the status index alone (see claim).
//
// Failure texts are cut by the server, LEFT(text, width), width at first
// the contract's 1024. A deployment's last_error may be narrower, and under
// strict mode the server refuses a longer text (errno 1406 "Data too long")
// instead of cutting it. At the first such refusal the instance asks the
// server for the column's declared type (SHOW COLUMNS, "varchar(N)"), keeps
// N as the width for every later write and sends the refused write again
// (withWidth).

const crypto = require('node:crypto');

const QUERY_TIMEOUT_MS = 5000;

class Outbox {
  constructor(pool, cfg) {
    this.pool = pool;
    this.cfg = cfg;
    this.width = 1024; // last_error's width in characters, until a refusal tells otherwise
    this.widthRead = false;
  }

  async exec(conn, sql, params) {
    const [res] = await conn.query({ sql, timeout: QUERY_TIMEOUT_MS }, params);
    return res;
  }

  // tx runs fn(conn) in one transaction; a failed connection is destroyed,
  // not returned to the pool.
  async tx(fn) {
    const conn = await this.pool.getConnection();
    let healthy = true;
    try {
      // READ COMMITTED: the claim's locking read locks the rows it takes and
      // no gaps, so it never holds up (or deadlocks) a producer's insert.
      await conn.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
      await conn.beginTransaction();
      const out = await fn(conn);
      await conn.commit();
      return out;
    } catch (err) {
      healthy = false;
      try {
        await conn.rollback();
      } catch (_) {
        // the connection is gone; destroyed below
      }
      throw err;
    } finally {
      if (healthy) conn.release();
      else conn.destroy();
    }
  }

  // recoverExpired returns every claim whose lease ran out to pending, with
  // the reason and the dead owner in last_error. available_at is left alone:
  // a recovery is not a failure and owes no backoff.
  async recoverExpired() {
    const res = await this.withWidth((width) => this.tx((conn) => this.exec(conn,
      `UPDATE outbox_events
          SET last_error = LEFT(CONCAT('lease expired, owner ', COALESCE(locked_by, '?')), ?),
              status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL
        WHERE status = 'processing' AND locked_until < NOW(6)`, [width])));
    return res.affectedRows;
  }

  // leaseEnd is the claim's locked_until: NOW(6) + lease, on the database
  // clock. The planted app-clock-lease takes the process's own clock
  // instead (UTC, as the database's session time zone is).
  leaseEnd(leaseUs) {
    if (this.cfg.plant !== 'app-clock-lease') return ['NOW(6) + INTERVAL ? MICROSECOND', leaseUs];
    const end = new Date(Date.now() + leaseUs / 1000).toISOString().slice(0, 23).replace('T', ' ');
    return ['?', end];
  }

  // claim takes up to batch due events under a fresh token and returns them
  // with their jobs rows (job is null when the row does not exist). Its
  // UPDATE names the rows by id alone: the locking read of the same
  // transaction holds them, so they are still pending. A status guard
  // there (AND status = 'pending') let the optimizer read the ids through
  // the status index whenever the pending range was about as short as the
  // batch (EXPLAIN: key idx_outbox_claim), and a locking read of that range
  // waits, even under READ COMMITTED, on every entry another transaction
  // holds in it, a producer's uncommitted INSERT among them.
  async claim() {
    const token = crypto.randomUUID();
    const leaseUs = Math.round(this.cfg.leaseMs * 1000);
    const rows = await this.tx(async (conn) => {
      const due = await this.exec(conn,
        `SELECT id FROM outbox_events
          WHERE status = 'pending' AND available_at <= NOW(6)
          ORDER BY available_at, id LIMIT ? FOR UPDATE SKIP LOCKED`, [this.cfg.batch]);
      if (due.length === 0) return [];
      const ids = due.map((r) => r.id);
      const [leaseSql, leaseArg] = this.leaseEnd(leaseUs);
      await this.exec(conn,
        `UPDATE outbox_events
            SET status = 'processing', locked_by = ?, lock_token = ?,
                locked_until = ${leaseSql}, attempts = attempts + 1
          WHERE id IN (?)`, [this.cfg.instance, token, leaseArg, ids]);
      return this.exec(conn,
        `SELECT id, event_type, aggregate_id, attempts FROM outbox_events
          WHERE id IN (?) AND lock_token = ? ORDER BY id`, [ids, token]);
    });
    if (rows.length === 0) return { token, events: [] };
    const jobIds = [...new Set(rows.map((r) => r.aggregate_id))];
    const jobs = await this.exec(this.pool, 'SELECT id, queue_name, status FROM ai_jobs WHERE id IN (?)', [jobIds]);
    const byId = new Map(jobs.map((j) => [j.id, j]));
    return { token, events: rows.map((r) => ({ ...r, job: byId.get(r.aggregate_id) || null })) };
  }

  // published closes the event and moves its job created -> queued, in one
  // transaction, only while the claim is still ours. It tells whether it was.
  async published(ev, token) {
    return this.tx(async (conn) => {
      const res = await this.exec(conn,
        `UPDATE outbox_events SET status = 'published', published_at = NOW(6), locked_until = NULL
          WHERE id = ? AND status = 'processing' AND lock_token = ?`, [ev.id, token]);
      if (res.affectedRows !== 1) return false;
      await this.exec(conn, "UPDATE ai_jobs SET status = 'queued' WHERE id = ? AND status = 'created'", [ev.aggregate_id]);
      return true;
    });
  }

  // failed closes the event as failed with the reason.
  async failed(ev, token, reason) {
    const res = await this.withWidth((width) => this.exec(this.pool,
      `UPDATE outbox_events SET status = 'failed', last_error = LEFT(?, ?), locked_until = NULL
        WHERE id = ? AND status = 'processing' AND lock_token = ?`, [reason, width, ev.id, token]));
    return res.affectedRows === 1;
  }

  // retryLater gives a transiently failed event back to pending, due after
  // delayMs, with the reason.
  async retryLater(ev, token, reason, delayMs) {
    const res = await this.withWidth((width) => this.exec(this.pool,
      `UPDATE outbox_events
          SET status = 'pending', last_error = LEFT(?, ?), available_at = NOW(6) + INTERVAL ? MICROSECOND,
              locked_by = NULL, lock_token = NULL, locked_until = NULL
        WHERE id = ? AND status = 'processing' AND lock_token = ?`,
      [reason, width, Math.round(delayMs * 1000), ev.id, token]));
    return res.affectedRows === 1;
  }

  // withWidth runs write(width). When the server refuses the text for its
  // length (1406) and the column's width has not been read yet, it reads
  // it and runs the write again with it.
  async withWidth(write) {
    try {
      return await write(this.width);
    } catch (err) {
      if (err.errno !== 1406 || this.widthRead) throw err;
      const cols = await this.exec(this.pool, "SHOW COLUMNS FROM outbox_events LIKE 'last_error'", []);
      const m = cols.length > 0 && /char\((\d+)\)/i.exec(String(cols[0].Type));
      if (!m) throw err;
      this.width = Math.min(this.width, Number(m[1]));
      this.widthRead = true;
      return write(this.width);
    }
  }

  // release gives unstarted claims back (graceful stop): pending, due now,
  // last_error untouched. READ COMMITTED, as the recovery: for a long list
  // of ids the optimizer may scan the whole table.
  async release(ids, token) {
    if (ids.length === 0) return 0;
    const res = await this.tx((conn) => this.exec(conn,
      `UPDATE outbox_events SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL
        WHERE id IN (?) AND status = 'processing' AND lock_token = ?`, [ids, token]));
    return res.affectedRows;
  }
}

module.exports = { Outbox };
