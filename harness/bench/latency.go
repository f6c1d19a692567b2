package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"
)

// perProducerRate is the most one producer is asked to commit per second:
// each event is its own transaction, and one connection does a few
// thousand round trips a second on a busy machine.
const perProducerRate = 250

// drainTimeout bounds the wait for the latency phase's last events.
const drainTimeout = 2 * time.Minute

// measureLatency offers cfg.Rate events per second for cfg.LatencyDuration
// while the case's instances run, waits until every one is published, and
// returns their commit-to-published latencies.
func (r *runner) measureLatency(ctx context.Context, c *caseDB, f *fleet, name string) (*Latency, error) {
	after, err := c.maxID(ctx)
	if err != nil {
		return nil, err
	}
	if err := installClaimClock(ctx, c); err != nil {
		return nil, err
	}
	total := int(math.Round(r.cfg.Rate * r.cfg.LatencyDuration.Seconds()))
	r.log("%s: offering %.0f events/s for %s (%d events)", name, r.cfg.Rate, r.cfg.LatencyDuration, total)
	cpu0, err := r.snapCPU(f)
	if err != nil {
		return nil, err
	}
	achieved, err := r.offer(ctx, c, total)
	if err != nil {
		return nil, err
	}
	if err := r.awaitDrained(ctx, c, f, after); err != nil {
		return nil, err
	}
	cpu1, err := r.snapCPU(f)
	if err != nil {
		return nil, err
	}
	sp, err := latencies(ctx, c, after)
	if err != nil {
		return nil, err
	}
	if len(sp.total) != total {
		return nil, fmt.Errorf("%s: %d of the %d events offered were published", name, len(sp.total), total)
	}
	l := sp.summarize()
	l.Offered, l.Achieved = r.cfg.Rate, achieved
	l.MachineBusy, l.OursBusy = cpu0.busyUntil(cpu1)
	r.log("%s: p50 %s p99 %s max %s; wait for claim p50 %s p99 %s, claim to published p50 %s p99 %s; %d of %d seconds had an event over %s; cores busy: machine %.2f, ours %.2f (offered %.0f/s, committed %.0f/s)",
		name, l.P50, l.P99, l.Max, l.WaitP50, l.WaitP99, l.WorkP50, l.WorkP99, l.SlowSeconds, l.Seconds, latencyGoal,
		l.MachineBusy, l.OursBusy, l.Offered, l.Achieved)
	return l, nil
}

// offer commits total events at cfg.Rate, spread over enough producers
// that each can keep its share, and returns the rate achieved.
func (r *runner) offer(ctx context.Context, c *caseDB, total int) (float64, error) {
	k := max(1, int(math.Ceil(r.cfg.Rate/perProducerRate)))
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, k)
	for i := 0; i < k; i++ {
		n := total / k
		if i < total%k {
			n++
		}
		p, err := c.producer(fmt.Sprintf("lat%d", i), r.cfg.Rate/float64(k))
		if err != nil {
			return 0, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.Produce(ctx, n)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, fmt.Errorf("offer load: %w", err)
	}
	return float64(total) / time.Since(start).Seconds(), nil
}

