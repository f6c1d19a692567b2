package dialects_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/outboxchaos/outboxchaos/adapters/manifest"
	"github.com/outboxchaos/outboxchaos/adapters/mutants"
	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/reports"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

// goDialects are the Go dialects of this directory (doc.go's table).
var goDialects = []string{"go-reason", "go-nolock", "go-cas", "go-single"}

// nodeDialects are the Node.js dialects (doc.go's table); their tests skip
// when node, npm or the dialect's node_modules (`make node-deps`) are missing.
var nodeDialects = []string{"node-owner-round", "node-attempts-at-failure", "node-dedupe"}

type sized struct {
	scenario string
	events   int
}

// subset is what `make test` runs of the catalog for every Go dialect, with
// fewer events than `make chaos`; the whole catalog is `make chaos
// ADAPTER=adapters/dialects/<name>/manifest.yaml` (`make chaos-dialects`
// runs it for every dialect on three seeds).
var subset = []sized{{"baseline", 200}, {"crash-window", 400}, {"lease-expiry", 300}, {"graceful-shutdown", 300}}

// nodeSubset is the smaller subset of a Node.js dialect, one scenario for
// its convention (each instance is a Node process, slower to start).
var nodeSubset = map[string][]sized{
	// Sized so that the faults land in seed 1 (a run whose faults did not
	// land is unknown, and proves little): lease-expiry's random kills
	// rarely find node-owner-round holding a claim, crash-window's trap
	// kills owners after their add, leaving their claims to recover.
	"node-owner-round":         {{"crash-window", 800}},   // recovery by the owner's own next round
	"node-attempts-at-failure": {{"queue-error", 300}},    // I6 and I7 judged from the history, attempts counted at failure
	"node-dedupe":              {{"dedupe-horizon", 800}}, // BullMQ's own deduplication after removeOnComplete
}

// subsetOf is the subset a dialect runs.
func subsetOf(d string) []sized {
	if isNode(d) {
		return nodeSubset[d]
	}
	return subset
}

func isNode(d string) bool { return strings.HasPrefix(d, "node-") }

// needNode skips t when dialect d is a Node.js dialect that cannot run here.
func needNode(t *testing.T, d string) {
	t.Helper()
	if !isNode(d) {
		return
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is a Node.js dialect and %s is not on PATH (apt-get install nodejs npm, then make node-deps)", d, tool)
		}
	}
	if _, err := os.Stat(filepath.Join(d, "node_modules")); err != nil {
		t.Skipf("%s has no node_modules: run `make node-deps` (npm ci in adapters/dialects/%s)", d, d)
	}
}

// shapedDialects are the dialects of issue 22 whose outbox has a shape of
// its own (not schema: reference), each tested by its own file
// (<name>_test.go), with how many planted bugs it has.
var shapedDialects = map[string]int{timestamps: len(timestampsPlants), goCursor: len(goCursorPlants), nodeDelete: len(nodeDeletePlants),
	intStatus: len(intStatusPlants), nodePGTimes: len(nodePGTimesPlants), pgSkip: len(pgSkipPlants), goPGCursor: len(goPGCursorPlants)}

// allDialects are the Go and then the Node.js dialects.
func allDialects() []string { return append(append([]string{}, goDialects...), nodeDialects...) }

// notInSubset leaves out a scenario that proves nothing for a dialect, with
// the reason (doc.go, "Known misses").
var notInSubset = map[string]string{
	"go-nolock/crash-window":      "go-nolock's convention is its releases: graceful-shutdown runs instead",
	"go-reason/graceful-shutdown": "not go-reason's convention; covered by the sweep in doc.go",
	"go-cas/graceful-shutdown":    "not go-cas's convention; covered by the sweep in doc.go",
	"go-single/graceful-shutdown": "not go-single's convention; covered by the sweep in doc.go",
}

