package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/manifest"
	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/reports"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

func TestMain(m *testing.M) { localtest.Main(m) }

const (
	referenceManifest = "reference.yaml"
	nodeManifest      = "node-dispatcher/manifest.yaml"
	roomManifest      = "roomservice/manifest.yaml"
)

func load(t *testing.T, path string) *manifest.Adapter {
	t.Helper()
	a, err := manifest.Load(path)
	require.NoError(t, err)
	return a
}

func TestExampleManifestsLoad(t *testing.T) {
	ref := load(t, referenceManifest)
	require.Equal(t, "reference-manifest", ref.Name())
	builtin := refadapter.New()
	require.Equal(t, builtin.Capabilities(), ref.Capabilities(), "the same capabilities as the built-in adapter")
	require.Equal(t, builtin.Schema(), ref.Schema())

	node := load(t, nodeManifest)
	require.Equal(t, "node-dispatcher", node.Name())
	require.Equal(t, schema.Reference(), node.Schema())
	c := node.Capabilities()
	require.ElementsMatch(t, supervisor.TuningVariables(), c.Tuning)
	require.False(t, c.CrashPoints, "no crash points: it has none")
	require.True(t, c.GracefulTerm)

	room := load(t, roomManifest)
	m := room.Schema()
	require.NoError(t, m.Validate())
	require.Equal(t, "room_outbox", m.Outbox.Table)
	require.Equal(t, "room_tasks", m.Jobs.Table)
	require.Empty(t, m.Outbox.LockToken, "room-service has no fencing token")
	require.Equal(t, map[string]string{"pending": "pending", "retryable": "pending", "delivering": "processing",
		"delivered": "published", "failed": "failed"}, m.OutboxStatus)
	require.Len(t, m.DDL, 2)
	require.NotContains(t, room.Capabilities().Tuning, "OUTBOX_BACKOFF_MAX", "a fixed interval has no maximum")
}

// requireNode skips unless node and the example's npm packages are there.
func requireNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found on PATH: install Node.js 18+ to test the Node.js example dispatcher")
	}
	if _, err := os.Stat("node-dispatcher/node_modules/bullmq/package.json"); err != nil {
		t.Skip("adapters/examples/node-dispatcher/node_modules is missing: run `make node-deps` (npm ci in that directory)")
	}
}

func TestNodeDispatcherMovesEvents(t *testing.T) {
	localtest.EndToEnd(t)
	requireNode(t)
	r := newDirectRun(t, load(t, nodeManifest))
	r.start("d1", "d2")
	r.produce(200)
	r.waitFinal(2 * time.Minute)
	r.requireDispatched()
	r.termAll()
}

func TestNodeDispatcherConfigErrorIsOneLine(t *testing.T) {
	requireNode(t)
	r := newDirectRun(t, load(t, nodeManifest))
	r.env["OUTBOX_LEASE"] = "forever"
	p, err := r.sup.Start(testCtx(t), "d1", r.env)
	require.NoError(t, err)
	e, err := p.Wait(testCtx(t))
	require.NoError(t, err)
	require.Equal(t, 2, e.Code, "%s", e)
	require.Equal(t, `node-dispatcher: config: OUTBOX_LEASE="forever": not a duration (e.g. 2s or 150ms)`, e.LastStderr)
}

func TestRoomDispatcherMovesEvents(t *testing.T) {
	localtest.EndToEnd(t)
	r := newDirectRun(t, load(t, roomManifest))
	r.start("d1", "d2")
	r.produce(200)
	r.waitFinal(2 * time.Minute)
	r.requireDispatched()
	r.termAll()
}

// runScenario runs a catalog scenario, shortened to events, through the
// harness runner against a private local environment.
func runScenario(t *testing.T, a supervisor.Adapter, name string, events int) runner.Outcome {
	t.Helper()
	return runScenarioWith(t, a, name, events, func(*runner.Scenario) {})
}

// runScenarioWith is runScenario with the scenario adjusted by adjust.
func runScenarioWith(t *testing.T, a supervisor.Adapter, name string, events int, adjust func(*runner.Scenario)) runner.Outcome {
	t.Helper()
	s, err := scenarios.Get(name)
	require.NoError(t, err)
	s.Events = events
	adjust(&s)
	// A scenario that restarts servers gets Redis with its append-only
	// file, as `make chaos` runs it: redis-loses-adds turns the file off
	// for its window, and refuses a Redis that has none.
	persist := slices.Contains(s.Needs, runner.NeedServerCtl)
	replica := a.Capabilities().Durability == supervisor.DurabilityWait // its WAIT counts the replica
	e, err := env.Open(testCtx(t), env.Config{Kind: env.KindLocal, RedisPersistence: persist, RedisReplica: replica})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	out := filepath.Join(t.TempDir(), "run")
	if keep := os.Getenv("OUTBOXCHAOS_KEEP_RUNS"); keep != "" {
		out = filepath.Join(keep, strings.ReplaceAll(t.Name(), "/", "_"))
	}
	o, err := runner.Run(testCtx(t), runner.Options{
		Scenario: s, Adapter: a, Env: e, Seed: 1, Out: out, WorkDir: t.TempDir(), Progress: testWriter{t},
	})
	require.NoError(t, err)
	require.Empty(t, o.Skipped)
	// The runner returns the history and the results; the report is the
	// caller's to write, as the CLI and chaostest do.
	_, err = reports.WriteRunResults(o.Dir, o.History, o.Results)
	require.NoError(t, err, "write the report")
	return o
}

