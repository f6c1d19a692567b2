package reference

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
	"github.com/outboxchaos/outboxchaos/reference/failpoint"
)

// Run polls until ctx is cancelled, then stops gracefully (doc.go,
// "Graceful stop"): it claims nothing more, lets the batch in flight finish
// within ShutdownTimeout, releases what it still holds, stops the metrics
// server and closes the connections New opened. Outages of MySQL or Redis do
// not end Run; it returns an error only when it cannot start (the metrics
// address is taken) or cannot close cleanly.
func (d *Dispatcher) Run(ctx context.Context) error {
	stopMetrics, err := d.serveMetrics()
	if err != nil {
		return errors.Join(err, d.closeOwned())
	}
	d.health.running.Store(true)
	d.log.Info("dispatcher started", "queues", d.cfg.Queues, "batch_size", d.cfg.BatchSize,
		"lease", d.cfg.Lease.String(), "failpoints", d.fp.Enabled())
	if budget := d.cfg.RetryBudget(); d.cfg.DedupeHorizon < budget {
		d.log.Warn("the dedupe horizon is shorter than the retry budget: a re-add after a consumer removed the job may create it again",
			envDedupeHorizon, d.cfg.DedupeHorizon.String(), "retry_budget", budget.String())
	}
	loop := dispatchkit.Loop{Interval: d.cfg.PollInterval, Grace: d.cfg.ShutdownTimeout, FromStart: true}
	loop.Run(ctx, func(work context.Context) (bool, error) {
		n, err := d.poll(work, ctx)
		return n == d.cfg.BatchSize, err
	})
	d.health.running.Store(false)
	stopMetrics()
	d.log.Info("dispatcher stopped")
	return d.closeOwned()
}

// Poll runs one step of the loop: lease recovery and the backlog gauge when
// they are due, one claim, and the processing of the claimed batch. It
// returns the number of events claimed. Do not call it concurrently with
// itself or with Run on the same Dispatcher; Claim, Process, Release and
// RecoverExpired are safe for concurrent use.
func (d *Dispatcher) Poll(ctx context.Context) (int, error) {
	return d.poll(ctx, context.Background())
}

// Process validates, publishes and finalizes one claimed batch.
func (d *Dispatcher) Process(ctx context.Context, b *Batch) error {
	return d.process(ctx, context.Background(), b)
}

// poll is Poll with a separate stop signal: work bounds the operations, a
// done stop means "graceful stop requested". While a breaker is open it
// claims nothing and only probes when the probe is due (doc.go,
// "Dependency health"); lease recovery and the gauge need MySQL only.
func (d *Dispatcher) poll(work, stop context.Context) (int, error) {
	if !d.ready(work, d.mysqlB, d.pingMySQL) {
		return 0, nil
	}
	d.maybeRecover(work)
	d.maybeRefreshGauge(work)
	if !d.ready(work, d.redisB, d.pingRedis) {
		return 0, nil
	}
	b, err := d.Claim(work)
	heard(work, d.mysqlB, err)
	if err != nil {
		d.health.pollFailed(err)
		d.log.Warn("poll failed", "error", err.Error())
		return 0, err
	}
	d.health.pollSucceeded()
	if len(b.Events) == 0 {
		return 0, nil
	}
	d.fp.Hit(failpoint.AfterClaim)
	return len(b.Events), d.process(work, stop, b)
}

// process is Process with a stop signal: once a stop is requested, a batch
// that has not been added yet is released instead of added.
func (d *Dispatcher) process(work, stop context.Context, b *Batch) error {
	fates := d.classify(work, b)
	if hasAdds(fates) {
		if reason := d.skipAddReason(stop, b); reason != "" {
			d.log.Info("releasing batch before the add", "reason", reason, "batch", len(b.Events), "outcome", "released")
			_, err := d.Release(work, b)
			return err
		}
		d.publish(work, b, fates)
		d.fp.Hit(failpoint.AfterEnqueue)
	}
	d.lookBeforeFailing(work, b, fates)
	rep, err := d.finalize(work, b, fates, true)
	if err != nil {
		return d.afterFailedFinalize(work, b, fates, err)
	}
	d.mysqlB.answered()
	d.record(b, fates, rep)
	d.metrics.batchSeconds.Observe(time.Since(b.started).Seconds())
	return nil
}

// skipAddReason says why the batch must not be added now, or "".
func (d *Dispatcher) skipAddReason(stop context.Context, b *Batch) string {
	if stop.Err() != nil {
		return "graceful stop requested"
	}
	if !d.leaseAllowsAdd(b) {
		return fmt.Sprintf("lease ends in %s, less than %s=%s", b.Deadline().Sub(d.local()).Round(time.Millisecond), envPublishTimeout, d.cfg.PublishTimeout)
	}
	return ""
}

// afterFailedFinalize handles a finalize that did not commit (or whose
// COMMIT outcome is unknown). When the stop deadline cut the work short the
// batch is released. When MySQL answered nothing, nothing more is written:
// the breaker opens and the rows come back through lease recovery. Otherwise
// (an error reply) the batch is a transient failure, written in a fresh
// guarded transaction: the finalize failed, not the events, so an event
// already known to be a permanent failure (poison) is still failed at once,
// as the contract asks, and every other one goes back with backoff. Either write is fenced, so a COMMIT that did land is
// not undone. If that write fails too, the rows come back through lease
// recovery.
func (d *Dispatcher) afterFailedFinalize(work context.Context, b *Batch, decided []fate, cause error) error {
	d.log.Warn("finalize failed", "batch", len(b.Events), "error", cause.Error())
	if work.Err() != nil {
		ctx, cancel := context.WithTimeout(context.Background(), min(d.cfg.Lease, 5*time.Second))
		defer cancel()
		_, err := d.Release(ctx, b)
		return errors.Join(cause, err)
	}
	if heard(work, d.mysqlB, cause) {
		d.log.Warn("finalize got no answer from MySQL; the claims come back by lease recovery", "batch", len(b.Events))
		return cause
	}
	fates := make([]fate, len(b.Events))
	for i := range fates {
		fates[i] = retry(cause)
		if decided[i].kind == fateFail {
			fates[i] = decided[i]
		}
	}
	d.lookBeforeFailing(work, b, fates)
	rep, err := d.finalize(work, b, fates, false)
	if err != nil {
		return errors.Join(cause, err)
	}
	d.record(b, fates, rep)
	return cause
}

func hasAdds(fates []fate) bool {
	for _, f := range fates {
		if f.kind == fateAdd {
			return true
		}
	}
	return false
}
