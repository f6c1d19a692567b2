package dispatcher

import (
	"context"
	"errors"
	"time"

	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
	"github.com/outboxchaos/outboxchaos/reference/failpoint"
)

// Run polls until ctx is cancelled (SIGTERM), then stops gracefully: it
// claims nothing more, lets the batch in flight finish within
// ShutdownTimeout (a batch is never held between polls, so nothing is left to
// release) and closes the connections New opened. MySQL and Redis outages do
// not end it.
func (d *Dispatcher) Run(ctx context.Context) error {
	d.log.Info("dispatcher started", "batch_size", d.batchSize(), "poll_interval", d.pollInterval().String(),
		"lease", d.cfg.Lease.String(), "failpoints", d.fp.Enabled())
	loop := dispatchkit.Loop{Interval: d.pollInterval(), Grace: d.cfg.ShutdownTimeout}
	loop.Run(ctx, func(work context.Context) (bool, error) {
		n, err := d.Poll(work)
		if err != nil {
			d.log.Warn("poll failed", "error", err.Error())
		}
		return n == d.batchSize() && !d.flow.tickLock, err // tick-lock: one batch a tick, however full
	})
	d.log.Info("dispatcher stopped")
	return d.Close()
}

// Poll runs one step: take the dispatch lock when the flow has one, lease
// recovery when due, one claim and the processing of the claimed batch. It
// returns the number of events claimed.
func (d *Dispatcher) Poll(ctx context.Context) (int, error) {
	if d.lock != nil {
		held, err := d.lock.acquire(ctx)
		if err != nil || !held {
			return 0, err
		}
		defer d.lock.release(ctx, d.log)
	}
	d.failRefused(ctx) // read-only-as-permanent
	d.maybeRecover(ctx)
	b, err := d.claim(ctx)
	if err != nil || len(b.events) == 0 {
		return 0, err
	}
	d.fp.Hit(failpoint.AfterClaim)
	return len(b.events), d.process(ctx, b)
}

// process validates, adds and finalizes one claimed batch. A finalize that
// fails leaves the rows processing: lease recovery returns them.
func (d *Dispatcher) process(ctx context.Context, b *batch) error {
	fates := d.classify(ctx, b)
	if !d.flow.addFirst {
		return d.finalizeThenAdd(ctx, b, fates) // mark-before-enqueue
	}
	if hasAdds(fates) {
		d.add(ctx, b, fates)
		d.fp.Hit(failpoint.AfterEnqueue)
	}
	err := d.finalize(ctx, b, fates)
	if err != nil && d.flow.untimed {
		err = d.finalizeOnWake(ctx, b, fates, err) // no-timeouts-unfenced
	}
	if err != nil && d.flow.sqlErrorFails && sqlErrorReply(err) {
		return errors.Join(err, d.failBatch(ctx, b, err)) // sql-error-permanent
	}
	if err != nil && d.flow.readOnlyFails && readOnlyReply(err) {
		d.failLater = append(d.failLater, refusedBatch{batch: b, cause: err}) // read-only-as-permanent
	}
	return err
}

// finalizeThenAdd is mark-before-enqueue: every event due for an add is
// closed as published (its job queued) BEFORE the add, so a crash or a Redis
// failure in between leaves it published with no BullMQ job.
func (d *Dispatcher) finalizeThenAdd(ctx context.Context, b *batch, fates []fate) error {
	marked := make([]fate, len(fates))
	for i, f := range fates {
		marked[i] = f
		if f.kind == fateAdd {
			marked[i] = publish(howAdded)
		}
	}
	if err := d.finalize(ctx, b, marked); err != nil {
		return err
	}
	if hasAdds(fates) {
		d.add(ctx, b, fates)
		d.fp.Hit(failpoint.AfterEnqueue)
		for i, f := range fates {
			if f.kind == fateRetry {
				d.log.Warn("add failed after the event was published", "event_id", b.events[i].id, "error", f.text)
			}
		}
	}
	return nil
}

// maybeRecover runs lease recovery at most every max(poll interval,
// recovery margin).
func (d *Dispatcher) maybeRecover(ctx context.Context) {
	if time.Since(d.lastRecover) < max(d.pollInterval(), d.cfg.RecoveryMargin) {
		return
	}
	d.lastRecover = time.Now()
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	n, err := d.recoverExpired(ctx)
	switch {
	case err != nil:
		d.log.Warn("lease recovery failed", "error", err.Error())
	case n > 0:
		d.log.Info("recovered expired claims", "recovered", n)
	}
}
