package scenarios_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/outboxchaos/outboxchaos/adapters/mutants"
	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/harness/workload"
	"github.com/outboxchaos/outboxchaos/reports"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

const (
	// propertyChecksEnv sets how many schedules the reference property
	// tries when -rapid.checks (or RAPID_CHECKS) is not given: `make
	// chaos-long` sets it high, `make test` leaves the small default.
	propertyChecksEnv     = "OUTBOXCHAOS_PROPERTY_CHECKS"
	defaultPropertyChecks = 3
	// keepFailFilesEnv keeps the fail file the mutant property writes, to
	// add it to the corpus; by default the test removes it again.
	keepFailFilesEnv = "OUTBOXCHAOS_KEEP_FAILFILES"
	// propertyRunSeed is every property run's runner seed: the workload's
	// draws and the failpoints' seeds replay with the schedule.
	propertyRunSeed = 11
	// propertyEvents and propertyBatch are the property runs' workload
	// (over at least a second) and claim batch.
	propertyEvents = 80
	propertyBatch  = 4
	// maxPropertySteps bounds a drawn schedule before Fit.
	maxPropertySteps = 6
	// The mutant the property must catch, and the rapid seed its search
	// starts from unless -rapid.seed is given. Since the menu draws the
	// round-1 steps, seed 17 first failed on a held finalize COMMIT, a
	// failure that does not come every run, and shrank no further than 4
	// steps. Seed 1 found its first failure by a SIGKILL's luck: in a CI
	// run under load none of its 8 schedules failed. A crash at a named
	// point lands only if that instance claims a batch, so seed 114 draws
	// two schedules of the 8 with a crash at after-enqueue's first hit,
	// the first of them first (4 steps), which shrinks toward the crash.
	propertyMutant   = "no-jobid"
	mutantSearchSeed = 114
	mutantChecks     = 8
	mutantShrinkTime = 90 * time.Second
	// confirmRuns is how many runs in a row a shrink candidate must fail.
	confirmRuns = 3
	// referenceTest is the test whose fail-file folder is the corpus: rapid
	// replays every fail file in it before drawing new schedules.
	referenceTest = "TestPropertyReferenceKeepsEveryInvariant"
)

// The property's world: two instances, a small mostly-valid workload (the
// schedule's produce steps replace it), the default tuning, a consumer that
// completes jobs but leaves the jobs rows alone (so a re-dispatch after a
// crash must be a no-op by its jobId alone). Batches are small and the
// workload dense enough that each poll finds a few events: both instances
// claim work whoever boots first, and a crash point's first hit falls on a
// batch with an add in it (with one event per batch, a tenth of them were
// poison events with no add, and a crash there showed nothing). A step
// aimed at one instance then lands on nearly every run, and a failure
// replays when rapid shrinks it.
func propertyBase() runner.Scenario {
	tuning := runner.DefaultTuning()
	tuning.BatchSize = propertyBatch
	return runner.Scenario{
		Name: "property", Description: "a rapid-generated fault schedule (params.schedule)",
		Instances: 2, Events: propertyEvents, Tuning: tuning,
		Mix:      workload.Mix{Valid: 90, UnknownType: 2, MissingJob: 2, QueueDenied: 2, IllegalJobID: 2, AlreadyQueued: 2},
		Consumer: true, ConsumerLeavesRows: true,
		Params: map[string]string{"instances": "2", "consumer_leaves_rows": "true"},
	}
}

var propertySpace = scenarios.Space{Slots: 2, CrashPoints: true, RestartRedis: true, RestartStore: true, SQLErrors: true, SkewClock: true, HoldCommits: true, Produce: true}

// rapidChooser lets rapid make the generator's choices, so it can shrink
// each one toward the simplest entry.
type rapidChooser struct{ t *rapid.T }

func (c rapidChooser) Choose(label string, n int) int { return rapid.IntRange(0, n-1).Draw(c.t, label) }

// scheduleGen draws up to maxPropertySteps steps as a rapid slice (rapid
// shrinks by dropping elements and lowering each step's choices), fitted
// into the schedule budget.
func scheduleGen() *rapid.Generator[scenarios.Schedule] {
	step := rapid.Custom(func(t *rapid.T) scenarios.Step { return scenarios.DrawStep(rapidChooser{t}, propertySpace) })
	return rapid.Custom(func(t *rapid.T) scenarios.Schedule {
		return scenarios.Schedule(rapid.SliceOfN(step, 1, maxPropertySteps).Draw(t, "steps")).Fit(scenarios.ScheduleBudget)
	})
}

