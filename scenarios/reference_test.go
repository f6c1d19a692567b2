package scenarios_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/reports"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

// endToEnd skips t under -short, else runs it in parallel holding a
// machine run slot (localtest.EndToEnd) and opens the private local environment
// for its runs.
func endToEnd(t *testing.T) env.Env {
	t.Helper()
	localtest.EndToEnd(t)
	return openLocal(t)
}

// endToEndFor is endToEnd for adapter a: with a Redis replica when a
// declares durability: wait, as the CLI and chaostest open it.
func endToEndFor(t *testing.T, a supervisor.Adapter) env.Env {
	t.Helper()
	localtest.EndToEnd(t)
	return openLocalWith(t, a.Capabilities().Durability == supervisor.DurabilityWait)
}

// rapidFlags is held by the tests that set rapid's flags, which are the
// process's: they run in parallel with the other end-to-end tests, and one
// at a time among themselves.
var rapidFlags sync.Mutex

// endToEndRapid is endToEnd for a test that sets rapid's flags: it waits
// for rapidFlags before it takes a run slot, and holds it to its end.
func endToEndRapid(t *testing.T) env.Env {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end runs are skipped with -short")
	}
	t.Parallel()
	rapidFlags.Lock()
	t.Cleanup(rapidFlags.Unlock)
	localtest.HoldSlot(t)
	return openLocal(t)
}

// catalogScenario is the catalog's scenario of that name.
func catalogScenario(t *testing.T, name string) runner.Scenario {
	t.Helper()
	s, err := scenarios.Get(name)
	require.NoError(t, err)
	return s
}

// openLocal starts private servers for one test; they go at cleanup.
func openLocal(t *testing.T) env.Env {
	t.Helper()
	return openLocalWith(t, false)
}

// openLocalWith is openLocal, with a Redis replica if replica.
func openLocalWith(t *testing.T, replica bool) env.Env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := env.Open(ctx, env.Config{Kind: env.KindLocal, RedisPersistence: true, RedisReplica: replica})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

// runScenario runs s against adapter a and returns the outcome; the run
// folder is kept under OUTBOXCHAOS_ARTIFACTS when set, for CI to collect.
func runScenario(t *testing.T, e env.Env, s runner.Scenario, a runner.Options) runner.Outcome {
	t.Helper()
	out := t.TempDir()
	if dir := os.Getenv("OUTBOXCHAOS_ARTIFACTS"); dir != "" {
		out = filepath.Join(dir, t.Name())
	}
	a.Scenario, a.Env, a.Out, a.WorkDir = s, e, out, filepath.Join(t.TempDir(), "work")
	if a.Seed == 0 {
		a.Seed = 7
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	o, err := runner.Run(ctx, a)
	require.NoError(t, err)
	if o.Skipped == "" {
		// The runner returns the history and the results; the report is
		// the caller's to write, as the CLI and chaostest do.
		_, err = reports.WriteRunResults(o.Dir, o.History, o.Results)
		require.NoError(t, err, "write the report")
	}
	return o
}

func requireAllPass(t *testing.T, o runner.Outcome) {
	t.Helper()
	require.Empty(t, o.Skipped)
	for _, r := range o.Results {
		if r.Waived != "" || r.Verdict == check.NotExercised {
			continue // o.Verdict holds the scenario to what it exercises
		}
		msg := r.Reason
		if len(r.Violations) > 0 {
			msg = r.Violations[0].Summary
		}
		require.Equal(t, check.Pass, r.Verdict, "%s %s: %s (run folder %s)", r.ID, r.Name, msg, o.Dir)
	}
	require.Equal(t, check.Pass, o.Verdict)
}

// referencePasses runs the catalog scenario against the reference and
// requires every invariant to pass.
func referencePasses(t *testing.T, e env.Env, name string) runner.Outcome {
	t.Helper()
	o := runScenario(t, e, catalogScenario(t, name), runner.Options{Adapter: refadapter.New()})
	requireAllPass(t, o)
	return o
}

// The bar for the harness: the baseline and the seed's crash-window
// test pass against the reference through the whole runner.
func TestReferencePassesBaselineAndCrashWindow(t *testing.T) {
	e := endToEnd(t)
	for _, name := range []string{"baseline", "crash-window"} {
		t.Run(name, func(t *testing.T) {
			o := referencePasses(t, e, name)
			require.Len(t, o.Results, 9)
		})
	}
}

// The bar for outages: the reference spends no attempt while a
// dependency answers nothing, so redis-outage (whose I2 waiver is for
// dispatchers that do spend them) and mysql-outage end with every valid
// event published, each job created once, and "valid events failed: 0".
func TestReferencePublishesEveryValidEventThroughOutages(t *testing.T) {
	e := endToEnd(t)
	for _, name := range []string{"redis-outage", "mysql-outage"} {
		t.Run(name, func(t *testing.T) {
			o := referencePasses(t, e, name)
			for _, r := range o.Results {
				require.Contains(t, []check.Verdict{check.Pass, check.NotExercised}, r.Verdict,
					"%s %s holds even where waived: %s", r.ID, r.Name, r.Reason)
			}
			require.Equal(t, check.Pass, resultOf(t, o, "I2").Verdict, "I2 holds though waived: every valid event published")
			res := reports.Build(o.History, o.Results) // what results.json holds
			require.Zero(t, res.Counts.ValidFailed, "valid events failed")
			require.Equal(t, res.Counts.Valid, res.Counts.Published, "every valid event published (poison is never published)")
			require.Zero(t, res.Counts.Unfinished)
		})
	}
}
