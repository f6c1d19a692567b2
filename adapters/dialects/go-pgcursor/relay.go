package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// relay moves its consumer group's offset over the log, publishing every
// message it passes.
type relay struct {
	c    config
	cfg  *pgx.ConnConfig
	conn *pgx.Conn // nil until the first round, and after a broken one
	pub  *publisher
	hz   horizon
	lg   *log.Logger
}

// turn is what one round did.
type turn struct {
	published int  // messages published and acked
	full      bool // it passed a whole batch: go again at once
}

// The relay's statements. The group's turn is a transaction-level advisory
// lock, not a row lock: a row lock would give the round a transaction id
// before its read, and the read's own snapshot would then hold its xmin
// below every transaction that began after the round did.
const (
	lockGroup   = "SELECT pg_advisory_xact_lock(hashtextextended('go-pgcursor:' || $1, 0))"
	readOffset  = "SELECT offset_acked FROM outbox_offsets WHERE consumer_group = $1"
	createGroup = "INSERT INTO outbox_offsets (consumer_group, offset_acked) VALUES ($1, 0) ON CONFLICT (consumer_group) DO NOTHING"
	moveOffset  = "UPDATE outbox_offsets SET offset_acked = $1 WHERE consumer_group = $2 AND offset_acked = $3"
	takeStamp   = "SELECT pg_current_xact_id()::text"
	// readLog reads the next batch and its snapshot's xmin in one
	// statement, so both are of one snapshot; with no row it still
	// returns the xmin, with NULLs.
	readLog = `SELECT pg_snapshot_xmin(s.snap)::text, m.msg_offset, m.txid::text, m.uuid::text, m.topic, m.payload::text
FROM (SELECT pg_current_snapshot() AS snap) s
LEFT JOIN LATERAL (SELECT msg_offset, txid, uuid, topic, payload FROM outbox_messages
  WHERE msg_offset > $1 ORDER BY msg_offset LIMIT $2) m ON true`
)

// round is one turn of the group: take the group's lock, read its offset,
// read the next batch at one snapshot, walk it up to the first row or hole
// that may still change, publish what it passed, move the offset to the
// last message Redis took, commit. A crash or a lost connection before the
// commit leaves the offset where it was: the next turn publishes the batch
// again (at-least-once; a re-add is a no-op while BullMQ keeps the job).
func (r *relay) round(ctx context.Context) (turn, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second+2*r.c.publishTimeout)
	defer cancel()
	conn, err := r.connect(ctx)
	if err != nil {
		return turn{}, err
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return turn{}, r.broken(fmt.Errorf("begin: %w", err))
	}
	defer r.rollback(tx)
	acked, err := r.takeTurn(ctx, tx)
	if err != nil {
		return turn{}, r.broken(err)
	}
	r.hz.forget(acked)
	rd, err := readBatch(ctx, tx, acked, r.c.batch, r.c.queues[0])
	if err != nil {
		return turn{}, r.broken(err)
	}
	passed, uncovered := walk(acked, rd, &r.hz, r.c.plant == "trusts-id")
	if uncovered {
		if err := r.stamp(ctx, tx, rd.top()); err != nil {
			return turn{}, r.broken(err)
		}
	}
	if len(passed) == 0 {
		return turn{}, nil
	}
	r.noteHoles(acked, passed)
	if r.c.plant == "ack-before-publish" {
		return r.ackThenPublish(ctx, tx, acked, passed)
	}
	n, perr := r.pub.publish(ctx, passed)
	if n > 0 {
		to := ackedAfter(passed, n)
		if err := move(ctx, tx, r.c.group, acked, to); err != nil {
			return turn{}, r.broken(err)
		}
		if err := tx.Commit(ctx); err != nil {
			return turn{}, r.broken(fmt.Errorf("commit offset %d: %w (the batch is published again next turn)", to, err))
		}
	}
	if perr != nil {
		return turn{published: n}, fmt.Errorf("publish: %w", perr)
	}
	return turn{published: n, full: len(rd.rows) == r.c.batch && n == len(rd.rows)}, nil
}

// takeTurn bounds how long the round's transaction may sit idle (an owner
// paused inside its turn loses its session, and with it the lock and any
// offset write, so another instance takes the turn), takes the group's
// lock and returns its offset; a group without a row gets one at 0.
func (r *relay) takeTurn(ctx context.Context, tx pgx.Tx) (int64, error) {
	idle := r.c.publishTimeout + 3*time.Second
	if _, err := tx.Exec(ctx, "SELECT set_config('idle_in_transaction_session_timeout', $1, true)", strconv.FormatInt(idle.Milliseconds(), 10)); err != nil {
		return 0, fmt.Errorf("set idle_in_transaction_session_timeout: %w", err)
	}
	if _, err := tx.Exec(ctx, lockGroup, r.c.group); err != nil {
		return 0, fmt.Errorf("lock group %s: %w", r.c.group, err)
	}
	var acked int64
	err := tx.QueryRow(ctx, readOffset, r.c.group).Scan(&acked)
	if errors.Is(err, pgx.ErrNoRows) {
		if _, err := tx.Exec(ctx, createGroup, r.c.group); err != nil {
			return 0, fmt.Errorf("create the offsets row of group %s: %w", r.c.group, err)
		}
		err = tx.QueryRow(ctx, readOffset, r.c.group).Scan(&acked)
	}
	if err != nil {
		return 0, fmt.Errorf("read the offset of group %s: %w", r.c.group, err)
	}
	return acked, nil
}

