package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"
)

// The relay's tables (schema.sql).
const (
	messagesTable = "outbox_messages"
	offsetsTable  = "outbox_offsets"
)

// message is one row of the log.
type message struct {
	offset  int64
	uuid    string
	topic   string
	payload string
}

// relay moves its consumer group's offset over the log, publishing each
// message it passes.
type relay struct {
	c    config
	db   *sql.DB
	pub  *publisher
	gaps *gapWatch
	lg   *log.Logger
	// mariadb is whether the server is MariaDB (its idle transaction
	// timeout is set in each round); nil until the first round asks.
	mariadb *bool
}

var readCommitted = &sql.TxOptions{Isolation: sql.LevelReadCommitted}

// turn is what one round did.
type turn struct {
	published int  // messages the round published and acked
	full      bool // it read a whole batch and passed all of it: go again
}

// round is one turn of the group: lock the group's offsets row (the
// instances take turns on it), read the next batch, walk it up to the first
// offset that may still commit, publish what it passed, move the offset to
// the last message published, commit. A crash anywhere before the commit
// leaves the offset where it was, and the next turn publishes the batch
// again (at-least-once; BullMQ keeps one job per id while the job exists).
func (r *relay) round(ctx context.Context) (turn, error) {
	ctx, cancel := context.WithTimeout(ctx, r.roundBudget())
	defer cancel()
	tx, err := r.db.BeginTx(ctx, readCommitted)
	if err != nil {
		return turn{}, fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := r.boundIdle(ctx, tx); err != nil {
		return turn{}, err
	}
	acked, err := r.lockGroup(ctx, tx)
	if err != nil {
		return turn{}, err
	}
	r.gaps.forget(acked)
	batch, err := r.read(ctx, tx, acked)
	if err != nil {
		return turn{}, err
	}
	passed, err := r.walk(ctx, tx, acked, batch)
	if err != nil {
		return turn{}, err
	}
	if len(passed) == 0 {
		return turn{}, nil
	}
	if r.c.plant == "ack-before-publish" {
		return r.ackThenPublish(ctx, tx, acked, passed)
	}
	n, perr := r.pub.publish(ctx, passed)
	if n > 0 {
		if err := r.ack(ctx, tx, acked, ackedAfter(passed, n)); err != nil {
			return turn{}, err
		}
		if err := tx.Commit(); err != nil {
			return turn{}, fmt.Errorf("commit offset %d: %w (the batch is published again next turn)", ackedAfter(passed, n), err)
		}
	}
	if perr != nil {
		return turn{published: n}, fmt.Errorf("publish: %w", perr)
	}
	return turn{published: n, full: len(batch) == r.c.batch && n == len(batch)}, nil
}

// roundBudget bounds a round: a lock wait behind another instance's round,
// the statements, and the publish.
func (r *relay) roundBudget() time.Duration { return 10*time.Second + 2*r.c.publishTimeout }

// boundIdle makes MariaDB end this transaction, and free the group's row,
// when its owner stops sending statements for longer than a publish can
// take (the owner paused or hung): another instance then takes the turn and
// publishes the batch again. The owner's own later statements fail, so it
// never moves the offset. MySQL has no such timeout: a paused owner holds
// the turn until it resumes or dies.
func (r *relay) boundIdle(ctx context.Context, tx *sql.Tx) error {
	if r.mariadb == nil {
		var v string
		if err := tx.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
			return fmt.Errorf("server version: %w", err)
		}
		is := strings.Contains(strings.ToLower(v), "mariadb")
		r.mariadb = &is
	}
	if !*r.mariadb {
		return nil
	}
	secs := int(r.c.publishTimeout.Seconds()) + 3
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("SET SESSION idle_transaction_timeout = %d", secs)); err != nil {
		return fmt.Errorf("set idle_transaction_timeout: %w", err)
	}
	return nil
}

