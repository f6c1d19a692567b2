package examples_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/clockskew"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// TestNodeDispatcherClockSkew runs clock-skew against the Node.js example
// through libfaketime (capabilities.clock: faketime): d2 runs 10 s behind
// the database, its claims are counted (the fault landed), and the
// dispatcher, whose leases are NOW(6) + lease, keeps every invariant.
func TestNodeDispatcherClockSkew(t *testing.T) {
	localtest.EndToEnd(t)
	requireNode(t)
	if _, err := clockskew.Libfaketime(); err != nil {
		t.Skipf("%v: the clock-skew run of the Node.js example needs it", err)
	}
	// 1,000 events (10 s): the skewed instance is a Node process restarted
	// under libfaketime, which boots for seconds on a loaded machine; with
	// 400 it once claimed 1 of the 5 the landing needs before the load ended.
	o := runScenario(t, load(t, nodeManifest), "clock-skew", 1000)
	got, why := verdicts(o)
	require.Equal(t, allPass(), held(got), why)
	require.Equal(t, check.Pass, o.Verdict, o.Reason)
	require.NotEmpty(t, o.Landing)
	require.True(t, o.Landing[0].Met, o.Landing[0].Reason)
}

// TestRoomDispatcherClockSkew is the same run for the Go example, built by
// its manifest's go build step with the time.Now overlay (clock:
// go-overlay, GOFLAGS).
func TestRoomDispatcherClockSkew(t *testing.T) {
	localtest.EndToEnd(t)
	o := runScenario(t, load(t, roomManifest), "clock-skew", 400)
	got, why := verdicts(o)
	require.Equal(t, allPass(), held(got), why)
	require.Equal(t, check.Pass, o.Verdict, o.Reason)
	require.True(t, o.Landing[0].Met, o.Landing[0].Reason)
}
