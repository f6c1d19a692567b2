package dispatcher

import (
	"context"
	"fmt"

	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

// recoverExpired returns claims whose lease ran out more than
// RecoveryMargin ago to pending, in the flow's way (doc.go, "Lease
// recovery"), and says how many rows it reset. The caller bounds it
// (maybeRecover: by the lease).
func (d *Dispatcher) recoverExpired(ctx context.Context) (int64, error) {
	switch d.flow.recovery {
	case recoveryNone:
		return 0, nil
	case recoverySelectThenReset:
		ids, err := d.selectExpired(ctx)
		if err != nil || len(ids) == 0 {
			return 0, err
		}
		return d.resetByID(ctx, ids)
	case recoveryUnregistered:
		return d.recoverUnregistered(ctx)
	}
	res, err := d.db.ExecContext(ctx, `UPDATE outbox_events
		SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL
		WHERE status = 'processing' AND locked_until < NOW(6) - INTERVAL ? MICROSECOND`,
		d.cfg.RecoveryMargin.Microseconds())
	if err != nil {
		return 0, fmt.Errorf("recover expired leases: %w", err)
	}
	return res.RowsAffected()
}

// selectExpired lists the rows whose lease ran out (recovery-overwrites-
// finalized reads them first).
func (d *Dispatcher) selectExpired(ctx context.Context) ([]int64, error) {
	return dispatchkit.QueryRows(ctx, d.db, "select expired leases", dispatchkit.ScanID, `SELECT id FROM outbox_events
		WHERE status = 'processing' AND locked_until < NOW(6) - INTERVAL ? MICROSECOND`,
		d.cfg.RecoveryMargin.Microseconds())
}

// resetByID is the bug's second step: it resets the rows read before BY ID
// ONLY, with no second look at their status, so a row finalized (or
// re-claimed) since the read goes back to pending.
func (d *Dispatcher) resetByID(ctx context.Context, ids []int64) (int64, error) {
	res, err := d.db.ExecContext(ctx, `UPDATE `+dispatchkit.OutboxByID+`
		SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL
		WHERE id IN `+dispatchkit.InList(len(ids)), dispatchkit.Args(ids)...)
	if err != nil {
		return 0, fmt.Errorf("reset expired leases: %w", err)
	}
	return res.RowsAffected()
}
