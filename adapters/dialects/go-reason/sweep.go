package main

import (
	"context"
	"fmt"
)

// sweep returns every claim whose lease ran out to pending, whoever owned
// it, in one statement guarded by status and the lease: a row finalized or
// re-claimed in the meantime no longer matches. The reason names the owner;
// available_at is left alone, so the event is due again at once.
func (d *dispatcher) sweep() {
	ctx, cancel := context.WithTimeout(context.Background(), d.s.lease)
	defer cancel()
	tx, err := d.db.BeginTx(ctx, readCommitted)
	if err != nil {
		d.log.Printf("sweep: begin: %v", err)
		return
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE outbox_events
		SET status = 'pending', last_error = LEFT(CONCAT('lease expired, owner ', COALESCE(locked_by, '?')), ?),
		    locked_by = NULL, lock_token = NULL, locked_until = NULL
		WHERE status = 'processing' AND locked_until < NOW(6)`, d.limit())
	if err != nil {
		d.log.Printf("sweep: %v", fmt.Errorf("recover expired leases: %w", err))
		return
	}
	if err := tx.Commit(); err != nil {
		d.log.Printf("sweep: commit: %v", err)
		return
	}
	if n, _ := res.RowsAffected(); n > 0 {
		d.log.Printf("sweep: recovered %d expired claims", n)
	}
}
