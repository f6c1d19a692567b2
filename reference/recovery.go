package reference

import (
	"context"
	"time"

	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

// RecoverExpired returns claims whose lease ran out more than RecoveryMargin
// ago to pending, on the database clock (doc.go, "Lease recovery"). A
// lock-free read finds the candidates; ONE guarded UPDATE by primary key
// recovers them, re-checking under lock that each is still processing with
// an expired locked_until: a row finalized meanwhile is not processing, a
// row re-claimed meanwhile has a fresh locked_until. It clears the lock,
// keeps attempts (they count claims) and leaves last_error and available_at
// alone: a lost claim is not a transient failure. It returns the number of
// rows recovered.
func (d *Dispatcher) RecoverExpired(ctx context.Context) (int64, error) {
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	ids, err := d.expiredCandidates(ctx)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	res, err := d.db.ExecContext(ctx,
		`UPDATE `+dispatchkit.OutboxByID+` SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL
		 WHERE id IN `+dispatchkit.InList(len(ids))+` AND status = 'processing'
		   AND locked_until < `+sqlNow+` - INTERVAL ? MICROSECOND`,
		append(dispatchkit.Args(ids), d.nowArg(), d.cfg.RecoveryMargin.Microseconds())...)
	n, err := rowsWritten("recover expired leases", res, err)
	if err != nil {
		return 0, err
	}
	if n > 0 {
		d.metrics.recovered.Add(float64(n))
		d.log.Info("recovered expired claims", "recovered", n, "candidates", ids, "outcome", "recovered")
	}
	return n, nil
}

// expiredCandidates reads, without locking, up to MaxBatchSize rows that
// look expired. Reading first and updating by primary key keeps the UPDATE
// from scanning (and locking) the status index, where it would take locks on
// rows other instances are finalizing and could deadlock with them.
func (d *Dispatcher) expiredCandidates(ctx context.Context) ([]int64, error) {
	return dispatchkit.QueryRows(ctx, d.db, "find expired leases", dispatchkit.ScanID,
		`SELECT id FROM outbox_events
		 WHERE status = 'processing' AND locked_until < `+sqlNow+` - INTERVAL ? MICROSECOND
		 ORDER BY id LIMIT ?`,
		d.nowArg(), d.cfg.RecoveryMargin.Microseconds(), MaxBatchSize)
}

// maybeRecover runs lease recovery at most every max(PollInterval,
// RecoveryMargin).
func (d *Dispatcher) maybeRecover(ctx context.Context) {
	if time.Since(d.lastRecover) < max(d.cfg.PollInterval, d.cfg.RecoveryMargin) {
		return
	}
	d.lastRecover = time.Now()
	_, err := d.RecoverExpired(ctx)
	heard(ctx, d.mysqlB, err)
	if err != nil {
		d.log.Warn("lease recovery failed", "error", err.Error())
	}
}
