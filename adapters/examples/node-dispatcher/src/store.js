'use strict';

// The outbox table's side of the protocol. Every state change is one
// statement whose WHERE clause re-checks the state it leaves; every write
// after the claim is fenced by the claim's lock_token, so a dispatcher whose
// lease ran out and whose rows were taken over writes nothing.

const crypto = require('node:crypto');
const mysql = require('mysql2/promise');

// BY_ID is the outbox table for every statement that names its rows by id
// (WHERE id IN (...) AND status = ...). Left to itself, the optimizer reads
// such a statement through the status index, because the guard's status is
// its first column, and a locking read of that index range waits on every
// entry another transaction holds in it: a producer's INSERT not committed
// yet sits in the 'pending' range, a peer's claim in the 'processing' one.
// The claim then waited for producers' open transactions to commit, and a
// finalize behind a peer's claim past its query timeout (seen in the
// commit-order-gaps scenario). Through the primary key a statement locks
// only the rows it names.
const BY_ID = 'outbox_events FORCE INDEX (PRIMARY)';

// MAX_LAST_ERROR is the contract's width of last_error, in characters; a
// table's own column may be narrower (lastErrorWidth reads it).
const MAX_LAST_ERROR = 1024;

// fit makes an error text fit last_error: whole code points (a cut by UTF-16
// units may split a surrogate pair, a cut by bytes a character), lone
// surrogates replaced, at most width characters. Under strict SQL mode a
// longer text is refused ("Data too long", SQLSTATE 22001), and the failure
// write would be refused again at every attempt.
function fit(text, width) {
  const chars = Array.from(String(text).toWellFormed());
  return chars.length <= width ? chars.join('') : chars.slice(0, width).join('');
}

