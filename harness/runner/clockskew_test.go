package runner

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/clockskew"
	"github.com/outboxchaos/outboxchaos/harness/env"
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

// linedAdapter is capsAdapter with the command lines a manifest has.
type linedAdapter struct {
	capsAdapter
	start, build []string
}

func (a linedAdapter) CommandLines() ([]string, []string) { return a.start, a.build }

// A clock-skew skipped for lack of capabilities.clock names the line that
// would let it run, guessed from the adapter's commands; a clock declared,
// a scenario that needs none, or an adapter that cannot tell its commands
// gets none.
func TestSkippedClockSkewNamesTheClockLine(t *testing.T) {
	skew := Scenario{Name: "clock-skew", Needs: []Needs{NeedClockSkew}}
	node := linedAdapter{start: []string{"node", "dist/main.js"}}
	got := skipDeclarations(skew, node)
	require.Len(t, got, 1)
	require.Equal(t, []string{"clock-skew"}, got[0].Settles)
	require.Equal(t, "faketime", got[0].Clock.Value)
	require.Contains(t, got[0].YAML, "  clock: faketime  # GUESS: node reads the time through libc")

	gobuilt := linedAdapter{start: []string{"${WORK_DIR}/bin/relay"}, build: []string{"go", "build", "-o", "${WORK_DIR}/bin/relay", "."}}
	require.Equal(t, "go-overlay", skipDeclarations(skew, gobuilt)[0].Clock.Value)
	none := linedAdapter{capsAdapter: capsAdapter{supervisor.Capabilities{Clock: clockskew.None}}, start: []string{"node"}}
	require.Len(t, skipDeclarations(skew, none), 1, "clock: none declares no way either")

	require.Empty(t, skipDeclarations(skew, linedAdapter{capsAdapter: capsAdapter{supervisor.Capabilities{Clock: clockskew.Faketime}}, start: []string{"node"}}))
	require.Empty(t, skipDeclarations(Scenario{Name: "baseline"}, node))
	require.Empty(t, skipDeclarations(skew, capsAdapter{}))
}

// namedEnv is an environment that only has a name, and a replica when
// replica is set.
type namedEnv struct {
	env.Env
	name, replica string
}

func (e namedEnv) Name() string             { return e.name }
func (e namedEnv) RedisReplicaAddr() string { return e.replica }

// An adapter that declares durability: wait runs only where a replica can
// count its WAIT: every scenario is skipped elsewhere, with the reason.
func TestMissingReplicaForDurabilityWait(t *testing.T) {
	wait := capsAdapter{supervisor.Capabilities{Durability: supervisor.DurabilityWait}}
	why := Missing(Scenario{}, wait, namedEnv{name: "external"})
	require.Contains(t, why, "declares durability: wait")
	require.Contains(t, why, "external environment runs no Redis replica")
	require.Empty(t, Missing(Scenario{}, wait, namedEnv{name: "local", replica: "127.0.0.1:1"}))
	require.Empty(t, Missing(Scenario{}, capsAdapter{supervisor.Capabilities{}}, namedEnv{name: "external"}))
}
