package examples_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/reports"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

// example is one example dispatcher, by its manifest.
type example struct {
	name     string
	manifest string
	node     bool           // needs node and the npm packages (requireNode)
	events   map[string]int // longer runs than the catalog's, by scenario
}

// examples lists the example dispatchers written apart from the
// reference: the controls of the scenarios below, as black boxes with
// their own code and conventions. The reference passes the same scenarios
// in package scenarios (TestReferenceAndBasePassTheMutantScenarios and
// TestReferenceAndBaseRideOutAMySQLRestart); its manifest is proven here
// by TestReferenceManifestBaseline. A Node.js instance boots for
// seconds before its first claim on a loaded machine, while the load starts
// at once: with the catalog's sizes the first MySQL restart can come before
// it claimed anything and the second after every event was final, so that
// nothing is in flight at either and the run is rightly unknown ("0 events
// failed or waited inside the outage"; docs/findings.md has the times seen).
// Its runs are longer, so that the load outlasts its boot and both faults.
func examples() []example {
	return []example{
		{"node-dispatcher", nodeManifest, true, map[string]int{
			"commit-order-gaps": 1200, // 6 s at 200/s
			"lock-conflicts":    1000, // 5 s at 200/s, the toxic's 0.5-5.5 s
			"mysql-restart":     1500, // 10 s at 150/s
		}},
		{"roomservice", roomManifest, false, nil},
	}
}

// TestExamplesPassTheNewScenarios runs every example through the catalog's
// commit-order-gaps, lock-conflicts and mysql-restart, at least at their
// catalog sizes (shorter runs leave too few held commits or answered
// statements to land on a loaded machine), and requires a pass: every invariant held,
// every landing requirement met (the fault did what it is for), no valid
// event failed, and in mysql-restart both restarts ran. Clock-skew has its
// own tests (clockskew_test.go).
//
// It is the test that caught the Node.js example's claim waiting on the
// producer's open transactions (its by-id statements went through the
// status index: docs/findings.md).
func TestExamplesPassTheNewScenarios(t *testing.T) {
	localtest.EndToEndGroup(t)
	for _, ex := range examples() {
		for _, name := range []string{"commit-order-gaps", "lock-conflicts", "mysql-restart"} {
			t.Run(ex.name+"/"+name, func(t *testing.T) {
				localtest.EndToEnd(t)
				if ex.node {
					requireNode(t)
				}
				started := time.Now()
				o := runSized(t, ex, name)
				got, why := verdicts(o)
				require.Equal(t, allPass(), held(got), why)
				require.Equal(t, check.Pass, o.Verdict, o.Reason)
				require.NotEmpty(t, o.Landing)
				for _, l := range o.Landing {
					require.True(t, l.Met, "%s: %s", l.Fault, l.Reason)
				}
				require.Zero(t, reports.Build(o.History, o.Results).Counts.ValidFailed, "valid events failed")
				if name == "mysql-restart" {
					require.Equal(t, 2, countFaultKind(o, "server-restart"), "both restarts ran")
				}
				t.Logf("%s passes %s in %.1f s: %s", ex.name, name, time.Since(started).Seconds(), o.Landing[0].Reason)
			})
		}
	}
}

// TestExamplesSkipOrdering: no example declares ordering: per-aggregate, so
// the ordering scenario is skipped for each, with the reason, and never run
// or failed.
func TestExamplesSkipOrdering(t *testing.T) {
	s, err := scenarios.Get("ordering")
	require.NoError(t, err)
	e, err := env.Open(testCtx(t), env.Config{Kind: env.KindLocal})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	for _, ex := range append([]example{{"reference", referenceManifest, false, nil}}, examples()...) {
		a := load(t, ex.manifest)
		require.Empty(t, a.Capabilities().Ordering, ex.name)
		o, err := runner.Run(context.Background(), runner.Options{
			Scenario: s, Adapter: a, Env: e, Seed: 1, Out: t.TempDir(), WorkDir: t.TempDir(),
		})
		require.NoError(t, err)
		require.Equal(t, "the adapter does not declare ordering: per-aggregate (the invariant is opt-in)", o.Skipped, ex.name)
		require.Equal(t, check.Unknown, o.Verdict, "a skipped run is not a pass")
		require.Empty(t, o.Results, "nothing was checked")
	}
}

// runSized runs the scenario against the example with the example's event
// count for it, else the catalog's, each adjust applied after.
func runSized(t *testing.T, ex example, name string, adjust ...func(*runner.Scenario)) runner.Outcome {
	t.Helper()
	events, ok := ex.events[name]
	if !ok {
		s, err := scenarios.Get(name)
		require.NoError(t, err)
		events = s.Events
	}
	return runScenarioWith(t, load(t, ex.manifest), name, events, func(s *runner.Scenario) {
		for _, f := range adjust {
			f(s)
		}
	})
}

// countFaultKind counts the run's applied faults of kind.
func countFaultKind(o runner.Outcome, kind string) int {
	n := 0
	for _, f := range o.History.Faults {
		if f.Kind == kind {
			n++
		}
	}
	return n
}
