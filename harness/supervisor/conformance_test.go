package supervisor

import (
	"bytes"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/contract"

	"github.com/outboxchaos/outboxchaos/reference/failpoint"
)

// The reference dispatcher's own parser accepts what FailpointEnv writes,
// and its crash line is the one the supervisor spots.
func TestReferenceParsesFailpointEnv(t *testing.T) {
	var names []string
	for _, n := range failpoint.Names() {
		names = append(names, string(n))
	}
	require.Equal(t, contract.CrashPointNames(), names)

	v, err := FailpointEnv(
		Crash(contract.AfterEnqueue).OnNth(2),
		SleepAt(contract.AfterClaim, time.Millisecond).WithProb(1),
		Failpoint{Name: contract.BeforeFinalizeCommit, Action: ActionCrash, Trigger: TriggerAlways},
		SleepAt(contract.AfterFinalizeCommit, 90*time.Second).WithProb(0.00001),
	)
	require.NoError(t, err)
	set, err := failpoint.Parse(v, 1)
	require.NoError(t, err, v)
	var enabled []string
	for _, n := range set.Enabled() {
		enabled = append(enabled, string(n))
	}
	want := contract.CrashPointNames()
	sort.Strings(want)
	require.Equal(t, want, enabled)

	var stderr bytes.Buffer
	var kills int
	set.WithRuntime(failpoint.Runtime{Stderr: &stderr, Kill: func() { kills++ }, Sleep: func(time.Duration) {}})
	require.False(t, set.Hit(failpoint.AfterEnqueue), "nth:2 does not fire on the first hit")
	require.True(t, set.Hit(failpoint.AfterEnqueue))
	require.Equal(t, 1, kills)
	point, ok := parseCrashLine(stderr.String())
	require.True(t, ok, "crash line %q", stderr.String())
	require.Equal(t, string(contract.AfterEnqueue), point)
}