// plants are the bugs planted in the dialects (each dialect's doc.go), each
// with the scenario that must catch it and the invariant that must fail.
// A plant whose repeats names a mutant is the same bug as that mutant,
// which package scenarios catches as a black box in the same scenario
// (TestBlackBoxMutantsNeverPass) by the same invariant
// (TestLongPlantsRepeatABlackBoxMutant): make test-long runs it; make test
// runs the plants that no black-box mutant repeats, and one of each
// language.
var plants = []struct {
	dialect, bug, scenario, invariant string
	events                            int
	leaveRows                         bool   // the consumer leaves the jobs rows created (see below)
	repeats                           string // the mutant whose black-box run catches the same bug
}{
	{"go-reason", "no-backoff", "queue-error", "I6", 200, false, names.BugNoBackoff},
	{"go-reason", "poison-as-transient", "poison", "I4", 200, false, ""},
	// The retry after a lost reply finds the job already past created when
	// the consumer ran it first, and closes the event with no re-add (the
	// contract's rule): only with the rows left alone, as crash-window
	// leaves them, does every retry reach the add.
	{"go-reason", "no-jobid", "lost-reply-redis", "I1", 400, true, ""},
	{"go-nolock", "mark-before-enqueue", "redis-outage", "I3", 200, false, ""},
	{"go-cas", "unfenced-finalize", "zombie", "I5", 400, false, names.BugUnfencedFinalize},
	{"go-cas", "select-then-update", "contention", "I5", 1000, false, ""},
	{"go-cas", "unbounded-attempts", "redis-outage", "I7", 200, false, ""},
	{"go-cas", "no-lease-recovery", "crash-window", "I8", 400, false, ""},
	{"go-single", "re-add-dispatched", "poison", "I1", 200, false, ""},
	{"go-single", "push-without-check", "crash-window", "I1", 400, false, names.BugPushWithoutCheck},
	{"go-single", "overwrite-job-data", "crash-window", "I9", 400, false, names.BugOverwriteJobData},
	{"go-single", "published-not-queued", "crash-window", "I3", 400, false, names.BugPublishedNotQueued},
	{"go-single", "global-lock", "zombie", "I5", 400, false, names.BugGlobalLock},
	// A Node instance waits for Redis before its first claim, so the
	// outage at the start of redis-outage may find it claiming nothing:
	// queue-error keeps one queue failing for longer than the retry budget.
	{"node-owner-round", "no-backoff", "queue-error", "I6", 200, false, ""},
	{"node-owner-round", "no-job-id", "crash-window", "I1", 300, false, names.BugNoJobID},
	{"node-attempts-at-failure", "recovery-overwrites-finalized", "zombie", "I5", 400, false, names.BugRecoveryOverwritesFinalized},
	{"node-dedupe", "short-dedupe-ttl", "dedupe-horizon", "I1", 400, false, ""},
}

// TestLongPlantsRepeatABlackBoxMutant holds make test-long's plants to
// their reason: the mutant each names exists, has a black-box run, and
// that run is in the plant's scenario and judged by the plant's invariant,
// so make test still catches the bug as a black box there.
func TestLongPlantsRepeatABlackBoxMutant(t *testing.T) {
	for _, p := range plants {
		if p.repeats == "" {
			continue
		}
		m, err := mutants.Lookup(p.repeats)
		require.NoError(t, err, "%s/%s", p.dialect, p.bug)
		bb, ok := m.BlackBoxScenario()
		require.True(t, ok, "%s/%s repeats mutant %s, which has no black-box run", p.dialect, p.bug, m.Name)
		require.Equal(t, p.scenario, bb, "%s/%s: mutant %s runs as a black box in another scenario", p.dialect, p.bug, m.Name)
		require.Equal(t, p.invariant, m.Invariant, "%s/%s: mutant %s is judged by another invariant", p.dialect, p.bug, m.Name)
	}
}

// clockPlants are the planted bugs clockskew_test.go runs, through
// libfaketime, outside the plants table.
var clockPlants = []string{"node-owner-round/manifest-app-clock-lease.yaml"}

// knownMisses are planted bugs the harness does not catch yet, each with
// what the runs showed (doc.go, "Known misses"); they are skipped with that
// reason, so a miss is reported, never counted as caught.
var knownMisses = map[string]string{}

func load(t *testing.T, path string) *manifest.Adapter {
	t.Helper()
	a, err := manifest.Load(path)
	require.NoError(t, err)
	return a
}

