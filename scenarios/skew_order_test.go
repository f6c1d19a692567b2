package scenarios_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

// clock-skew and ordering say what they need, exercise and must land.
func TestClockSkewAndOrderingDefinitions(t *testing.T) {
	s := catalogScenario(t, "clock-skew")
	require.Equal(t, []runner.Needs{runner.NeedClockSkew}, s.Needs)
	require.Equal(t, []string{"I5"}, s.Exercises)
	require.Equal(t, []history.Requirement{{Fault: history.LandClockSkew, AtLeast: 5}}, s.Landing)
	skew, err := time.ParseDuration(s.Params["skew"])
	require.NoError(t, err)
	require.Greater(t, -skew, s.Tuning.Lease.D(), "the skew must be larger than the lease")

	s, err = scenarios.Get("ordering")
	require.NoError(t, err)
	require.Equal(t, []runner.Needs{runner.NeedOrdering}, s.Needs)
	require.Equal(t, []string{"I10"}, s.Exercises)
	require.Equal(t, 40, s.Aggregates)
	require.GreaterOrEqual(t, s.Events/s.Aggregates, 2, "several events per aggregate")
	require.Contains(t, s.Landing, history.Requirement{Fault: history.LandOrderRetry, AtLeast: 3})
}
