package runner

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/clockskew"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// A scenario that needs a clock skew or an ordering promise is skipped,
// with the reason, for an adapter that declares neither.
func TestMissingClockAndOrdering(t *testing.T) {
	skew := Scenario{Needs: []Needs{NeedClockSkew}}
	require.Contains(t, Missing(skew, capsAdapter{supervisor.Capabilities{}}, nil), "capabilities.clock: none")
	require.Empty(t, Missing(skew, capsAdapter{supervisor.Capabilities{Clock: clockskew.GoOverlay}}, nil))
	if _, err := clockskew.Libfaketime(); err != nil {
		require.Contains(t, Missing(skew, capsAdapter{supervisor.Capabilities{Clock: clockskew.Faketime}}, nil), "apt-get install faketime")
	} else {
		require.Empty(t, Missing(skew, capsAdapter{supervisor.Capabilities{Clock: clockskew.Faketime}}, nil))
	}
	order := Scenario{Needs: []Needs{NeedOrdering}}
	require.Contains(t, Missing(order, capsAdapter{supervisor.Capabilities{}}, nil), "does not declare ordering: per-aggregate")
	require.Empty(t, Missing(order, capsAdapter{supervisor.Capabilities{Ordering: supervisor.OrderingPerAggregate}}, nil))
}

func TestScenarioAggregatesValidated(t *testing.T) {
	s := Scenario{Name: "ordering", Description: "d", Instances: 1, Events: 10, Tuning: DefaultTuning(), Aggregates: 11}
	require.ErrorContains(t, s.Validate(), "aggregates 11: want 0 (none) up to the 10 events")
	s.Aggregates = 5
	require.NoError(t, s.Validate())
}

// capsAdapter is the idle adapter with the given capabilities.
type capsAdapter struct{ caps supervisor.Capabilities }

func (capsAdapter) Name() string                            { return "caps" }
func (capsAdapter) Prepare(context.Context, string) error   { return nil }
func (capsAdapter) Schema() schema.Mapping                  { return schema.Reference() }
func (a capsAdapter) Capabilities() supervisor.Capabilities { return a.caps }
func (capsAdapter) Spec(supervisor.Instance) (supervisor.Spec, error) {
	return supervisor.Spec{Path: "sleep", Args: []string{"1"}}, nil
}