// lockGroup takes the group's turn: its offsets row, locked until the
// round commits or rolls back. A group without a row gets one at offset 0.
func (r *relay) lockGroup(ctx context.Context, tx *sql.Tx) (int64, error) {
	var acked int64
	q := "SELECT offset_acked FROM " + offsetsTable + " WHERE consumer_group = ? FOR UPDATE"
	err := tx.QueryRowContext(ctx, q, r.c.group).Scan(&acked)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := tx.ExecContext(ctx, "INSERT IGNORE INTO "+offsetsTable+" (consumer_group, offset_acked) VALUES (?, 0)", r.c.group); err != nil {
			return 0, fmt.Errorf("create the offsets row of group %s: %w", r.c.group, err)
		}
		err = tx.QueryRowContext(ctx, q, r.c.group).Scan(&acked)
	}
	if err != nil {
		return 0, fmt.Errorf("lock the offsets row of group %s: %w", r.c.group, err)
	}
	return acked, nil
}

// read returns the next batch of committed messages after acked, in offset
// order, and notes the gaps it saw.
func (r *relay) read(ctx context.Context, tx *sql.Tx, acked int64) ([]message, error) {
	rows, err := tx.QueryContext(ctx, "SELECT `offset`, uuid, topic, payload FROM "+messagesTable+
		" WHERE `offset` > ? ORDER BY `offset` LIMIT ?", acked, r.c.batch)
	if err != nil {
		return nil, fmt.Errorf("read messages after offset %d: %w", acked, err)
	}
	defer rows.Close()
	var out []message
	for rows.Next() {
		var m message
		if err := rows.Scan(&m.offset, &m.uuid, &m.topic, &m.payload); err != nil {
			return nil, fmt.Errorf("read messages after offset %d: %w", acked, err)
		}
		if m.topic == "" {
			m.topic = r.c.queues[0]
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read messages after offset %d: %w", acked, err)
	}
	if len(out) > 0 {
		r.gaps.saw(out[len(out)-1].offset)
	}
	return out, nil
}

// walk returns the messages of batch the cursor may pass now, in order: it
// stops before the first missing offset that may still commit (mayPass).
// The trusts-id plant passes every gap: a high-water mark of ids.
func (r *relay) walk(ctx context.Context, tx *sql.Tx, acked int64, batch []message) ([]message, error) {
	if r.c.plant == "trusts-id" {
		return batch, nil
	}
	probe := lockProbe(tx, messagesTable)
	next := acked + 1
	for i, m := range batch {
		if m.offset > next {
			ok, err := r.gaps.mayPass(ctx, next, m.offset-1, probe)
			if err != nil {
				return nil, err
			}
			if !ok {
				return batch[:i], nil
			}
			r.lg.Printf("passed offsets %d..%d: missing for %s and no transaction holds them (rolled back)", next, m.offset-1, r.c.gapLag)
		}
		next = m.offset + 1
	}
	return batch, nil
}

// ackedAfter is the offset the group may ack once the first n of passed
// are published: everything before passed[n] was published or a gap passed.
func ackedAfter(passed []message, n int) int64 {
	if n < len(passed) {
		return passed[n].offset - 1
	}
	return passed[len(passed)-1].offset
}

// ack moves the group's offset from acked to to, in the round's
// transaction.
func (r *relay) ack(ctx context.Context, tx *sql.Tx, acked, to int64) error {
	res, err := tx.ExecContext(ctx, "UPDATE "+offsetsTable+" SET offset_acked = ? WHERE consumer_group = ? AND offset_acked = ?", to, r.c.group, acked)
	if err != nil {
		return fmt.Errorf("move offset %d -> %d: %w", acked, to, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("move offset %d -> %d: the group's row did not hold %d (rows %d, %v)", acked, to, acked, n, err)
	}
	return nil
}

// ackThenPublish is the ack-before-publish plant: the offset moves and
// commits first, then the batch is published; a publish that fails, or a
// crash before it, loses the messages behind the offset.
func (r *relay) ackThenPublish(ctx context.Context, tx *sql.Tx, acked int64, passed []message) (turn, error) {
	to := passed[len(passed)-1].offset
	if err := r.ack(ctx, tx, acked, to); err != nil {
		return turn{}, err
	}
	if err := tx.Commit(); err != nil {
		return turn{}, fmt.Errorf("commit offset %d: %w", to, err)
	}
	n, err := r.pub.publish(ctx, passed)
	if err != nil {
		return turn{published: n}, fmt.Errorf("publish after the ack (%d of %d lost): %w", len(passed)-n, len(passed), err)
	}
	return turn{published: n, full: len(passed) == r.c.batch}, nil
}
