package runner

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/clockskew"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// A scenario that needs a clock skew or an ordering promise is skipped,
// with the reason, for an adapter that declares neither.
func TestMissingClockAndOrdering(t *testing.T) {
	skew := Scenario{Needs: []Needs{NeedClockSkew}}
	require.Contains(t, Missing(skew, supervisor.Capabilities{}, nil), "capabilities.clock: none")
	require.Empty(t, Missing(skew, supervisor.Capabilities{Clock: clockskew.GoOverlay}, nil))
	if _, err := clockskew.Libfaketime(); err != nil {
		require.Contains(t, Missing(skew, supervisor.Capabilities{Clock: clockskew.Faketime}, nil), "apt-get install faketime")
	} else {
		require.Empty(t, Missing(skew, supervisor.Capabilities{Clock: clockskew.Faketime}, nil))
	}
	order := Scenario{Needs: []Needs{NeedOrdering}}
	require.Contains(t, Missing(order, supervisor.Capabilities{}, nil), "does not declare ordering: per-aggregate")
	require.Empty(t, Missing(order, supervisor.Capabilities{Ordering: supervisor.OrderingPerAggregate}, nil))
}

func TestScenarioAggregatesValidated(t *testing.T) {
	s := Scenario{Name: "ordering", Description: "d", Instances: 1, Events: 10, Tuning: DefaultTuning(), Aggregates: 11}
	require.ErrorContains(t, s.Validate(), "aggregates 11: want 0 (none) up to the 10 events")
	s.Aggregates = 5
	require.NoError(t, s.Validate())
}
