package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// pollEvery is how often the harness counts published events.
const pollEvery = 100 * time.Millisecond

// stallTimeout bounds a saturation run that makes no progress: far above
// any sane pause, so it only catches a stuck dispatcher.
const stallTimeout = 2 * time.Minute

// saturate runs one fleet case at saturation: preload n events, start the
// instances, wait until all are published (or capAt passes, when positive),
// and fill row. The fleet is returned running, for a latency phase; the
// caller stops it.
func (r *runner) saturate(ctx context.Context, c *caseDB, a supervisor.Adapter, row *Row, n int, capAt time.Duration) (*fleet, error) {
	r.log("%s: preloading %d events", row.Name, n)
	if err := c.preload(ctx, "sat", n); err != nil {
		return nil, err
	}
	row.Preloaded = n
	w, err := r.openWindow(ctx, c)
	if err != nil {
		return nil, err
	}
	f, err := startFleet(ctx, a, r.logDir(row.Name), r.srv.contractEnv(c, r.cfg), row.Instances)
	if err != nil {
		return nil, err
	}
	published, err := r.awaitPublished(ctx, c, f, n, capAt)
	if err == nil {
		err = r.closeSaturation(ctx, c, f, w, row, published)
	}
	if err != nil {
		return nil, errors.Join(err, f.stop())
	}
	row.Capped = published < n
	return f, nil
}

// closeSaturation reads the fleet's CPU and the window's work, then the
// last publication time, and fills the row.
func (r *runner) closeSaturation(ctx context.Context, c *caseDB, f *fleet, w *window, row *Row, published int) error {
	cpu, err := f.cpu()
	if err != nil {
		return err
	}
	ww, err := w.close(ctx, r, c)
	if err != nil {
		return err
	}
	end, err := c.lastPublished(ctx, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", row.Name, err)
	}
	row.fill(published, end.Sub(w.t0), ww, cpu)
	r.log("%s: %d events in %s: %.0f events/s", row.Name, published, row.Elapsed.Round(time.Millisecond), row.EPS)
	return nil
}

// awaitPublished polls the published count until it reaches n, capAt
// passes (when positive: the count reached is returned), or no progress is
// seen for stallTimeout (an error).
func (r *runner) awaitPublished(ctx context.Context, c *caseDB, f *fleet, n int, capAt time.Duration) (int, error) {
	start := time.Now()
	last, lastMove := -1, time.Now()
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		got, err := c.countStatus(ctx, "published")
		if err != nil {
			return 0, err
		}
		if got >= n || (capAt > 0 && time.Since(start) >= capAt) {
			return got, nil
		}
		if got != last {
			last, lastMove = got, time.Now()
		}
		if err := f.alive(); err != nil {
			return 0, err
		}
		if time.Since(lastMove) > stallTimeout {
			failed, _ := c.failedCount(ctx)
			return 0, fmt.Errorf("no event published for %s (%d of %d published, %d failed): the dispatcher is stuck; see %s",
				stallTimeout, got, n, failed, r.logDir(""))
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-t.C:
		}
	}
}
