package localtest

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// leakPatience is how long goroutines on their way out (an instance's output
// reader after its exit, a connection the last test closed) get to end on a
// loaded machine before the leak check counts them.
const leakPatience = 20 * time.Second

// LeakIgnores are the goroutines no leak check counts: third-party
// background goroutines that run for the life of the process whatever the
// code under test closes. Each entry says why it may stay.
func LeakIgnores() []goleak.Option {
	return nil
}

// MainNoLeaks runs m's tests as Main does, then fails the test binary when
// a goroutine the tests started still runs (goleak.VerifyTestMain, with
// LeakIgnores and the package's own ignores, each of which must say why).
// m is a *testing.M, or a wrapper whose Run also cleans up after m.Run.
func MainNoLeaks(m goleak.TestingM, ignore ...goleak.Option) {
	opts := append(LeakIgnores(), ignore...)
	goleak.VerifyTestMain(settled{m: m, opts: opts}, opts...)
}

// settled runs the tests, closes the shared servers, and waits up to
// leakPatience for the goroutines to settle, so that the check that follows
// sees leaks, not stragglers.
type settled struct {
	m    goleak.TestingM
	opts []goleak.Option
}

func (s settled) Run() int {
	code := Run(s.m)
	if code != 0 {
		return code
	}
	if !waitSettled(s.opts, leakPatience) {
		fmt.Fprintf(os.Stderr, "localtest: goroutines still running %s after the tests:\n", leakPatience)
	}
	return code
}

// NoLeaks fails t when goroutines other than those LeakIgnores and ignore
// name still run after leakPatience (goleak.VerifyNone). Pass
// goleak.IgnoreCurrent(), taken before the code under test started, to check
// that one test's code stopped everything it started.
func NoLeaks(t testing.TB, ignore ...goleak.Option) {
	t.Helper()
	opts := append(LeakIgnores(), ignore...)
	waitSettled(opts, leakPatience)
	goleak.VerifyNone(t, opts...)
}

// waitSettled polls until goleak finds nothing or patience passes, and
// reports whether it settled.
func waitSettled(opts []goleak.Option, patience time.Duration) bool {
	deadline := time.Now().Add(patience)
	for goleak.Find(opts...) != nil {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}
