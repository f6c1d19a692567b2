package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// message is one claimed outbox row.
type message struct {
	id      string // the row's uuid, and the message id on the stream
	topic   string
	payload string
	attempt int // started_attempts after this claim: the claim's fence
}

// readCommitted is every transaction's isolation: a locking read takes no
// gap locks, so the claim never waits on a producer's open INSERT.
var readCommitted = &sql.TxOptions{Isolation: sql.LevelReadCommitted}

// dueWhere selects the rows a claim may take: not settled, lease (or
// backoff) over on the database clock.
const dueWhere = "processed_at IS NULL AND abandoned_at IS NULL AND locked_until < NOW(6)"

// dueWhereIgnoringProcessed is the planted recovery-ignores-processed
// condition: it forgets processed_at, so a published row whose lease ran
// out is claimed, and published, again.
const dueWhereIgnoringProcessed = "abandoned_at IS NULL AND locked_until < NOW(6)"

// claim takes up to batch due rows in one transaction: a locking read that
// skips rows other relays hold, then one UPDATE that leases them and counts
// a started attempt.
func (r *relay) claim(ctx context.Context) ([]message, error) {
	tx, err := r.db.BeginTx(ctx, readCommitted)
	if err != nil {
		return nil, fmt.Errorf("claim: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	due := dueWhere
	if r.cfg.plant == plantRecoveryIgnoresProcessed {
		due = dueWhereIgnoringProcessed
	}
	rows, err := tx.QueryContext(ctx, "SELECT id, topic, payload, started_attempts FROM outbox WHERE "+due+
		" ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED", r.cfg.batch)
	if err != nil {
		return nil, fmt.Errorf("claim: select due rows: %w", err)
	}
	batch, err := scanMessages(rows)
	if err != nil || len(batch) == 0 {
		return nil, err
	}
	ids := make([]any, 0, len(batch)+1)
	ids = append(ids, r.cfg.lease.Microseconds())
	for _, m := range batch {
		ids = append(ids, m.id)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE outbox SET locked_until = NOW(6) + INTERVAL ? MICROSECOND, "+
		"started_attempts = started_attempts + 1 WHERE id IN ("+marks(len(batch))+")", ids...); err != nil {
		return nil, fmt.Errorf("claim: lease %d rows: %w", len(batch), err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("claim: commit: %w", err)
	}
	return batch, nil
}

// scanMessages reads the claim's rows, each with the attempt count the
// claim's UPDATE gives it.
func scanMessages(rows *sql.Rows) ([]message, error) {
	defer rows.Close()
	var out []message
	for rows.Next() {
		var m message
		if err := rows.Scan(&m.id, &m.topic, &m.payload, &m.attempt); err != nil {
			return nil, fmt.Errorf("claim: read row: %w", err)
		}
		m.attempt++
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("claim: read rows: %w", err)
	}
	return out, nil
}

// marks is n comma-separated placeholders.
func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }
