package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// one carries one event from claim to finalize; false when none was due.
func (s *single) one() (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.c.Lease)
	defer cancel()
	if s.c.Plant == plantGlobalLock {
		lk, err := s.lock(ctx, s.c.Lease)
		if err != nil {
			return false, err
		}
		defer lk.release()
	}
	e, err := s.claimOne(ctx)
	if err != nil || e == nil {
		return false, err
	}
	status, why := s.decide(e)
	if status == "add" {
		status, why = "published", ""
		if err := s.addUnderLock(ctx, e); err != nil {
			status, why = "retry", err.Error()
		}
	}
	return true, s.finalize(ctx, e, status, why)
}

// decide applies the contract's checks: "add", "published" (dispatched
// before), or "failed" with the reason.
func (s *single) decide(e *claimed) (string, string) {
	switch {
	case e.etype != "ai.job.enqueue":
		return "failed", "unsupported event_type " + e.etype
	case !e.jobFound:
		return "failed", "ai_jobs " + e.job + " not found"
	case e.jstatus != "created" && s.c.Plant != plantReAdd:
		return "published", ""
	case !contains(s.c.Queues, e.queue):
		return "failed", "queue " + e.queue + " not allowed"
	case e.job == "" || strings.Contains(e.job, ":") || strings.Trim(e.job, "0123456789") == "":
		return "failed", "jobId " + e.job + " is not a legal BullMQ custom id"
	}
	return "add", ""
}

func (s *single) addUnderLock(ctx context.Context, e *claimed) error {
	if s.c.Plant != plantGlobalLock { // the plant holds the lock already
		lk, err := s.lock(ctx, s.c.AddTimeout)
		if err != nil {
			return err
		}
		defer lk.release()
	}
	actx, cancel := context.WithTimeout(ctx, s.c.AddTimeout)
	defer cancel()
	if err := s.bullAdd(actx, e); err != nil {
		return fmt.Errorf("add %s to %s: %w", e.job, e.queue, err)
	}
	return nil
}

// finalize writes the outcome in one transaction, fenced by status and
// token (the global-lock plant fences by id alone).
func (s *single) finalize(ctx context.Context, e *claimed, status, why string) error {
	tx, err := s.db.BeginTx(ctx, rcOpts)
	if err != nil {
		return fmt.Errorf("finalize %d: %w", e.id, err)
	}
	defer tx.Rollback()
	fence, args := " AND status = 'processing' AND lock_token = ?", []any{e.token}
	if s.c.Plant == plantGlobalLock {
		fence, args = "", nil
	}
	var q string
	var vals []any
	switch {
	case status == "published":
		q = `UPDATE outbox_events SET status = 'published', published_at = NOW(6) WHERE id = ?`
		vals = []any{e.id}
	case status == "failed" || e.attempts >= s.c.Max:
		if status == "retry" {
			why = fmt.Sprintf("attempt %d of %d failed, no more retries: %s", e.attempts, s.c.Max, why)
		}
		q = `UPDATE outbox_events SET status = 'failed', last_error = ? WHERE id = ?`
		vals = []any{why, e.id}
	default:
		q = `UPDATE outbox_events SET status = 'pending', last_error = ?, available_at = NOW(6) + INTERVAL ? MICROSECOND,
			locked_by = NULL, lock_token = NULL, locked_until = NULL WHERE id = ?`
		vals = []any{fmt.Sprintf("attempt %d failed: %s", e.attempts, why), s.backoff(e.attempts).Microseconds(), e.id}
	}
	res, err := tx.ExecContext(ctx, q+fence, append(vals, args...)...)
	if status != "published" && textRefused(err) {
		res, err = s.refit(ctx, tx, q+fence, append(vals, args...), err)
	}
	if err != nil {
		return fmt.Errorf("finalize %d: %w", e.id, err)
	}
	n, _ := res.RowsAffected()
	if n == 1 && status == "published" && s.c.Plant != plantNotQueued {
		if _, err := tx.ExecContext(ctx, `UPDATE ai_jobs SET status = 'queued' WHERE id = ? AND status = 'created'`, e.job); err != nil {
			return fmt.Errorf("finalize %d: queue job: %w", e.id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("finalize %d: commit: %w", e.id, err)
	}
	return nil
}

// backoff doubles from the base with each attempt, up to the cap.
func (s *single) backoff(attempt int) time.Duration {
	d := s.c.Base
	for ; attempt > 1 && d < s.c.Cap; attempt-- {
		d *= 2
	}
	if d > s.c.Cap {
		d = s.c.Cap
	}
	return d
}