class Store {
  constructor(cfg) {
    this.cfg = cfg;
    this.opTimeoutMs = Math.max(cfg.leaseMs, 1000);
    this.pool = mysql.createPool({
      ...cfg.mysql,
      connectionLimit: 4,
      connectTimeout: Math.min(this.opTimeoutMs, 5000),
      timezone: 'Z',
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
    // Read committed: no gap locks, so producers never wait on a claim. A
    // short lock wait: a row held by a frozen peer is skipped, not waited on.
    this.pool.pool.on('connection', (conn) => {
      const ignore = () => {}; // a failure here shows on the connection's next query
      conn.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED', ignore);
      conn.query('SET SESSION innodb_lock_wait_timeout = 5', ignore);
    });
  }

  // lastErrorWidth reads once how many characters last_error holds; the
  // contract's width while it cannot be read.
  async lastErrorWidth(q) {
    if (this.errWidth) {
      return this.errWidth;
    }
    try {
      const rows = await q(`SELECT CHARACTER_MAXIMUM_LENGTH AS w FROM information_schema.COLUMNS
                             WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'outbox_events' AND COLUMN_NAME = 'last_error'`);
      const w = rows.length > 0 ? Number(rows[0].w) : 0;
      if (w > 0) {
        this.errWidth = Math.min(w, MAX_LAST_ERROR);
        return this.errWidth;
      }
    } catch (err) {
      // Read it again next time.
    }
    return MAX_LAST_ERROR;
  }

  async query(sql, values) {
    const [rows] = await this.pool.query({ sql, timeout: this.opTimeoutMs }, values);
    return rows;
  }

  // tx runs fn(query) in one transaction. A failed transaction's connection
  // is destroyed, never reused: its state is unknown.
  async tx(fn) {
    const conn = await this.pool.getConnection();
    const q = async (sql, values) => (await conn.query({ sql, timeout: this.opTimeoutMs }, values))[0];
    try {
      await q('START TRANSACTION');
      const out = await fn(q);
      await q('COMMIT');
      conn.release();
      return out;
    } catch (err) {
      conn.destroy();
      throw err;
    }
  }

  // claim locks up to batchSize due pending rows (SKIP LOCKED: concurrent
  // claimers take disjoint rows) and marks them processing under a fresh
  // token with locked_until = NOW(6) + lease, counting the attempt.
  async claim() {
    const token = crypto.randomBytes(16).toString('hex');
    const deadline = Date.now() + this.cfg.leaseMs; // local, never later than locked_until
    const events = await this.tx(async (q) => {
      const rows = await q(
        `SELECT id, event_type, aggregate_id, attempts FROM outbox_events
          WHERE status = 'pending' AND available_at <= NOW(6)
          ORDER BY available_at, id LIMIT ? FOR UPDATE SKIP LOCKED`, [this.cfg.batchSize]);
      if (rows.length === 0) {
        return [];
      }
      const ids = rows.map((r) => r.id);
      const res = await q(
        `UPDATE ${BY_ID} SET status = 'processing', locked_by = ?, lock_token = ?,
                locked_until = NOW(6) + INTERVAL ? MICROSECOND, attempts = attempts + 1
          WHERE id IN (?) AND status = 'pending'`,
        [this.cfg.instanceId, token, Math.round(this.cfg.leaseMs * 1000), ids]);
      if (res.affectedRows !== ids.length) {
        throw new Error(`claim: updated ${res.affectedRows} of ${ids.length} locked rows`);
      }
      return rows.map((r) => ({ id: String(r.id), type: r.event_type, jobId: r.aggregate_id, attempts: r.attempts + 1 }));
    });
    return { token, deadline, events };
  }

  // loadJobs reads the ai_jobs rows named by ids.
  async loadJobs(ids) {
    const jobs = new Map();
    if (ids.length === 0) {
      return jobs;
    }
    const rows = await this.query('SELECT id, queue_name, status FROM ai_jobs WHERE id IN (?)', [ids]);
    for (const r of rows) {
      jobs.set(r.id, { queue: r.queue_name, status: r.status });
    }
    return jobs;
  }

  // finalize writes every decided event of a batch in ONE transaction: the
  // rows still ours (processing under our token) are locked first, and only
  // they, and only their jobs, are written. Returns how many were fenced out.
  async finalize(batch, decisions) {
    return this.tx(async (q) => {
      const ids = decisions.map((d) => d.event.id);
      const mine = await q(
        `SELECT id FROM ${BY_ID} WHERE id IN (?) AND status = 'processing' AND lock_token = ? FOR UPDATE`,
        [ids, batch.token]);
      const ours = new Set(mine.map((r) => String(r.id)));
      const kept = decisions.filter((d) => ours.has(d.event.id));
      await this.writePublished(q, batch, kept.filter((d) => d.kind === 'published'));
      const width = await this.lastErrorWidth(q);
      for (const d of kept) {
        if (d.kind === 'failed') {
          await q(`UPDATE ${BY_ID} SET status = 'failed', last_error = ?, locked_until = NULL
                    WHERE id = ? AND status = 'processing' AND lock_token = ?`, [fit(d.error, width), d.event.id, batch.token]);
        } else if (d.kind === 'retry') {
          await q(`UPDATE ${BY_ID} SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL,
                          last_error = ?, available_at = NOW(6) + INTERVAL ? MICROSECOND
                    WHERE id = ? AND status = 'processing' AND lock_token = ?`,
          [fit(d.error, width), Math.round(d.delayMs * 1000), d.event.id, batch.token]);
        }
      }
      return decisions.length - kept.length;
    });
  }

  // writePublished closes events as published and moves their jobs from
  // created to queued, in the caller's transaction (contract step 4).
  async writePublished(q, batch, published) {
    if (published.length === 0) {
      return;
    }
    await q(`UPDATE ${BY_ID} SET status = 'published', published_at = NOW(6), locked_until = NULL
              WHERE id IN (?) AND status = 'processing' AND lock_token = ?`, [published.map((d) => d.event.id), batch.token]);
    // The guard leaves a job a worker already moved on (or one that was
    // dispatched before) untouched.
    const jobs = published.map((d) => d.event.jobId);
    if (jobs.length > 0) {
      await q(`UPDATE ai_jobs SET status = 'queued' WHERE id IN (?) AND status = 'created'`, [jobs]);
    }
  }

  // release gives a batch back untouched (graceful stop, or too little lease
  // left to add safely): no error, no backoff, so it is not a failure.
  async release(batch) {
    if (batch.events.length === 0) {
      return 0;
    }
    const res = await this.query(
      `UPDATE ${BY_ID} SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL
        WHERE id IN (?) AND status = 'processing' AND lock_token = ?`, [batch.events.map((e) => e.id), batch.token]);
    return res.affectedRows;
  }

  // recoverExpired returns to pending every claim whose lease ran out (the
  // seed's releaseExpiredLocks). The guard is evaluated under the row lock,
  // so a row finalized meanwhile is left alone.
  async recoverExpired() {
    const res = await this.query(
      `UPDATE outbox_events SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL
        WHERE status = 'processing' AND locked_until < NOW(6)`);
    return res.affectedRows;
  }

  async close() {
    await this.pool.end();
  }
}

module.exports = { Store };
