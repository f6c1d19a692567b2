package main

import (
	"context"
	"database/sql"
	"fmt"
)

// settle writes every verdict in one transaction. The fence is status and
// token; failures count the attempt. The round's context ends with the
// lease, so a settle never starts after it: an owner paused past its lease
// wakes to a context already done and writes nothing. The unfenced-finalize
// plant drops both fences: no guard on the writes, and a settle of its own
// ("finish what was started", a lease long) that outlives the round, so a
// woken zombie writes its outcomes by id over whoever took the rows over.
func (e *engine) settle(ctx context.Context, token string, items []*item) error {
	if e.o.bug == "unfenced-finalize" {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), e.o.lease)
		defer cancel()
	}
	tx, err := e.db.BeginTx(ctx, rc)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	e.learnWidth(ctx)
	guard, args := " AND status = 'processing' AND lock_token = ?", []any{token}
	if e.o.bug == "unfenced-finalize" {
		guard, args = "", nil
	}
	for _, it := range items {
		if err := e.settleOne(ctx, tx, it, guard, args); err != nil {
			return fmt.Errorf("event %d: %w", it.ID, err)
		}
	}
	return tx.Commit()
}

func (e *engine) settleOne(ctx context.Context, tx *sql.Tx, it *item, guard string, fence []any) error {
	with := func(a ...any) []any { return append(a, fence...) }
	switch it.Verdict {
	case "publish":
		res, err := tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'published', published_at = NOW(6) WHERE id = ?`+guard, with(it.ID)...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // no longer ours
		}
		_, err = tx.ExecContext(ctx, `UPDATE ai_jobs SET status = 'queued' WHERE id = ? AND status = 'created'`, it.Job)
		return err
	case "fail":
		_, err := tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'failed', attempts = attempts + 1, last_error = ? WHERE id = ?`+guard,
			with(e.fit(it.Why), it.ID)...)
		return err
	}
	n := it.Failures + 1
	if n >= e.o.maxAttempts && e.o.bug != "unbounded-attempts" {
		_, err := tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'failed', attempts = ?, last_error = ? WHERE id = ?`+guard,
			with(n, e.fit(fmt.Sprintf("failure %d of %d, giving up: %s", n, e.o.maxAttempts, it.Why)), it.ID)...)
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE outbox_events SET status = 'pending', attempts = ?, last_error = ?,
		available_at = NOW(6) + INTERVAL ? MICROSECOND, locked_by = NULL, lock_token = NULL, locked_until = NULL WHERE id = ?`+guard,
		with(n, e.fit(fmt.Sprintf("failure %d: %s", n, it.Why)), e.backoff(n).Microseconds(), it.ID)...)
	return err
}
