package chaostest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// errTimeout is why a Run stops ahead of the test binary's -timeout: the
// binary panics at the deadline without running cleanups, so a run must end
// early enough for its instances and servers to be stopped and its folders
// removed.
var errTimeout = errors.New("the test's -timeout is near: stopped early so that cleanup can run")

// stopper is the context every run of one Run uses. It ends when the test
// ends (t.Context), a grace period before the test binary's deadline, or on
// the first SIGINT or SIGTERM; a second signal gets Go's default behaviour.
type stopper struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func newStopper(t *testing.T) *stopper {
	ctx, cancel := context.WithCancelCause(t.Context())
	s := &stopper{ctx: ctx, cancel: cancel}
	if d, ok := t.Deadline(); ok {
		dctx, dcancel := context.WithDeadlineCause(ctx, d.Add(-cleanupGrace(time.Until(d))), errTimeout)
		s.ctx = dctx
		t.Cleanup(dcancel)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		defer signal.Stop(sig)
		select {
		case got := <-sig:
			cancel(fmt.Errorf("interrupted by %v", got))
		case <-done:
		}
	}()
	t.Cleanup(func() {
		close(done)
		cancel(nil)
	})
	return s
}

// err is why the runs must stop, or nil while they may go on.
func (s *stopper) err() error {
	if s.ctx.Err() == nil {
		return nil
	}
	return context.Cause(s.ctx)
}

// cleanupGrace is how long before the deadline the runs stop: a tenth of
// the time left, between 5 s and 30 s (killing instances and servers and
// dropping a database takes a few seconds on a loaded machine).
func cleanupGrace(left time.Duration) time.Duration {
	return min(max(left/10, 5*time.Second), 30*time.Second)
}