// awaitDrained waits until no event after id after is unpublished.
func (r *runner) awaitDrained(ctx context.Context, c *caseDB, f *fleet, after int64) error {
	deadline := time.Now().Add(drainTimeout)
	for {
		var open int
		err := c.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM outbox_events WHERE id > ? AND status <> 'published'", after).Scan(&open)
		if err != nil {
			return fmt.Errorf("count unpublished events: %w", err)
		}
		if open == 0 {
			return nil
		}
		if err := f.alive(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d events still unpublished %s after the load ended", open, drainTimeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// installClaimClock adds a column and a trigger that record when each
// event is claimed (its move to processing), on the database clock. The
// trigger only sets a column of the row being updated: no extra write.
func installClaimClock(ctx context.Context, c *caseDB) error {
	for _, stmt := range []string{
		"ALTER TABLE outbox_events ADD COLUMN bench_claimed_at DATETIME(6) NULL",
		`CREATE TRIGGER bench_claim_clock BEFORE UPDATE ON outbox_events FOR EACH ROW
		 SET NEW.bench_claimed_at = IF(NEW.status = 'processing' AND OLD.status <> 'processing', NOW(6), OLD.bench_claimed_at)`,
	} {
		if _, err := c.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("install the claim clock: %w", err)
		}
	}
	return nil
}

// spans are the latencies of a phase, their two halves, and the second
// (unix time) each event was committed in.
type spans struct {
	total, wait, work []time.Duration
	second            []int64
}

// latencies reads, for every event after id after, published_at -
// created_at and its split at the claim.
func latencies(ctx context.Context, c *caseDB, after int64) (spans, error) {
	var sp spans
	rows, err := c.db.QueryContext(ctx, `SELECT TIMESTAMPDIFF(MICROSECOND, created_at, published_at),
		TIMESTAMPDIFF(MICROSECOND, created_at, bench_claimed_at), TIMESTAMPDIFF(MICROSECOND, bench_claimed_at, published_at),
		FLOOR(UNIX_TIMESTAMP(created_at))
		FROM outbox_events WHERE id > ? AND status = 'published' AND bench_claimed_at IS NOT NULL`, after)
	if err != nil {
		return sp, fmt.Errorf("read latencies: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var total, wait, work, second int64
		if err := rows.Scan(&total, &wait, &work, &second); err != nil {
			return sp, fmt.Errorf("read latencies: %w", err)
		}
		sp.total = append(sp.total, time.Duration(total)*time.Microsecond)
		sp.wait = append(sp.wait, time.Duration(wait)*time.Microsecond)
		sp.work = append(sp.work, time.Duration(work)*time.Microsecond)
		sp.second = append(sp.second, second)
	}
	if err := rows.Err(); err != nil {
		return sp, fmt.Errorf("read latencies: %w", err)
	}
	return sp, nil
}

// summarize returns the percentiles (nearest rank) and the maximum; the
// spans must not be empty.
func (sp spans) summarize() *Latency {
	total, wait, work := sorted(sp.total), sorted(sp.wait), sorted(sp.work)
	l := &Latency{
		Events: len(total), P50: percentile(total, 0.50), P99: percentile(total, 0.99), Max: total[len(total)-1],
		WaitP50: percentile(wait, 0.50), WaitP99: percentile(wait, 0.99),
		WorkP50: percentile(work, 0.50), WorkP99: percentile(work, 0.99),
	}
	slow := map[int64]bool{}
	for i, sec := range sp.second {
		slow[sec] = slow[sec] || sp.total[i] > latencyGoal
	}
	l.Seconds = len(slow)
	for _, s := range slow {
		if s {
			l.SlowSeconds++
		}
	}
	return l
}

// cpuSnap is the machine's CPU ticks and this benchmark's CPU time (the
// instances, both servers, the harness process) at one moment.
type cpuSnap struct {
	machine machineTicks
	ours    time.Duration
	at      time.Time
}

func (r *runner) snapCPU(f *fleet) (cpuSnap, error) {
	s := cpuSnap{at: time.Now()}
	var err error
	if s.machine, err = readMachineTicks(); err != nil {
		return s, err
	}
	fl, err := f.cpu()
	if err != nil {
		return s, err
	}
	rest, err := cpuOf(r.srv.maria.Pid(), r.srv.redis.Pid(), os.Getpid())
	if err != nil {
		return s, err
	}
	s.ours = fl + rest
	return s, nil
}

// busyUntil returns the cores the machine and this benchmark kept busy
// between a and b.
func (a cpuSnap) busyUntil(b cpuSnap) (machine, ours float64) {
	wall := b.at.Sub(a.at).Seconds()
	if wall <= 0 {
		return 0, 0
	}
	return busyCores(a.machine, b.machine, runtime.NumCPU()), (b.ours - a.ours).Seconds() / wall
}

func sorted(ds []time.Duration) []time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s
}

// percentile is the nearest-rank percentile of sorted: the smallest value
// with at least q of the values at or below it.
func percentile(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
