'use strict';
// The outbox statements, on the contract's reference schema. Every time
// written is NOW(6) plus an interval: the database's clock, never ours.
//
// attempts is counted at each transient failure (failRetry), never at the
// claim: a claim lost to a crash or a recovery costs no attempt. Every write
// of a claimed row is fenced by status = 'processing' and the claim's token.
//
// None of these statements waits on a producer's transaction still open
// after its INSERT (commit-order-gaps holds one in eight open for up to
// 1.5 s): every session reads committed (main.js), the claim skips the rows
// it cannot lock and marks the ones it took by id alone, the list of
// expired claims is a plain read, and each recovery or finalize names one
// row by id. A status guard on a statement naming many ids (AND status =
// 'pending') would let the optimizer serve it from the status index, whose
// locking read waits on a producer's uncommitted entry in that range even
// under READ COMMITTED. release keeps its guard (the fence): whichever way
// it is read, the 'processing' range of that index holds no producer's row,
// and a READ COMMITTED UPDATE through the primary key passes over a row
// whose INSERT is not committed yet.
//
// Every text written to last_error is cut by the server, LEFT(text, width),
// to the column's width in characters. width is read once from
// information_schema (learnWidth, at the start of each round until a read
// succeeds; 1024, the contract's width, until then): a deployment's
// last_error may be narrower than the contract's, and under strict mode
// MariaDB refuses a longer text ("Data too long", 1406) instead of cutting
// it, which would leave a poison event claimed and retried at every lease.

const crypto = require('node:crypto');

const TIMEOUT = 5000;

const us = (ms) => Math.max(0, Math.round(ms * 1000));