// property is "after heal and drain, every invariant the scenario does not
// waive is pass" for one adapter, on one private environment shared by
// every check (each run makes a fresh database and flushes Redis: the reset
// between checks costs no server restart).
//
// rapid expects a property to give the same answer every time it sees the
// same input: it re-runs each failure to reproduce it, and each shrink
// candidate twice. A chaos run is not that deterministic, so the property
// keeps each schedule's verdict for the rest of the check and answers from
// it (this also makes shrinking affordable: rapid tries many bit patterns
// that decode to the same schedule, and a run each took minutes per block),
// and once a first failure is found (rapid is shrinking) a candidate
// counts as failing only when it fails confirmRuns times in a row: the
// shrinker walks only toward schedules that fail reliably, not toward one
// that failed by the luck of a SIGKILL's timing.
type property struct {
	t         *testing.T
	env       env.Env
	adapter   supervisor.Adapter
	work      string
	runs      int
	seen      map[string]verdict
	firstFail scenarios.Schedule
	lastFail  scenarios.Schedule
}

// verdict is what one schedule did: failed or not, and the lines that say
// how (run folder, invariants and their first violations).
type verdict struct {
	failed bool
	lines  []string
}

func newProperty(t *testing.T, e env.Env, a supervisor.Adapter, work string) *property {
	return &property{t: t, env: e, adapter: a, work: work, seen: map[string]verdict{}}
}

// check draws a schedule and fails rt when it breaks an invariant, with a
// message that is the same for the same schedule (rapid compares messages):
// the adapter and the schedule. The invariants go to the log, which rapid
// prints with its final report and writes into the fail file.
func (p *property) check(rt *rapid.T) {
	sched := scheduleGen().Draw(rt, "schedule")
	key := sched.Line()
	v, ok := p.seen[key]
	if !ok {
		v = p.judge(sched)
		p.seen[key] = v
	}
	if !v.failed {
		return
	}
	p.lastFail = sched
	for _, l := range v.lines {
		rt.Log(l)
	}
	rt.Fatalf("%s broke an invariant after heal and drain under this schedule:\n%s", p.adapter.Name(), sched)
}

// judge runs a schedule not seen before; see property for why a failure
// after the first needs a second.
func (p *property) judge(sched scenarios.Schedule) verdict {
	v := p.runOnce(sched)
	if !v.failed {
		return v
	}
	if p.firstFail == nil {
		p.firstFail = sched
		return v
	}
	for i := 1; i < confirmRuns; i++ {
		if again := p.runOnce(sched); !again.failed {
			p.t.Logf("run %d passed where the run before failed: an unreliable failure, not shrunk toward", p.runs)
			return again
		}
	}
	return v
}

func (p *property) runOnce(sched scenarios.Schedule) verdict {
	p.runs++
	started := time.Now()
	o := p.run(sched.Scenario("property", propertyBase()))
	bad := notPassing(o)
	p.t.Logf("run %d against %s: %d invariants not pass, %.1f s: %s", p.runs, p.adapter.Name(), len(bad), time.Since(started).Seconds(), sched.Line())
	if len(bad) == 0 {
		return verdict{}
	}
	v := verdict{failed: true, lines: []string{"run folder " + o.Dir}}
	for _, r := range bad {
		v.lines = append(v.lines, fmt.Sprintf("%s (%s) %s: %s", r.ID, r.Name, strings.ToUpper(string(r.Verdict)), summary(r)))
	}
	return v
}

