package localtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// SlotsEnv names the variable that sets how many end-to-end tests may run
// at once on this machine, across every test binary of a `go test` run.
const SlotsEnv = "OUTBOXCHAOS_E2E_SLOTS"

// slotPoll is how often a test waiting for a slot tries again.
const slotPoll = 100 * time.Millisecond

// EndToEnd marks t as an end-to-end test: it is skipped with -short, runs in
// parallel with its package's other end-to-end tests, and holds one of the
// machine's run slots from here until its cleanups have run (its private
// servers closed). The slots are files under the temporary directory,
// taken with flock, so the limit holds across the test binaries that `go
// test -p N` runs side by side. Their number is $OUTBOXCHAOS_E2E_SLOTS, by
// default one more than the machine's CPUs: a run spends most of its time
// waiting on its own workload's rate, its faults and its drain, so one more
// run than cores keeps the cores busy without starving any run's timing
// (leases, traps and holds are seconds long; a saturated machine stretches
// them, and a verdict must not depend on the machine's load).
//
// Call it first in the test, before opening an environment. Subtests of
// an end-to-end test share its slot and run in sequence; subtests of an
// EndToEndGroup call EndToEnd each.
func EndToEnd(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end runs are skipped with -short")
	}
	t.Parallel()
	HoldSlot(t)
}

// EndToEndGroup marks t as a group of end-to-end subtests: it is skipped
// with -short and runs in parallel, and holds no slot itself. Each subtest
// calls EndToEnd and opens its own environment (a private MariaDB and Redis
// start in well under a second), so the group's runs spread over the
// machine's slots instead of running one after another in one of them.
func EndToEndGroup(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end runs are skipped with -short")
	}
	t.Parallel()
}

// HoldSlot takes a run slot for t and gives it back when t's cleanups
// have run. EndToEnd calls it; a test that must first wait for something
// else (a lock on process-wide state) calls t.Parallel, then waits, then
// HoldSlot, so that it holds no slot while it waits.
func HoldSlot(t *testing.T) {
	t.Helper()
	n, err := slotCount()
	if err != nil {
		t.Fatal(err)
	}
	// The wait is bounded by go test's -timeout, like the test itself.
	release, err := takeSlot(context.Background(), filepath.Join(os.TempDir(), "outboxchaos-e2e-slots"), n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
}

// slotCount reads SlotsEnv, or defaults to one more than the CPUs.
func slotCount() (int, error) {
	v := os.Getenv(SlotsEnv)
	if v == "" {
		return runtime.NumCPU() + 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("localtest: %s=%q: want a whole number of end-to-end tests to run at once, 1 or more", SlotsEnv, v)
	}
	return n, nil
}

// takeSlot waits until it holds one of n slot files in dir (an exclusive
// flock on it) and returns the function that gives it back.
func takeSlot(ctx context.Context, dir string, n int) (func(), error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("localtest: run slots: %w", err)
	}
	for {
		for i := 0; i < n; i++ {
			f, err := tryLock(filepath.Join(dir, fmt.Sprintf("slot-%d", i)))
			if err != nil {
				return nil, err
			}
			if f != nil {
				return func() { _ = f.Close() }, nil // closing the file drops its lock
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("localtest: no end-to-end run slot of %d came free: %w", n, ctx.Err())
		case <-time.After(slotPoll):
		}
	}
}

// tryLock takes an exclusive lock on path without waiting: the open file
// holding it, or nil when another process (or test) holds it.
func tryLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("localtest: run slot %s: %w", path, err)
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return f, nil
	}
	_ = f.Close()
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, nil
	}
	return nil, fmt.Errorf("localtest: lock run slot %s: %w", path, err)
}