// verdicts maps invariant ids to verdicts, and lists the failures' stories.
func verdicts(o runner.Outcome) (map[string]check.Verdict, string) {
	got := map[string]check.Verdict{}
	var why []string
	for _, r := range o.Results {
		got[r.ID] = r.Verdict
		if r.Verdict != check.Pass {
			why = append(why, r.ID+" "+string(r.Verdict)+": "+r.Reason)
			for i, v := range r.Violations {
				if i < 3 {
					why = append(why, "  "+v.Summary)
				}
			}
		}
	}
	sort.Strings(why)
	return got, strings.Join(why, "\n")
}

// held reads "not exercised" as held, for comparing with allPass: these
// tests are about the invariants that fail, and the outcome's verdict
// (check.Fold) already holds a scenario to the invariants it exists to
// exercise. The verdict itself is still in why.
func held(got map[string]check.Verdict) map[string]check.Verdict {
	out := make(map[string]check.Verdict, len(got))
	for id, v := range got {
		if v == check.NotExercised {
			v = check.Pass
		}
		out[id] = v
	}
	return out
}

func allPass() map[string]check.Verdict {
	out := map[string]check.Verdict{}
	for _, id := range []string{"I1", "I2", "I3", "I4", "I5", "I6", "I7", "I8", "I9"} {
		out[id] = check.Pass
	}
	return out
}

func TestReferenceManifestBaseline(t *testing.T) {
	localtest.EndToEnd(t)
	o := runScenario(t, load(t, referenceManifest), "baseline", 300)
	got, why := verdicts(o)
	require.Equal(t, allPass(), held(got), why)
}

func TestNodeDispatcherBaseline(t *testing.T) {
	localtest.EndToEnd(t)
	requireNode(t)
	o := runScenario(t, load(t, nodeManifest), "baseline", 300)
	got, why := verdicts(o)
	require.Equal(t, allPass(), held(got), why)
}

func TestRoomDispatcherBaseline(t *testing.T) {
	localtest.EndToEnd(t)
	o := runScenario(t, load(t, roomManifest), "baseline", 300)
	got, why := verdicts(o)
	require.Equal(t, allPass(), held(got), why)
}

// outageOneByOne is redis-outage (Redis down for 6 s; max attempts 4,
// backoff 100 ms doubling to 1 s) with one event per claim, so that the
// same events fail again and again while Redis is down.
func outageOneByOne(t *testing.T, a supervisor.Adapter) runner.Outcome {
	return runScenarioWith(t, a, "redis-outage", 200, func(s *runner.Scenario) { s.Tuning.BatchSize = 1 })
}

// TestRoomDispatcherFixedIntervalBreaksBackoff: room-service retries at a
// fixed interval (the guide's V1 design), so from the third failure of an
// event on its delay is below half the growing backoff I6 asks for. That
// is the verdict, by design; everything else holds. I2 is waived by the
// scenario (events failing at max attempts during the outage are expected).
func TestRoomDispatcherFixedIntervalBreaksBackoff(t *testing.T) {
	localtest.EndToEnd(t)
	o := outageOneByOne(t, load(t, roomManifest))
	got, why := verdicts(o)
	want := allPass()
	want["I6"] = check.Fail
	want["I2"] = held(got)["I2"] // waived: either verdict
	require.Equal(t, want, held(got), why)
	require.Equal(t, check.Fail, o.Verdict)
	for _, r := range o.Results {
		switch r.ID {
		case "I2":
			require.NotEmpty(t, r.Waived)
		case "I6":
			require.NotEmpty(t, r.Violations)
			for _, v := range r.Violations {
				require.Regexp(t, `After transient failure \d+ of event \d+ .* made it available again after 100ms, less than half the expected backoff`, v.Summary)
			}
		}
	}
}

// TestNodeDispatcherBackoffGrows is the same run for the Node.js example,
// whose backoff doubles: I6 holds.
func TestNodeDispatcherBackoffGrows(t *testing.T) {
	localtest.EndToEnd(t)
	requireNode(t)
	o := outageOneByOne(t, load(t, nodeManifest))
	got, why := verdicts(o)
	require.Equal(t, check.Pass, got["I6"], why)
	for _, r := range o.Results {
		if r.ID == "I6" {
			require.Regexp(t, `^[1-9]\d* transient failures?; all backed off within bounds`, r.Reason)
		}
	}
	want := allPass()
	want["I2"] = held(got)["I2"] // waived: either verdict
	// I3 may fail, and when it does it is the Node dispatcher's own
	// behaviour, not noise: an add that reached Redis before the outage cut
	// its reply counts as not added, and if the rest of the attempts fall in
	// the outage the event ends failed while its job exists (docs/findings.md,
	// "the foreign examples through the catalog"). This test is about I6.
	want["I3"] = held(got)["I3"]
	require.Equal(t, want, held(got), why)
}

// testWriter sends the runner's progress lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestNodeDispatcherCrashWindow runs crash-window against the Node.js
// example as the black box it is: the window trap must land the planned
// kills inside add->finalize windows (the run's landing requirement), so
// that its pass means the jobId held across real crashes. A trap lands only
// while jobs are being added, and a restarted Node instance boots for
// seconds before it claims (longer on a loaded machine, with three booting
// at once): the catalog's 800 events (8 s at 100/s) can end before enough
// kills land on a loaded machine (docs/findings.md has the counts seen), so
// the run here is 1,200 events (12 s).
func TestNodeDispatcherCrashWindow(t *testing.T) {
	localtest.EndToEnd(t)
	requireNode(t)
	o := runScenario(t, load(t, nodeManifest), "crash-window", 1200)
	for _, l := range o.Landing {
		t.Logf("landing %s: %s", l.Fault, l.Reason)
	}
	got, why := verdicts(o)
	require.Equal(t, allPass(), held(got), why)
	require.Equal(t, check.Pass, o.Verdict, "every planned fault landed: %v", o.Landing)
}