// run is one runner.Run; a harness error or a skip fails the whole test at
// once (it is not the dispatcher's failure, so rapid must not shrink it).
func (p *property) run(s runner.Scenario) runner.Outcome {
	t := p.t
	require.NoError(t, s.Validate())
	out := filepath.Join(t.TempDir(), "run")
	if dir := os.Getenv("OUTBOXCHAOS_ARTIFACTS"); dir != "" {
		out = filepath.Join(dir, t.Name(), fmt.Sprintf("run-%03d", p.runs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o, err := runner.Run(ctx, runner.Options{Scenario: s, Adapter: p.adapter, Env: p.env, Seed: propertyRunSeed, Out: out, WorkDir: p.work})
	require.NoError(t, err, "harness error under schedule:\n%s", s.Params["schedule"])
	require.Empty(t, o.Skipped)
	// The runner returns the history and the results; the report is the
	// caller's to write, as the CLI and chaostest do.
	_, err = reports.WriteRunResults(o.Dir, o.History, o.Results)
	require.NoError(t, err, "write the report")
	return o
}

func notPassing(o runner.Outcome) []check.Result {
	var bad []check.Result
	for _, r := range o.Results {
		if r.Waived == "" && r.Verdict != check.Pass && r.Verdict != check.NotExercised {
			bad = append(bad, r)
		}
	}
	return bad
}

func summary(r check.Result) string {
	if len(r.Violations) > 0 {
		return r.Violations[0].Summary
	}
	return r.Reason
}

// The state-machine test: random schedules of every action (produce
// valid and poison events, SIGKILL, SIGSTOP/SIGCONT, SIGTERM, crash at a
// named point, each network fault on MySQL and Redis, SQL error packets,
// a held finalize COMMIT, Redis and MySQL restarts, clock skew, wait),
// and after heal and drain every invariant holds for the reference. rapid
// first replays every fail file in testdata/rapid/<this test>/ (the
// regression corpus), then draws new schedules.
func TestPropertyReferenceKeepsEveryInvariant(t *testing.T) {
	e := endToEndRapid(t)
	checks := strconv.Itoa(defaultPropertyChecks)
	if v := os.Getenv(propertyChecksEnv); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "%s=%q: want a number of checks", propertyChecksEnv, v)
		require.Positive(t, n, "%s=%q: want at least 1 check", propertyChecksEnv, v)
		checks = v
	}
	setRapidDefault(t, "rapid.checks", checks)
	p := newProperty(t, e, refadapter.New(), filepath.Join(t.TempDir(), "work"))
	rapid.Check(t, p.check)
}

// The round-1 steps that generated schedules now draw (a held finalize
// COMMIT past the lease, the store's restart in place, SQL error packets,
// clock skew) each land on the reference and leave every invariant pass,
// so a schedule that draws them and fails is a finding, not the step's
// own false alarm. Every run must pass. A trap whose instance wins no claim
// within its deadline on a loaded machine lands nothing (CI once saw the
// held finalize miss), so a schedule runs again, up to landingTries times,
// until each of its fault windows is in the history.
func TestPropertyReferenceRidesOutTheRoundOneSteps(t *testing.T) {
	e := endToEnd(t)
	p := newProperty(t, e, refadapter.New(), filepath.Join(t.TempDir(), "work"))
	for _, c := range []struct {
		sched scenarios.Schedule
		kinds []string // fault windows that must be in the history
	}{
		{scenarios.Schedule{scenarios.Hold{Slot: "d1", For: 3500 * time.Millisecond, Settle: time.Second}, scenarios.Restart{Dep: "mysql", For: 300 * time.Millisecond}},
			[]string{history.FaultFinalizeTrap, "server-restart"}},
		{scenarios.Schedule{scenarios.Network{Dep: "mysql", Fault: faultproxy.SQLError{Probability: 0.3}, For: time.Second}, scenarios.Skew{Slot: "d2", By: -10 * time.Second, For: 2 * time.Second}},
			[]string{"sql-error", nemesis.FaultClockSkew}},
	} {
		for try := 1; ; try++ {
			o := p.run(c.sched.Scenario("property", propertyBase()))
			require.Empty(t, notPassing(o), "%s: %s", c.sched.Line(), o.Dir)
			missing := missingFaults(o, c.kinds)
			if len(missing) == 0 {
				break
			}
			require.Less(t, try, landingTries, "%s: no %v fault window in the history after %d runs (%s)", c.sched.Line(), missing, try, o.Dir)
			t.Logf("%s: try %d landed no %v; running it again", c.sched.Line(), try, missing)
		}
	}
}

// landingTries is how many runs of one schedule
// TestPropertyReferenceRidesOutTheRoundOneSteps makes for its faults to land.
const landingTries = 3

// missingFaults lists the kinds that have no fault window in the run's
// history.
func missingFaults(o runner.Outcome, kinds []string) []string {
	var out []string
	for _, k := range kinds {
		if !hasFault(o, k) {
			out = append(out, k)
		}
	}
	return out
}

// hasFault says whether the run's history has a fault window of kind.
func hasFault(o runner.Outcome, kind string) bool {
	for _, f := range o.History.Faults {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// The property must be able to fail: against a dispatcher that adds jobs
// without a custom jobId, rapid finds a schedule that duplicates a job and
// shrinks it to a few readable steps; the fail file it writes names them.
func TestPropertyFindsAndShrinksAMutant(t *testing.T) {
	e := endToEndRapid(t)
	setRapidDefault(t, "rapid.checks", strconv.Itoa(mutantChecks))
	setRapidDefault(t, "rapid.seed", strconv.Itoa(mutantSearchSeed))
	setRapidDefault(t, "rapid.shrinktime", mutantShrinkTime.String())
	a, err := mutants.Adapter(propertyMutant)
	require.NoError(t, err)
	p := newProperty(t, e, a, filepath.Join(t.TempDir(), "work"))
	before := failFiles(t, t.Name())
	t.Cleanup(func() { removeNewFailFiles(t, before) })
	rec := &recordingTB{t: t}
	started := time.Now()
	rapid.Check(rec, p.check)
	require.True(t, rec.Failed(), "the property never failed against mutant %s in %d runs", propertyMutant, p.runs)
	report := rec.report()
	t.Logf("rapid's report (%d runs, %.0f s):\n%s", p.runs, time.Since(started).Seconds(), report)
	require.NotContains(t, report, "flaky test", "rapid could not reproduce the failure")
	require.NotEmpty(t, p.lastFail)
	t.Logf("first failing schedule, %d steps:\n%s", len(p.firstFail), p.firstFail)
	t.Logf("shrunk to %d steps:\n%s", len(p.lastFail), p.lastFail)
	require.LessOrEqual(t, len(p.lastFail), 3, "the shrunk schedule must be small")
	require.LessOrEqual(t, len(p.lastFail), len(p.firstFail))
	require.Contains(t, report, p.lastFail.String(), "rapid's report names the shrunk schedule")
	checkNewFailFile(t, before, p.lastFail)
}

// checkNewFailFile checks that rapid wrote one fail file for the failure
// and that it shows the shrunk schedule in its comments.
func checkNewFailFile(t *testing.T, before map[string]bool, shrunk scenarios.Schedule) {
	t.Helper()
	if f := flag.Lookup("rapid.nofailfile"); f != nil && f.Value.String() == "true" {
		t.Log("-rapid.nofailfile is set: no fail file to check")
		return
	}
	fresh := newFailFiles(t, before)
	require.Len(t, fresh, 1, "rapid writes one fail file per failure")
	body, err := os.ReadFile(fresh[0])
	require.NoError(t, err)
	for _, line := range strings.Split(shrunk.String(), "\n") {
		require.Contains(t, string(body), "# "+line, "the fail file's comments show the schedule")
	}
}

// removeNewFailFiles removes the fail files this test made, unless
// OUTBOXCHAOS_KEEP_FAILFILES is set (then move one into the corpus: see
// doc.go), so a test run leaves the source tree as it was.
func removeNewFailFiles(t *testing.T, before map[string]bool) {
	for _, f := range newFailFiles(t, before) {
		if os.Getenv(keepFailFilesEnv) != "" {
			t.Logf("kept fail file %s", f)
			continue
		}
		if err := os.Remove(f); err != nil {
			t.Errorf("remove fail file: %v", err)
		}
		_ = os.Remove(filepath.Dir(f)) // only when empty
		_ = os.Remove(filepath.Dir(filepath.Dir(f)))
	}
}

func newFailFiles(t *testing.T, before map[string]bool) []string {
	var fresh []string
	for f := range failFiles(t, t.Name()) {
		if !before[f] {
			fresh = append(fresh, f)
		}
	}
	return fresh
}

// Every fail file of the corpus must sit where rapid replays it against the
// reference (testdata/rapid/<referenceTest>/), and one found on a mutant
// (named "...-mutant-<name>.fail") must still make that mutant fail: the
// generator has not drifted under it.
func TestPropertyCorpusReproducesItsMutants(t *testing.T) {
	e := endToEndRapid(t)
	all, err := filepath.Glob(filepath.Join("testdata", "rapid", "*", "*.fail"))
	require.NoError(t, err)
	require.NotEmpty(t, all, "the regression corpus testdata/rapid/ is empty")
	var found []string
	for _, f := range all {
		require.Equal(t, referenceTest, filepath.Base(filepath.Dir(f)),
			"fail file %s: move it to testdata/rapid/%s/ (named %s-<what>.fail) so rapid replays it against the reference", f, referenceTest, referenceTest)
		require.True(t, strings.HasPrefix(filepath.Base(f), referenceTest+"-"), "fail file %s: rapid replays only %s-*.fail", f, referenceTest)
		if mutantOf(f) != "" {
			found = append(found, f)
		}
	}
	require.NotEmpty(t, found, "the corpus keeps at least one fail file found on a mutant")
	work := filepath.Join(t.TempDir(), "work")
	for _, f := range found {
		t.Run(mutantOf(f), func(t *testing.T) {
			a, err := mutants.Adapter(mutantOf(f))
			require.NoError(t, err, "fail file %s names an unknown mutant", f)
			p := newProperty(t, e, a, work)
			rec := replay(t, f, p)
			require.True(t, rec.Failed(), "fail file %s no longer makes mutant %s fail", f, mutantOf(f))
			require.NotContains(t, rec.report(), "flaky test")
			t.Logf("replayed %s against %s: fails under\n%s", f, a.Name(), p.lastFail)
		})
	}
}

// mutantOf returns the mutant a corpus fail file was found on, from its
// name "<test>-mutant-<name>.fail", or "".
func mutantOf(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), ".fail")
	if i := strings.Index(base, "-mutant-"); i >= 0 {
		return base[i+len("-mutant-"):]
	}
	return ""
}

// replay runs the property once on the fail file's schedule (-rapid.failfile
// with no new checks) and returns what rapid reported.
func replay(t *testing.T, file string, p *property) *recordingTB {
	forceRapidFlag(t, "rapid.failfile", file)
	forceRapidFlag(t, "rapid.checks", "0")
	rec := &recordingTB{t: t, name: "corpus-replay"}
	rapid.Check(rec, p.check)
	return rec
}

func failFiles(t *testing.T, test string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "rapid", test, "*.fail"))
	require.NoError(t, err)
	out := map[string]bool{}
	for _, f := range files {
		out[f] = true
	}
	return out
}

