package reference

import (
	"context"

	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

// Release hands the events of b that are still ours back to pending: at
// once (available_at is not moved), with last_error untouched, and the
// lock cleared. It is what a graceful stop and a too-short lease do; it is
// not a failure, so it adds no backoff (doc.go, "Release"). Attempts keep
// counting the claim. It returns how many rows were still ours; the rest are
// counted as fenced out.
func (d *Dispatcher) Release(ctx context.Context, b *Batch) (int64, error) {
	if b == nil || len(b.Events) == 0 {
		return 0, nil
	}
	ids := b.IDs()
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	res, err := d.db.ExecContext(ctx,
		`UPDATE `+dispatchkit.OutboxByID+` SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL
		 WHERE id IN `+dispatchkit.InList(len(ids))+` AND status = 'processing' AND lock_token = ?`,
		append(dispatchkit.Args(ids), b.Token)...)
	n, err := rowsWritten("release batch", res, err)
	if err != nil {
		return 0, err
	}
	d.metrics.released.Add(float64(n))
	if fenced := int64(len(ids)) - n; fenced > 0 {
		d.metrics.fencedOut.Add(float64(fenced))
		d.log.Warn("release fenced out: events no longer held", "batch", len(ids), "fenced_out", fenced, "outcome", "fenced_out")
	}
	return n, nil
}

// giveBackRows hands held events back to pending because a dependency
// answered nothing (doc.go, "Dependency health"): like a release (no
// backoff, last_error untouched, lock cleared), and the claim's attempt is
// returned, since the failure was not the event's. Fenced by token.
func giveBackRows(ctx context.Context, ex execer, token string, ids []int64) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	res, err := ex.ExecContext(ctx,
		`UPDATE `+dispatchkit.OutboxByID+` SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL,
		        attempts = GREATEST(attempts - 1, 0)
		 WHERE id IN `+dispatchkit.InList(len(ids))+` AND status = 'processing' AND lock_token = ?`,
		append(dispatchkit.Args(ids), token)...)
	return rowsWritten("give back", res, err)
}