// Every manifest of the directory is some dialect's or plant's, and so
// tested: the reference-schema ones here, a shaped dialect's in its file.
func TestEveryManifestIsTested(t *testing.T) {
	all, err := filepath.Glob("*/manifest*.yaml")
	require.NoError(t, err)
	n := len(goDialects) + len(nodeDialects) + len(plants) + len(clockPlants) + len(turnsManifests)
	for _, bugs := range shapedDialects {
		n += 1 + bugs
	}
	require.Len(t, all, n, "a manifest no test table lists")
}

func TestManifestsLoadAsBlackBoxes(t *testing.T) {
	// The dialects of the reference schema only: a dialect of another
	// outbox shape has its own test (go-cursor_test.go).
	var paths []string
	for _, d := range allDialects() {
		ps, err := filepath.Glob(filepath.Join(d, "manifest*.yaml"))
		require.NoError(t, err)
		paths = append(paths, ps...)
	}
	require.Len(t, paths, len(goDialects)+len(nodeDialects)+len(plants)+len(clockPlants))
	for _, p := range paths {
		a := load(t, p)
		require.Equal(t, schema.Reference(), a.Schema(), p)
		c := a.Capabilities()
		require.False(t, c.CrashPoints, "%s: a dialect is a black box, no crash points", p)
		require.True(t, c.GracefulTerm, p)
	}
	for _, p := range plants {
		a := load(t, filepath.Join(p.dialect, "manifest-"+p.bug+".yaml"))
		require.Equal(t, p.dialect+"-"+p.bug, a.Name())
	}
}

// TestPlantsDifferOnlyByTheirBug: a planted manifest is its dialect's
// manifest with another name and OUTBOXCHAOS_PLANT set, nothing else. A
// plant that dropped a declaration of its dialect's (conventions, clock)
// would be judged as another dispatcher: the returns the declaration tells
// apart become unknown, and the plant's verdict says less than it should.
func TestPlantsDifferOnlyByTheirBug(t *testing.T) {
	paths, err := filepath.Glob("*/manifest-*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		dialect := filepath.Dir(p)
		bug := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "manifest-"), ".yaml")
		want, got := readYAML(t, filepath.Join(dialect, "manifest.yaml")), readYAML(t, p)
		require.Equal(t, dialect+"-"+bug, got["name"], p)
		start, _ := got["start"].(map[string]any)
		env, _ := start["env"].(map[string]any)
		require.Equal(t, bug, env["OUTBOXCHAOS_PLANT"], "%s: start.env.OUTBOXCHAOS_PLANT", p)
		delete(env, "OUTBOXCHAOS_PLANT")
		if len(env) == 0 {
			delete(start, "env")
		}
		delete(got, "name")
		delete(want, "name")
		require.Equal(t, want, got, "%s differs from %s/manifest.yaml by more than its name and its bug", p, dialect)
	}
}

// readYAML reads a manifest as plain YAML values.
func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, yaml.Unmarshal(b, &out), path)
	return out
}

// TestConfigErrorsAreOneLine builds each dialect and starts it with a bad
// value: it must exit 2 at once with one line naming the variable.
func TestConfigErrorsAreOneLine(t *testing.T) {
	good := []string{"OUTBOX_MYSQL_DSN=root:@tcp(127.0.0.1:1)/outbox", "OUTBOX_MYSQL_URL=mysql://root:@127.0.0.1:1/outbox",
		"OUTBOX_REDIS_URL=redis://127.0.0.1:1/0", "OUTBOX_QUEUES=ai-default", "OUTBOX_INSTANCE_ID=d1"}
	bad := map[string]string{
		"OUTBOX_LEASE=forever":       "OUTBOX_LEASE",
		"OUTBOX_MAX_ATTEMPTS=-1":     "OUTBOX_MAX_ATTEMPTS",
		"OUTBOXCHAOS_PLANT=no-such":  "OUTBOXCHAOS_PLANT",
		"OUTBOX_POLL_INTERVAL=often": "OUTBOX_POLL_INTERVAL",
	}
	bin := t.TempDir()
	for _, d := range allDialects() {
		t.Run(d, func(t *testing.T) {
			needNode(t, d)
			requireOneLineErrors(t, bin, d, good, bad)
		})
	}
}

