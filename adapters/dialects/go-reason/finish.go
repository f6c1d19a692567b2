package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// finish writes every row's outcome in one transaction, each write fenced by
// status and this claim's token: a row recovered and re-claimed meanwhile is
// left to its new owner.
func (d *dispatcher) finish(ctx context.Context, token string, rows []*row) error {
	tx, err := d.db.BeginTx(ctx, readCommitted)
	if err != nil {
		return fmt.Errorf("finish: begin: %w", err)
	}
	defer tx.Rollback()
	var published []any
	for _, r := range rows {
		switch r.outcome {
		case publish:
			published = append(published, r.id)
		case permanent:
			err = d.fail(ctx, tx, token, r, r.reason)
		case transient:
			err = d.retry(ctx, tx, token, r)
		}
		if err != nil {
			return err
		}
	}
	if len(published) > 0 {
		if err := d.publish(ctx, tx, token, published); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("finish: commit: %w", err)
	}
	return nil
}

// publish marks the events published and moves their jobs created -> queued.
func (d *dispatcher) publish(ctx context.Context, tx *sql.Tx, token string, ids []any) error {
	args := append(ids, token)
	if _, err := tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'published', published_at = NOW(6), last_error = NULL
		WHERE id IN (`+marks(len(ids))+`) AND status = 'processing' AND lock_token = ?`, args...); err != nil {
		return fmt.Errorf("finish: publish: %w", err)
	}
	// Only the events this claim still held were published: move their jobs.
	q, err := tx.QueryContext(ctx, `SELECT aggregate_id FROM outbox_events
		WHERE id IN (`+marks(len(ids))+`) AND status = 'published' AND lock_token = ?`, args...)
	if err != nil {
		return fmt.Errorf("finish: read published: %w", err)
	}
	var jobs []any
	for q.Next() {
		var id string
		if err := q.Scan(&id); err != nil {
			q.Close()
			return fmt.Errorf("finish: read published: %w", err)
		}
		jobs = append(jobs, id)
	}
	q.Close()
	if err := q.Err(); err != nil || len(jobs) == 0 {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE ai_jobs SET status = 'queued' WHERE id IN (`+marks(len(jobs))+`) AND status = 'created'`, jobs...); err != nil {
		return fmt.Errorf("finish: queue jobs: %w", err)
	}
	return nil
}

func (d *dispatcher) fail(ctx context.Context, tx *sql.Tx, token string, r *row, reason string) error {
	if err := d.withReason(ctx, tx, `UPDATE outbox_events SET status = 'failed', last_error = ?
		WHERE id = ? AND status = 'processing' AND lock_token = ?`, reason, r.id, token); err != nil {
		return fmt.Errorf("finish: fail event %d: %w", r.id, err)
	}
	return nil
}

// retry gives a transient failure back with a backoff that doubles per
// attempt up to the maximum, or fails it at max attempts.
func (d *dispatcher) retry(ctx context.Context, tx *sql.Tx, token string, r *row) error {
	if r.attempts >= d.s.maxAttempts {
		return d.fail(ctx, tx, token, r, fmt.Sprintf("gave up after %d attempts: %s", r.attempts, r.reason))
	}
	wait := d.backoff(r.attempts)
	if err := d.withReason(ctx, tx, `UPDATE outbox_events SET status = 'pending', last_error = ?,
		available_at = NOW(6) + INTERVAL ? MICROSECOND, locked_by = NULL, lock_token = NULL, locked_until = NULL
		WHERE id = ? AND status = 'processing' AND lock_token = ?`,
		fmt.Sprintf("attempt %d: %s", r.attempts, r.reason), wait.Microseconds(), r.id, token); err != nil {
		return fmt.Errorf("finish: retry event %d: %w", r.id, err)
	}
	return nil
}

// backoff is base * 2^(attempt-1), capped at the maximum.
func (d *dispatcher) backoff(attempt int) time.Duration {
	if d.s.plant == "no-backoff" {
		return 0
	}
	wait := d.s.backoffBase
	for i := 1; i < attempt && wait < d.s.backoffMax; i++ {
		wait *= 2
	}
	return min(wait, d.s.backoffMax)
}
