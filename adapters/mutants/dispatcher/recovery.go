package dispatcher

import (
	"context"
	"fmt"
)

// recoverExpired returns claims whose lease ran out more than
// RecoveryMargin ago to pending, in the flow's way (doc.go, "Lease
// recovery"), and says how many rows it reset.
func (d *Dispatcher) recoverExpired(ctx context.Context) (int64, error) {
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	switch d.flow.recovery {
	case recoveryNone:
		return 0, nil
	case recoverySelectThenReset:
		ids, err := d.selectExpired(ctx)
		if err != nil || len(ids) == 0 {
			return 0, err
		}
		return d.resetByID(ctx, ids)
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
	rows, err := d.db.QueryContext(ctx, `SELECT id FROM outbox_events
		WHERE status = 'processing' AND locked_until < NOW(6) - INTERVAL ? MICROSECOND`,
		d.cfg.RecoveryMargin.Microseconds())
	if err != nil {
		return nil, fmt.Errorf("select expired leases: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("select expired leases: scan: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// resetByID is the bug's second step: it resets the rows read before BY ID
// ONLY, with no second look at their status, so a row finalized (or
// re-claimed) since the read goes back to pending.
func (d *Dispatcher) resetByID(ctx context.Context, ids []int64) (int64, error) {
	res, err := d.db.ExecContext(ctx, `UPDATE outbox_events
		SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL
		WHERE id IN `+inList(len(ids)), int64Args(ids)...)
	if err != nil {
		return 0, fmt.Errorf("reset expired leases: %w", err)
	}
	return res.RowsAffected()
}