// command starts dialect d: its Go binary, built into bin once, or node.
func command(t *testing.T, bin, d string) *exec.Cmd {
	t.Helper()
	if isNode(d) {
		cmd := exec.Command("node", "main.js")
		cmd.Dir = d
		return cmd
	}
	exe := filepath.Join(bin, d)
	if _, err := os.Stat(exe); err != nil {
		out, err := exec.Command("go", "build", "-o", exe, "./"+d).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	return exec.Command(exe)
}

func requireOneLineErrors(t *testing.T, bin, d string, good []string, bad map[string]string) {
	t.Helper()
	for setting, name := range bad {
		cmd := command(t, bin, d)
		cmd.Env = append(append([]string{"PATH=" + os.Getenv("PATH")}, good...), setting)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s with %s", d, setting)
		require.Equal(t, 2, exit.ExitCode(), "%s with %s", d, setting)
		msg := strings.TrimSuffix(stderr.String(), "\n")
		require.NotContains(t, msg, "\n", "%s with %s: one line", d, setting)
		require.Contains(t, msg, name, "%s with %s", d, setting)
		require.True(t, strings.HasPrefix(msg, d+": "), "%s: the line names the dispatcher: %q", d, msg)
	}
}

// TestDialectsKeepTheContract runs every dialect through its subset as a
// black box and requires every invariant to hold: pass, or not exercised
// when the run gave it nothing to check.
func TestDialectsKeepTheContract(t *testing.T) {
	localtest.EndToEndGroup(t)
	for _, d := range allDialects() {
		t.Run(d, func(t *testing.T) {
			localtest.EndToEndGroup(t)
			needNode(t, d)
			for _, sc := range subsetOf(d) {
				t.Run(sc.scenario, func(t *testing.T) {
					if why, ok := notInSubset[d+"/"+sc.scenario]; ok {
						t.Skip(why)
					}
					e := openEnv(t)
					// An adapter and a work directory per run: the runs
					// are side by side, and Prepare keeps the work
					// directory it built in.
					a := load(t, filepath.Join(d, "manifest.yaml"))
					o := run(t, e, a, t.TempDir(), sc.scenario, sc.events)
					requireAllHold(t, o)
				})
			}
		})
	}
}

// TestPlantedBugsAreCaught runs each planted bug in its scenario: its
// invariant must fail, or the run must be unknown because a fault that
// exposes it did not land (its landing list says which); the run never
// passes.
func TestPlantedBugsAreCaught(t *testing.T) {
	localtest.EndToEndGroup(t)
	for _, p := range plants {
		t.Run(p.dialect+"/"+p.bug, func(t *testing.T) {
			if p.repeats != "" {
				localtest.Long(t, "a black-box mutant with the same bug is caught in the same scenario in make test")
			}
			needNode(t, p.dialect)
			if why, ok := knownMisses[p.dialect+"/"+p.bug]; ok {
				t.Skipf("known miss of the harness (%s in %s): %s", p.invariant, p.scenario, why)
			}
			e := openEnv(t)
			a := load(t, filepath.Join(p.dialect, "manifest-"+p.bug+".yaml"))
			o := runWith(t, e, a, t.TempDir(), p.scenario, p.events, func(s *runner.Scenario) {
				if p.leaveRows {
					s.ConsumerLeavesRows = true
					s.Params["consumer_leaves_rows"] = "true"
				}
			})
			r := result(t, o, p.invariant)
			require.NotEqual(t, check.Pass, o.Verdict, "%s passed %s: %s is %s: %s", p.bug, p.scenario, p.invariant, r.Verdict, r.Reason)
			if r.Verdict != check.Fail {
				// Not caught: acceptable only when the run says why, a
				// fault that did not land, and the run is unknown for it.
				missed := check.Unlanded(o.Landing)
				require.NotEmpty(t, missed, "%s: %s is %s but every fault landed: %s", p.bug, p.invariant, r.Verdict, r.Reason)
				require.Equal(t, check.Unknown, o.Verdict)
				t.Logf("%s: %s %s, the fault did not land: %v", p.bug, p.invariant, r.Verdict, missed)
				return
			}
			require.NotEmpty(t, r.Violations)
			require.NotEqual(t, check.Pass, o.Verdict)
			t.Logf("%s caught by %s: %s", p.bug, p.invariant, r.Violations[0].Summary)
		})
	}
}

// openEnv opens one private local environment shared by a test's runs.
// The test runs in parallel with the package's other end-to-end tests,
// holding a machine run slot (localtest.EndToEnd): call openEnv from the
// top-level test, before its subtests, or, in a test that is an
// EndToEndGroup, from each subtest.
func openEnv(t *testing.T) env.Env {
	t.Helper()
	localtest.EndToEnd(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := env.Open(ctx, env.Config{Kind: env.KindLocal})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

// run runs a catalog scenario, shortened to events, with seed 1. The run
// folder is kept under $OUTBOXCHAOS_KEEP_RUNS when that is set.
func run(t *testing.T, e env.Env, a supervisor.Adapter, work, name string, events int) runner.Outcome {
	t.Helper()
	return runWith(t, e, a, work, name, events, func(*runner.Scenario) {})
}

// runWith is run with the scenario adjusted by adjust.
func runWith(t *testing.T, e env.Env, a supervisor.Adapter, work, name string, events int, adjust func(*runner.Scenario)) runner.Outcome {
	t.Helper()
	s, err := scenarios.Get(name)
	require.NoError(t, err)
	s.Events = events
	adjust(&s)
	out := filepath.Join(t.TempDir(), "run")
	if keep := os.Getenv("OUTBOXCHAOS_KEEP_RUNS"); keep != "" {
		out = filepath.Join(keep, strings.ReplaceAll(t.Name(), "/", "_"))
	}
	start := time.Now()
	o, err := runner.Run(testCtx(t), runner.Options{
		Scenario: s, Adapter: a, Env: e, Seed: 1, Out: out, WorkDir: work, Progress: testWriter{t},
	})
	require.NoError(t, err)
	require.Empty(t, o.Skipped)
	// The runner returns the history and the results; the report is the
	// caller's to write, as the CLI and chaostest do.
	_, err = reports.WriteRunResults(o.Dir, o.History, o.Results)
	require.NoError(t, err, "write the report")
	t.Logf("%s on %s: %s in %s", name, a.Name(), o.Verdict, time.Since(start).Round(100*time.Millisecond))
	return o
}

// requireAllPass requires every invariant to pass, or to be waived by the
// scenario; an invariant in mayFail may pass or fail (a known false alarm).
// requireSubsetPasses runs dialect d's manifest.yaml through subset as a
// black box: every run passes, with every requirement landed and every
// invariant that applies holding; more, when not nil, checks what the
// dialect's shape adds.
func requireSubsetPasses(t *testing.T, d string, subset []sized, more func(*testing.T, runner.Outcome)) {
	e := openEnv(t)
	work := t.TempDir()
	a := load(t, filepath.Join(d, "manifest.yaml"))
	for _, sc := range subset {
		t.Run(sc.scenario, func(t *testing.T) {
			o := run(t, e, a, work, sc.scenario, sc.events)
			require.Equal(t, check.Pass, o.Verdict, "%s: %s %v", sc.scenario, o.Reason, o.Landing)
			requireAllHold(t, o)
			if more != nil {
				more(t, o)
			}
		})
	}
}

func requireAllHold(t *testing.T, o runner.Outcome) {
	t.Helper()
	require.Len(t, o.Results, 9)
	for _, r := range o.Results {
		if r.Waived != "" || r.Verdict == check.NotExercised || r.Verdict == check.NotApplicable {
			continue
		}
		require.Equal(t, check.Pass, r.Verdict, "%s %s: %s\n%s", r.ID, r.Name, r.Reason, firstSummary(r))
	}
}

func result(t *testing.T, o runner.Outcome, id string) check.Result {
	t.Helper()
	for _, r := range o.Results {
		if r.ID == id {
			return r
		}
	}
	require.Failf(t, "no result", "the run has no verdict for %s", id)
	return check.Result{}
}

func firstSummary(r check.Result) string {
	var out []string
	for i, v := range r.Violations {
		if i == 3 {
			break
		}
		out = append(out, v.Summary)
	}
	return strings.Join(out, "\n")
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// testWriter sends the runner's progress lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
