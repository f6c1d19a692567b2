package dispatchkit

import (
	"context"
	"time"
)

// MaxIdleWait caps the wait between polls after repeated failures.
const MaxIdleWait = time.Second

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

// ShutdownContext returns the context for a dispatch loop's work: it
// outlives ctx (the stop signal) by grace, so the batch in flight when the
// stop comes can finish.
func ShutdownContext(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
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