// userFlags are the flags given on the command line, read once before any
// test changes one.
var userFlags = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
})

// setRapidDefault sets one of rapid's flags for this test unless the user
// gave it, on the command line or as rapid's environment variable
// (rapid.checks: RAPID_CHECKS).
func setRapidDefault(t *testing.T, name, value string) {
	t.Helper()
	if userFlags()[name] {
		return
	}
	if _, ok := os.LookupEnv(strings.ToUpper(strings.ReplaceAll(name, ".", "_"))); ok {
		return
	}
	forceRapidFlag(t, name, value)
}

// forceRapidFlag sets one of rapid's flags (rapid reads them at each Check)
// and restores it when the test ends.
func forceRapidFlag(t *testing.T, name, value string) {
	t.Helper()
	userFlags()
	f := flag.Lookup(name)
	require.NotNil(t, f, "rapid registers -%s", name)
	old := f.Value.String()
	require.NoError(t, flag.Set(name, value))
	t.Cleanup(func() { _ = flag.Set(name, old) })
}

// recordingTB is the rapid.TB a check runs under when its failure is the
// expected outcome: it records rapid's verdict instead of failing the test,
// and passes rapid's log lines on.
type recordingTB struct {
	t      *testing.T
	name   string // the name rapid files fail files under; the test's by default
	mu     sync.Mutex
	failed bool
	errs   []string
}

