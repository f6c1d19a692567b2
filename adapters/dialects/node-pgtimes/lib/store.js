'use strict';
// The outbox in PostgreSQL: every statement the relay runs, each in an
// explicit transaction (BEGIN ... COMMIT), READ COMMITTED.
//
// Clocks. Every time the relay writes or compares is clock_timestamp(),
// the time the statement reads it. now() would be the transaction's start:
// a lease written as now() + lease at the end of a transaction that began
// earlier is shorter than it says, and a due test against now() sees the
// world as it was at BEGIN.
//
// Fencing. A claim writes locked_by (this relay) and bumps
// started_attempts; the count it reaches is the claim's fence. Every later
// write of the claim names the row by id, locked_by, that count, a lease
// still running and neither timestamp set, so a relay whose lease ran out,
// or whose row was taken over, writes nothing.

const { Pool } = require('pg');

// UNSETTLED is a row neither published nor abandoned.
const UNSETTLED = 'processed_at IS NULL AND abandoned_at IS NULL';
// The planted bug recovery-ignores-processed forgets processed_at.
const UNSETTLED_PLANTED = 'abandoned_at IS NULL';

// due is the claim's locking read: rows whose backoff is over and that no
// one holds under a running lease, oldest first, skipping rows another
// claim has locked.
const due = (unsettled) => `SELECT id FROM outbox_messages
  WHERE ${unsettled} AND next_attempt_at <= clock_timestamp()
    AND (locked_until IS NULL OR locked_until <= clock_timestamp())
  ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`;

const LEASE = `UPDATE outbox_messages
  SET locked_by = $2, locked_until = clock_timestamp() + $3 * interval '1 millisecond',
      started_attempts = started_attempts + 1
  WHERE id = ANY($1::uuid[])
  RETURNING id::text AS id, topic, payload, started_attempts`;

// FENCE is the WHERE of every write of a claim: $1 id, $2 owner, $3 fence.
const FENCE = `id = $1 AND locked_by = $2 AND started_attempts = $3 AND ${UNSETTLED}
  AND locked_until > clock_timestamp()`;

// PUBLISHED keeps locked_by and locked_until as the claim left them.
const PUBLISHED = `UPDATE outbox_messages
  SET processed_at = clock_timestamp(), finished_attempts = finished_attempts + 1
  WHERE ${FENCE}`;
const RETRY = `UPDATE outbox_messages
  SET finished_attempts = finished_attempts + 1, last_error = $4,
      next_attempt_at = clock_timestamp() + $5 * interval '1 millisecond',
      locked_by = NULL, locked_until = NULL
  WHERE ${FENCE}`;
const ABANDON = `UPDATE outbox_messages
  SET abandoned_at = clock_timestamp(), finished_attempts = finished_attempts + 1, last_error = $4
  WHERE ${FENCE}`;
// RELEASE gives a lease back before it runs out; next_attempt_at stays.
const RELEASE = `UPDATE outbox_messages
  SET finished_attempts = finished_attempts + 1, last_error = $4, locked_by = NULL, locked_until = NULL
  WHERE ${FENCE}`;

// RETRYABLE are the SQLSTATEs of a transaction PostgreSQL rolled back for a
// lock: deadlock_detected, serialization_failure, lock_not_available.
const RETRYABLE = new Set(['40P01', '40001', '55P03']);
const TRIES = 3;

class Store {
  constructor(cfg, log) {
    this.cfg = cfg;
    this.log = log;
    this.due = due(cfg.plant === 'recovery-ignores-processed' ? UNSETTLED_PLANTED : UNSETTLED);
    // A statement with no answer this long (a link that swallows replies,
    // a COMMIT held up) is given up and its connection dropped: the lease
    // it held is long over by then, and whatever it wrote is another
    // relay's to find. Twice the lease, so a slow statement is not cut
    // short while its lease still runs.
    const timeout = Math.max(3000, 2 * cfg.leaseMs);
    this.pool = new Pool({
      connectionString: cfg.postgresUrl,
      max: 2,
      connectionTimeoutMillis: 2000,
      idleTimeoutMillis: 10000,
      query_timeout: timeout,
      application_name: `node-pgtimes ${cfg.owner}`,
    });
    // An idle connection that breaks (a restart, an outage) is dropped by
    // the pool; the next statement opens a fresh one. A connection that
    // breaks while checked out emits 'error' on its client as well as
    // failing the statement: every client gets a listener of its own, or
    // that event would end the process.
    this.pool.on('error', (err) => log(`postgres: idle connection lost: ${err.message}`));
    this.pool.on('connect', (client) => client.on('error', (err) => log(`postgres: connection lost: ${err.message}`)));
  }

  // claim leases up to n due rows to this relay, in one transaction, and
  // returns them with their fence (started_attempts after the claim).
  async claim(n) {
    return this.tx(async (c) => {
      const { rows } = await c.query(this.due, [n]);
      if (rows.length === 0) return [];
      const leased = await c.query(LEASE, [rows.map((r) => r.id), this.cfg.owner, this.cfg.leaseMs]);
      return leased.rows;
    });
  }

  published(row) {
    return this.settle(PUBLISHED, row, []);
  }

  retry(row, reason, delayMs) {
    return this.settle(RETRY, row, [reason, Math.round(delayMs)]);
  }

  abandon(row, reason) {
    return this.settle(ABANDON, row, [reason]);
  }

  release(row, why) {
    return this.settle(RELEASE, row, [why]);
  }

  // settle runs one fenced write of row's claim in its own transaction,
  // again when PostgreSQL rolled it back for a lock; false when the fence
  // held it off (the lease ran out, or the row changed hands).
  async settle(sql, row, extra) {
    const params = [row.id, this.cfg.owner, row.started_attempts, ...extra];
    for (let tries = 1; ; tries++) {
      try {
        return await this.tx(async (c) => (await c.query(sql, params)).rowCount === 1);
      } catch (err) {
        if (!RETRYABLE.has(err.code) || tries >= TRIES) throw err;
        this.log(`row ${row.id}: ${err.code} ${err.message}: trying again`);
      }
    }
  }

  // tx runs fn inside BEGIN ... COMMIT on one connection. On any error the
  // connection is dropped, never reused: after a reply that did not come,
  // the connection's state is unknown.
  async tx(fn) {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      c.release();
      return out;
    } catch (err) {
      c.release(err);
      throw err;
    }
  }

  async close() {
    await this.pool.end();
  }
}

module.exports = { Store };
