'use strict';
// The outbox in MySQL: every statement the relay runs. A row is leased by
// writing lease_owner and lease_until (on the database clock); every later
// write is fenced on lease_owner, so an owner whose lease was taken over
// writes nothing. Every session reads committed: a locking read then locks
// the rows it returns and no gaps, and never waits for a producer's
// uncommitted insert.

const mysql = require('mysql2/promise');

// A row is due when its backoff is over and nobody holds an unexpired
// lease on it; an expired lease is taken over by the next claim directly.
const DUE = `SELECT id, topic, payload, attempts, lease_owner
  FROM relay_outbox
  WHERE next_attempt_at <= NOW(6) AND (lease_until IS NULL OR lease_until <= NOW(6))
  ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED`;
const LEASE = 'UPDATE relay_outbox SET lease_owner = ?, lease_until = NOW(6) + INTERVAL ? MICROSECOND WHERE id IN (?)';
const REMOVE = 'DELETE FROM relay_outbox WHERE id = ? AND lease_owner = ?';
const RETRY = `UPDATE relay_outbox
  SET attempts = attempts + 1, last_error = ?, next_attempt_at = NOW(6) + INTERVAL ? MICROSECOND,
      lease_owner = NULL, lease_until = NULL
  WHERE id = ? AND lease_owner = ?`;
const BURY = `INSERT INTO relay_dead_letters (outbox_id, payload, reason, failed_at)
  SELECT id, payload, ?, NOW(6) FROM relay_outbox WHERE id = ? AND lease_owner = ?`;
const RELEASE = 'UPDATE relay_outbox SET lease_owner = NULL, lease_until = NULL, last_error = ? WHERE id IN (?) AND lease_owner = ?';

// A write chosen as a deadlock victim (1213) or timed out waiting for a lock
// (1205) was rolled back whole: it is tried again, up to WRITE_TRIES times.
const ROLLED_BACK = new Set([1213, 1205]);
const WRITE_TRIES = 3;

class Store {
  constructor(cfg, log) {
    this.owner = cfg.owner;
    this.leaseUs = Math.round(cfg.leaseMs * 1000);
    // A statement blocked longer than this (a link that swallows packets)
    // is abandoned and its connection dropped; the lease has run out by
    // then, so whatever it held is another relay's to take.
    this.timeoutMs = Math.max(3000, 2 * cfg.leaseMs);
    this.pool = mysql.createPool({
      uri: cfg.mysqlUrl,
      connectionLimit: 2,
      connectTimeout: 2000,
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
    this.pool.on('connection', (c) => c.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED'));
    this.log = log;
  }

  // claim leases up to n due rows to this relay and returns them (id as
  // text, attempts, topic, payload, and the owner of the lease it took over).
  async claim(n) {
    return this.inTransaction(async (c) => {
      const [rows] = await c.query({ sql: DUE, timeout: this.timeoutMs }, [n]);
      if (rows.length > 0) {
        await c.query({ sql: LEASE, timeout: this.timeoutMs }, [this.owner, this.leaseUs, rows.map((r) => r.id)]);
      }
      return rows;
    });
  }

  // remove deletes a row this relay still holds; false when its lease was
  // taken over (the row is someone else's now).
  async remove(id) {
    const [res] = await this.write(() => this.pool.query({ sql: REMOVE, timeout: this.timeoutMs }, [id, this.owner]));
    return res.affectedRows === 1;
  }

  // retry records a transient failure: one more attempt, the next one not
  // before delayMs from now, the lease given up.
  async retry(id, reason, delayMs) {
    const [res] = await this.write(() => this.pool.query({ sql: RETRY, timeout: this.timeoutMs }, [reason, Math.round(delayMs * 1000), id, this.owner]));
    return res.affectedRows === 1;
  }

  // bury moves a row this relay holds to the dead-letter table and deletes
  // it, in one transaction; false when its lease was taken over.
  async bury(id, reason) {
    return this.write(() => this.inTransaction(async (c) => {
      const [ins] = await c.query({ sql: BURY, timeout: this.timeoutMs }, [reason, id, this.owner]);
      if (ins.affectedRows !== 1) return false;
      const [del] = await c.query({ sql: REMOVE, timeout: this.timeoutMs }, [id, this.owner]);
      if (del.affectedRows !== 1) throw new Error(`dead-letter ${id}: the row changed hands inside the transaction`);
      return true;
    }));
  }

  // release gives the leases on ids back before they run out, with why.
  async release(ids, why) {
    if (ids.length === 0) return 0;
    const [res] = await this.write(() => this.pool.query({ sql: RELEASE, timeout: this.timeoutMs }, [why, ids, this.owner]));
    return res.affectedRows;
  }

  // write runs op, again when the database rolled it back for a lock.
  async write(op) {
    for (let tries = 1; ; tries++) {
      try {
        return await op();
      } catch (err) {
        if (!ROLLED_BACK.has(err.errno) || tries >= WRITE_TRIES) throw err;
        this.log(`${err.message}: trying again`);
      }
    }
  }

  // inTransaction runs fn on one connection inside a transaction; a failed
  // connection is dropped, never handed back to the pool.
  async inTransaction(fn) {
    const c = await this.pool.getConnection();
    try {
      await c.beginTransaction();
      const out = await fn(c);
      await c.commit();
      c.release();
      return out;
    } catch (err) {
      c.destroy();
      throw err;
    }
  }

  async close() {
    await this.pool.end();
  }
}

module.exports = { Store };