var _ rapid.TB = (*recordingTB)(nil)

func (r *recordingTB) Helper() {}

func (r *recordingTB) Name() string {
	if r.name != "" {
		return r.name
	}
	return r.t.Name()
}

func (r *recordingTB) Logf(format string, args ...any) { r.t.Logf(format, args...) }
func (r *recordingTB) Log(args ...any)                 { r.t.Log(args...) }
func (r *recordingTB) Skipf(format string, args ...any) {
	r.t.Skipf(format, args...)
}
func (r *recordingTB) Skip(args ...any)                  { r.t.Skip(args...) }
func (r *recordingTB) SkipNow()                          { r.t.SkipNow() }
func (r *recordingTB) Errorf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *recordingTB) Error(args ...any)                 { r.fail(fmt.Sprint(args...)) }
func (r *recordingTB) Fatalf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *recordingTB) Fatal(args ...any)                 { r.fail(fmt.Sprint(args...)) }

// FailNow only records: rapid calls it last, after its report.
func (r *recordingTB) FailNow() { r.fail("") }
func (r *recordingTB) Fail()    { r.fail("") }

func (r *recordingTB) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recordingTB) fail(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	if msg != "" {
		r.errs = append(r.errs, msg)
	}
}

func (r *recordingTB) report() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}
