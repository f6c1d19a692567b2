package dispatchkit

import (
	"context"
	"time"
)

// MaxIdleWait caps the wait between polls after repeated failures.
const MaxIdleWait = time.Second

// Loop is a dispatcher's poll loop: how often it polls and how long the
// batch in flight may outlive a stop.
type Loop struct {
	Interval time.Duration // the poll interval
	Grace    time.Duration // the shutdown timeout: how long work outlives the stop
	// FromStart paces polls one Interval apart from start to start, so the
	// time a poll took counts and an event waits at most one Interval for a
	// claim. Without it the loop waits a whole Interval after each poll.
	FromStart bool
}

// Poll is one step of a Loop. work is the context for its operations: it
// outlives the stop by the Loop's Grace, so a batch claimed before the stop
// can finish. again asks for the next poll at once (a full batch: more may be
// due); err counts as a failed poll.
type Poll func(work context.Context) (again bool, err error)

// Run polls until stop is done and returns once the poll in flight has
// returned. After a poll that asked for no other at once it waits the
// interval; after a failed one it waits IdleWait, doubling with each
// consecutive failure. A stop ends any wait at once.
func (l Loop) Run(stop context.Context, poll Poll) {
	work, cancel := shutdownContext(stop, l.Grace)
	defer cancel()
	failures := 0
	for stop.Err() == nil {
		began := time.Now()
		again, err := poll(work)
		switch {
		case err != nil:
			failures++
			Wait(stop, IdleWait(l.Interval, failures))
		case again:
			failures = 0
		case l.FromStart:
			failures = 0
			Wait(stop, l.Interval-time.Since(began))
		default:
			failures = 0
			Wait(stop, l.Interval)
		}
	}
}

// IdleWait is the pause before the next poll: the poll interval, doubled for
// each consecutive failed poll up to MaxIdleWait (or the interval, if
// longer).
func IdleWait(interval time.Duration, failures int) time.Duration {
	d := interval
	for i := 0; i < failures && d < MaxIdleWait; i++ {
		d *= 2
	}
	return min(d, max(interval, MaxIdleWait))
}

// Wait pauses for d (not at all when d <= 0) or until ctx is done.
func Wait(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// shutdownContext returns the context for a dispatch loop's work: it
// outlives ctx (the stop signal) by grace, so the batch in flight when the
// stop comes can finish.
func shutdownContext(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	work, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-work.Done():
			return
		case <-ctx.Done():
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-work.Done():
		}
	}()
	return work, cancel
}