// readBatch reads up to batch messages after acked, in offset order, with
// the xmin of the snapshot that read them. A message with no topic goes to
// queue fallback.
func readBatch(ctx context.Context, tx pgx.Tx, acked int64, batch int, fallback string) (snapshotRead, error) {
	rows, err := tx.Query(ctx, readLog, acked, batch)
	if err != nil {
		return snapshotRead{}, fmt.Errorf("read messages after offset %d: %w", acked, err)
	}
	defer rows.Close()
	var rd snapshotRead
	for rows.Next() {
		var xmin string
		var off *int64
		var txid, uuid, topic, payload *string
		if err := rows.Scan(&xmin, &off, &txid, &uuid, &topic, &payload); err != nil {
			return snapshotRead{}, fmt.Errorf("read messages after offset %d: %w", acked, err)
		}
		if rd.xmin, err = strconv.ParseUint(xmin, 10, 64); err != nil {
			return snapshotRead{}, fmt.Errorf("snapshot xmin %q: %w", xmin, err)
		}
		if off == nil {
			continue // no message: the snapshot's row alone
		}
		m := message{offset: *off, uuid: *uuid, topic: *topic, payload: *payload}
		if m.txid, err = strconv.ParseUint(*txid, 10, 64); err != nil {
			return snapshotRead{}, fmt.Errorf("message %d: txid %q: %w", m.offset, *txid, err)
		}
		if m.topic == "" {
			m.topic = fallback
		}
		rd.rows = append(rd.rows, m)
	}
	if err := rows.Err(); err != nil {
		return snapshotRead{}, fmt.Errorf("read messages after offset %d: %w", acked, err)
	}
	return rd, nil
}

// stamp takes a transaction id after a read whose highest offset was top
// (horizon.go's stamp). It gives the round a transaction id, after its read.
func (r *relay) stamp(ctx context.Context, tx pgx.Tx, top int64) error {
	var s string
	if err := tx.QueryRow(ctx, takeStamp).Scan(&s); err != nil {
		return fmt.Errorf("stamp offset %d: %w", top, err)
	}
	xid, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("stamp offset %d: xid %q: %w", top, s, err)
	}
	r.hz.add(top, xid)
	return nil
}

// ackedAfter is the offset the group may ack once the first n of passed
// are published: everything before passed[n] was published or a closed
// hole.
func ackedAfter(passed []message, n int) int64 {
	if n < len(passed) {
		return passed[n].offset - 1
	}
	return passed[len(passed)-1].offset
}

// move sets the group's offset from acked to to, in the round's
// transaction; the row must still hold acked.
func move(ctx context.Context, tx pgx.Tx, group string, acked, to int64) error {
	tag, err := tx.Exec(ctx, moveOffset, to, group, acked)
	if err != nil {
		return fmt.Errorf("move offset %d -> %d: %w", acked, to, err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("move offset %d -> %d: the group's row no longer holds %d", acked, to, acked)
	}
	return nil
}

// ackThenPublish is the ack-before-publish plant: the offset moves and
// commits first, then the batch is published; a publish that fails, or a
// crash before it, loses what the offset passed.
func (r *relay) ackThenPublish(ctx context.Context, tx pgx.Tx, acked int64, passed []message) (turn, error) {
	to := passed[len(passed)-1].offset
	if err := move(ctx, tx, r.c.group, acked, to); err != nil {
		return turn{}, r.broken(err)
	}
	if err := tx.Commit(ctx); err != nil {
		return turn{}, r.broken(fmt.Errorf("commit offset %d: %w", to, err))
	}
	n, err := r.pub.publish(ctx, passed)
	if err != nil {
		return turn{published: n}, fmt.Errorf("publish after the ack (%d of %d lost): %w", len(passed)-n, len(passed), err)
	}
	return turn{published: n, full: len(passed) == r.c.batch}, nil
}

// connect returns the relay's connection, opening one when it has none.
func (r *relay) connect(ctx context.Context) (*pgx.Conn, error) {
	if r.conn != nil && !r.conn.IsClosed() {
		return r.conn, nil
	}
	conn, err := pgx.ConnectConfig(ctx, r.cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	r.conn = conn
	return conn, nil
}

// broken closes the connection after a failed statement, so the next
// round starts on a new one whatever state the failure left it in (a
// cancelled query, a terminated session, a server restart), and returns
// err.
func (r *relay) broken(err error) error {
	if r.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = r.conn.Close(ctx)
		r.conn = nil
	}
	return err
}

// rollback ends tx when the round did not commit it.
func (r *relay) rollback(tx pgx.Tx) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = tx.Rollback(ctx)
}

// noteHoles logs each hole the walk passed: offsets handed out to
// transactions that rolled back.
func (r *relay) noteHoles(acked int64, passed []message) {
	next := acked + 1
	for _, m := range passed {
		if m.offset > next {
			r.lg.Printf("passed offsets %d..%d: missing, and every transaction that could hold them has ended", next, m.offset-1)
		}
		next = m.offset + 1
	}
}
