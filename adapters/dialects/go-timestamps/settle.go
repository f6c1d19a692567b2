package main

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
)

// fence is the condition every write after a claim carries: the row is
// still unsettled and no claim came after ours (only a claim counts a
// started attempt). A relay whose lease ran out and was taken over writes
// nothing.
const fence = "started_attempts = ? AND processed_at IS NULL AND abandoned_at IS NULL"

// settle writes what the publish came to, in one transaction: published
// rows get processed_at, failed ones a finished attempt and either a
// backoff (the lease column holds the next try) or, at the last attempt or
// for a permanent failure, abandoned_at. It returns how many rows the
// fence turned away.
func (r *relay) settle(ctx context.Context, batch []message, outs []outcome) (int, error) {
	tx, err := r.db.BeginTx(ctx, readCommitted)
	if err != nil {
		return 0, fmt.Errorf("settle: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	lost, err := r.markProcessed(ctx, tx, batch, outs)
	if err != nil {
		return 0, err
	}
	for i, m := range batch {
		if outs[i].err == nil {
			continue
		}
		n, err := r.markFailed(ctx, tx, m, outs[i])
		if err != nil {
			return 0, err
		}
		lost += 1 - n
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("settle: commit: %w", err)
	}
	return lost, nil
}

// markProcessed sets processed_at on the published messages, one UPDATE
// per attempt count among them (usually one); it returns how many the
// fence turned away.
func (r *relay) markProcessed(ctx context.Context, tx *sql.Tx, batch []message, outs []outcome) (int, error) {
	byAttempt := map[int][]any{}
	for i, m := range batch {
		if outs[i].err == nil {
			byAttempt[m.attempt] = append(byAttempt[m.attempt], m.id)
		}
	}
	lost := 0
	for _, attempt := range slices.Sorted(maps.Keys(byAttempt)) {
		ids := byAttempt[attempt]
		res, err := tx.ExecContext(ctx, "UPDATE outbox SET processed_at = NOW(6), finished_attempts = finished_attempts + 1 "+
			"WHERE id IN ("+marks(len(ids))+") AND "+fence, append(ids, attempt)...)
		if err != nil {
			return 0, fmt.Errorf("settle: mark %d rows processed: %w", len(ids), err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, fmt.Errorf("settle: mark processed: %w", err)
		}
		lost += len(ids) - int(n)
	}
	return lost, nil
}

// markFailed records one failed attempt of m; it returns how many rows it
// wrote (0 when the fence turned it away).
func (r *relay) markFailed(ctx context.Context, tx *sql.Tx, m message, o outcome) (int, error) {
	var res sql.Result
	var err error
	if o.permanent || m.attempt >= r.cfg.maxAttempts {
		r.log.Printf("abandon %s after attempt %d: %v", m.id, m.attempt, o.err)
		res, err = tx.ExecContext(ctx, "UPDATE outbox SET abandoned_at = NOW(6), finished_attempts = finished_attempts + 1 "+
			"WHERE id = ? AND "+fence, m.id, m.attempt)
	} else {
		wait := r.cfg.backoff(m.attempt, rand.Float64())
		res, err = tx.ExecContext(ctx, "UPDATE outbox SET locked_until = NOW(6) + INTERVAL ? MICROSECOND, finished_attempts = finished_attempts + 1 "+
			"WHERE id = ? AND "+fence, wait.Microseconds(), m.id, m.attempt)
	}
	if err != nil {
		return 0, fmt.Errorf("settle: record failed attempt %d of %s: %w", m.attempt, m.id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("settle: record failed attempt of %s: %w", m.id, err)
	}
	return int(n), nil
}
