// Package outboxteam_test is a team's own test module: it uses only
// harness/chaostest, as the README's "Test your own dispatcher" shows.
// harness/chaostest's TestUserModule builds and runs it; it is under
// testdata, so the outboxchaos module's `go test ./...` leaves it alone.
package outboxteam_test

import (
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/chaostest"
)

// The reference dispatcher keeps every invariant under poison.
func TestReference(t *testing.T) {
	chaostest.Run(t, "reference", chaostest.Scenarios("poison"), chaostest.Seed(7))
}

// A dispatcher that retries poison events as if they were transient fails
// the same scenario (I4), with its findings printed.
func TestMutant(t *testing.T) {
	chaostest.Run(t, "mutant:poison-as-transient", chaostest.Scenarios("poison"), chaostest.Seed(7))
}

// crash-points needs crash points, which a black box does not expose: the
// subtest is skipped with the reason.
func TestBlackBoxSkipsCrashPoints(t *testing.T) {
	chaostest.Run(t, "reference+blackbox", chaostest.Scenarios("crash-points"), chaostest.Seed(7))
}

// A run longer than the test's -timeout: harness/chaostest's test gives
// a short -test.timeout and checks that the run stops in time, with its
// cleanup done.
func TestLongOutage(t *testing.T) {
	chaostest.Run(t, "reference", chaostest.Scenarios("redis-outage-30s"), chaostest.Seed(7))
}