function outbox(pool, cfg) {
  const run = async (conn, sql, values) => (await conn.query({ sql, values, timeout: TIMEOUT }))[0];

  // width is last_error's width in characters; 0 while not read yet.
  let width = 0;
  const fit = () => width || 1024;

  // learnWidth reads last_error's width from information_schema, once.
  async function learnWidth() {
    if (width > 0) return width;
    const rows = await run(pool,
      'SELECT CHARACTER_MAXIMUM_LENGTH AS n FROM information_schema.COLUMNS ' +
      "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'outbox_events' AND COLUMN_NAME = 'last_error'", []);
    if (rows.length > 0 && Number(rows[0].n) > 0) width = Math.min(Number(rows[0].n), 1024);
    return width;
  }

  // claim: SKIP LOCKED on the claim index, one statement to take the rows;
  // attempts is left alone.
  async function claim() {
    const token = crypto.randomBytes(12).toString('hex');
    const conn = await pool.getConnection();
    let rows = [];
    try {
      await conn.beginTransaction();
      const due = await run(conn,
        "SELECT id FROM outbox_events WHERE status = 'pending' AND available_at <= NOW(6) " +
        'ORDER BY available_at, id LIMIT ? FOR UPDATE SKIP LOCKED', [cfg.batch]);
      if (due.length > 0) {
        const ids = due.map((d) => d.id);
        await run(conn,
          "UPDATE outbox_events SET status = 'processing', locked_by = ?, lock_token = ?, " +
          'locked_until = NOW(6) + INTERVAL ? MICROSECOND WHERE id IN (?)', [cfg.me, token, us(cfg.lease), ids]);
        rows = await run(conn,
          'SELECT o.id, o.event_type, o.aggregate_id, o.attempts, a.id AS job, a.queue_name AS queue, a.status AS job_status ' +
          'FROM outbox_events o LEFT JOIN ai_jobs a ON a.id = o.aggregate_id WHERE o.id IN (?)', [ids]);
      }
      await conn.commit();
      conn.release();
    } catch (err) {
      conn.destroy();
      throw err;
    }
    return { token, rows };
  }

  // expired lists the claims whose lease ran out, and how long ago on the
  // database's clock: [{id, token, expiredMs}].
  async function expired() {
    const rows = await run(pool,
      'SELECT id, lock_token, TIMESTAMPDIFF(MICROSECOND, locked_until, NOW(6)) AS expired_us ' +
      "FROM outbox_events WHERE status = 'processing' AND locked_until < NOW(6) ORDER BY id LIMIT 500", []);
    return rows.map((r) => ({ id: String(r.id), token: r.lock_token, expiredMs: Number(r.expired_us) / 1000 }));
  }

  // recover returns one expired claim to pending with a reason, available_at
  // untouched (a recovery is not a failure); false when the claim moved on.
  async function recover(id, token) {
    const res = await run(pool,
      "UPDATE outbox_events SET status = 'pending', last_error = LEFT(CONCAT('lease expired, owner ', IFNULL(locked_by, '?'), ', recovered by ', ?), " + fit() + '), ' +
      'locked_by = NULL, lock_token = NULL, locked_until = NULL ' +
      "WHERE id = ? AND status = 'processing' AND lock_token = ? AND locked_until < NOW(6)", [cfg.me, id, token]);
    return res.affectedRows === 1;
  }

  // recoverBlind is the planted bug recovery-overwrites-finalized: the ids
  // seen expired earlier go back to pending by id alone, whatever became of
  // them since.
  async function recoverBlind(ids) {
    const res = await run(pool,
      "UPDATE outbox_events SET status = 'pending', last_error = LEFT(CONCAT('lease expired, owner ', IFNULL(locked_by, '?'), ', recovered by ', ?), " + fit() + '), ' +
      'locked_by = NULL, lock_token = NULL, locked_until = NULL WHERE id IN (?)', [cfg.me, ids]);
    return res.affectedRows;
  }

  // publish closes the event and moves its job created -> queued together.
  async function publish(id, job, token) {
    const conn = await pool.getConnection();
    try {
      await conn.beginTransaction();
      const res = await run(conn,
        "UPDATE outbox_events SET status = 'published', published_at = NOW(6), locked_by = NULL, lock_token = NULL, locked_until = NULL " +
        "WHERE id = ? AND status = 'processing' AND lock_token = ?", [id, token]);
      const mine = res.affectedRows === 1;
      if (mine && job) await run(conn, "UPDATE ai_jobs SET status = 'queued' WHERE id = ? AND status = 'created'", [job]);
      await conn.commit();
      conn.release();
      return mine;
    } catch (err) {
      conn.destroy();
      throw err;
    }
  }

  // failPermanent fails the event at once; attempts is left as it was.
  async function failPermanent(id, token, why) {
    await run(pool,
      "UPDATE outbox_events SET status = 'failed', last_error = LEFT(?, " + fit() + "), locked_by = NULL, lock_token = NULL, locked_until = NULL " +
      "WHERE id = ? AND status = 'processing' AND lock_token = ?", [why, id, token]);
  }

  // failRetry counts a transient failure: attempts + 1, then failed at the
  // maximum, or pending again after delay ms.
  async function failRetry(id, token, why, attemptsNow, delay) {
    const last = attemptsNow >= cfg.maxAttempts;
    await run(pool,
      'UPDATE outbox_events SET attempts = ?, last_error = LEFT(?, ' + fit() + '), ' +
      (last ? "status = 'failed', " : "status = 'pending', available_at = NOW(6) + INTERVAL " + us(delay) + ' MICROSECOND, ') +
      "locked_by = NULL, lock_token = NULL, locked_until = NULL WHERE id = ? AND status = 'processing' AND lock_token = ?",
      [attemptsNow, why, id, token]);
  }

  // release gives claims back on shutdown, last_error and attempts kept.
  async function release(ids, token) {
    if (ids.length === 0) return 0;
    const res = await run(pool,
      "UPDATE outbox_events SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL " +
      "WHERE id IN (?) AND status = 'processing' AND lock_token = ?", [ids, token]);
    return res.affectedRows;
  }

  return { learnWidth, claim, expired, recover, recoverBlind, publish, failPermanent, failRetry, release };
}

module.exports = { outbox };
