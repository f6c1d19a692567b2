package chaostest

import (
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/outboxchaos/outboxchaos/adapters"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
	"github.com/outboxchaos/outboxchaos/reports"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

// The flags a `go test` command line may give; see doc.go.
var (
	seedFlag   = flag.Int64("chaostest.seed", 0, "the seed of every chaostest run (default: from the clock, printed); scenario i of a Run gets seed+i")
	outFlag    = flag.String("chaostest.out", "", "keep the run folders under this directory (default: the test's temporary directory, removed afterwards)")
	strictFlag = flag.Bool("chaostest.strict", false, "fail a scenario whose verdict is unknown instead of skipping it")
)

// ShortScenarios is the fast subset that runs under `go test -short`: no
// crash points needed, a few seconds of load each.
var ShortScenarios = []string{"baseline", "lost-reply-redis", "poison"}

// Option changes what Run runs.
type Option func(*config)

type config struct {
	names []string
	seed  int64
}

// Scenarios selects the scenarios to run, by catalog name (`outboxchaos
// list`); they run in catalog order. Without it Run runs the whole catalog.
func Scenarios(names ...string) Option {
	return func(c *config) { c.names = append(c.names, names...) }
}

// Seed fixes the seed of the first scenario (scenario i gets seed+i, as
// `outboxchaos chaos --seed` does). Without it the seed comes from the
// -chaostest.seed flag, else from the clock.
func Seed(seed int64) Option {
	return func(c *config) { c.seed = seed }
}

// Run runs the selected scenarios against the dispatcher that adapter names
// ("reference", "mutant:NAME", or a manifest path, relative to the test's
// package directory), each as a subtest named after the scenario. The
// subtests share one environment, opened once and closed when t ends. See
// doc.go for what a failing, unknown or skipped subtest says.
func Run(t *testing.T, adapter string, opts ...Option) {
	t.Helper()
	s, err := newSuite(t, adapter, opts)
	if err != nil {
		t.Fatalf("chaostest: %v", err)
	}
	t.Logf("chaostest: adapter %s, seed %d (replay with -chaostest.seed=%d), run folders under %s",
		s.adapter.Name(), s.seed, s.seed, s.out)
	if s.anyToRun() {
		if err := s.open(t); err != nil {
			if why := s.stop.err(); why != nil {
				t.Fatalf("chaostest: stopped while opening the environment: %v", why)
			}
			t.Fatalf("chaostest: %v", err)
		}
	}
	for i, sc := range s.list {
		seed := s.seed + int64(i)
		t.Run(sc.Name, func(t *testing.T) { s.runOne(t, sc, seed) })
	}
}

// suite is one Run: the adapter, the scenarios, and the shared environment.
type suite struct {
	arg     string // the adapter as the replay command names it
	adapter supervisor.Adapter
	list    []runner.Scenario
	seed    int64
	out     string // run folders: out/<scenario>
	work    string // where adapters build, once per Run
	stop    *stopper
	env     env.Env
}

func newSuite(t *testing.T, adapter string, opts []Option) (*suite, error) {
	c := config{seed: *seedFlag}
	for _, o := range opts {
		o(&c)
	}
	if c.seed == 0 {
		c.seed = time.Now().UnixNano() % 1_000_000_007
	}
	list, err := scenarios.Select(c.names...)
	if err != nil {
		return nil, err
	}
	a, err := adapters.Open(adapter)
	if err != nil {
		return nil, err
	}
	arg, err := replayAdapter(adapter)
	if err != nil {
		return nil, err
	}
	s := &suite{arg: arg, adapter: a, list: list, seed: c.seed, work: filepath.Join(t.TempDir(), "work")}
	s.out = filepath.Join(t.TempDir(), "runs")
	if *outFlag != "" {
		if s.out, err = filepath.Abs(filepath.Join(*outFlag, folderName(t.Name()))); err != nil {
			return nil, fmt.Errorf("-chaostest.out: %w", err)
		}
	}
	s.stop = newStopper(t)
	return s, nil
}

// replayAdapter is the adapter argument for the replay command: a manifest
// path made absolute, so the command works from any directory.
func replayAdapter(adapter string) (string, error) {
	if !strings.HasSuffix(adapter, ".yaml") && !strings.HasSuffix(adapter, ".yml") {
		return adapter, nil
	}
	abs, err := filepath.Abs(adapter)
	if err != nil {
		return "", fmt.Errorf("manifest %s: %w", adapter, err)
	}
	return abs, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// folderName turns a test name ("TestOutbox/sub") into one folder name.
func folderName(name string) string {
	return strings.Trim(unsafeName.ReplaceAllString(name, "_"), "_")
}

// anyToRun tells whether a scenario is left after the -short filter, so
// that an all-skipped Run starts no servers.
func (s *suite) anyToRun() bool {
	for _, sc := range s.list {
		if shortSkip(sc.Name) == "" {
			return true
		}
	}
	return false
}

// open opens the shared environment (env.ConfigFromEnv: the private local
// servers unless OUTBOXCHAOS_ENV or the external DSN and URL say
// otherwise); t's cleanup closes it, so its servers stop and their folders
// go.
func (s *suite) open(t *testing.T) error {
	cfg := env.ConfigFromEnv()
	cfg.RedisPersistence = true // redis-restart must not lose acknowledged adds
	// A dispatcher that declares durability: wait needs a replica its WAIT counts.
	cfg.RedisReplica = s.adapter.Capabilities().Durability == supervisor.DurabilityWait
	e, err := env.Open(s.stop.ctx, cfg)
	if err != nil {
		return fmt.Errorf("open environment: %w", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("chaostest: close environment: %v", err)
		}
	})
	s.env = e
	return nil
}

// shortSkip is why -short skips the scenario, or "".
func shortSkip(name string) string {
	if !testing.Short() || slices.Contains(ShortScenarios, name) {
		return ""
	}
	return "-short runs only the fast subset (" + strings.Join(ShortScenarios, ", ") + ")"
}

// runOne runs one scenario in its own folder and turns its outcome into the
// subtest's result.
func (s *suite) runOne(t *testing.T, sc runner.Scenario, seed int64) {
	if why := shortSkip(sc.Name); why != "" {
		t.Skip(why)
	}
	if err := s.stop.err(); err != nil {
		t.Fatalf("chaostest: %s not started: %v", sc.Name, err)
	}
	dir := filepath.Join(s.out, sc.Name)
	cmd := runner.ReplayCommand(sc.Name, s.arg, seed, dir)
	progress := newLineLog(t)
	defer progress.close()
	o, err := runner.Run(s.stop.ctx, runner.Options{
		Scenario: sc, Adapter: s.adapter, Env: s.env, Seed: seed, Out: dir,
		Progress: progress.writer(), Command: cmd, WorkDir: s.work,
	})
	if err != nil {
		if why := s.stop.err(); why != nil {
			t.Fatalf("chaostest: %s stopped: %v; its instances and servers are stopped\nreproduce: %s", sc.Name, why, cmd)
		}
		t.Fatalf("chaostest: %s: harness error: %v\nreproduce: %s", sc.Name, err, cmd)
	}
	res, err := render(o)
	if err != nil {
		t.Fatalf("chaostest: %s: harness error: %v\nreproduce: %s", sc.Name, err, cmd)
	}
	act, msg := judge(o, res, *strictFlag, cmd, *outFlag != "")
	switch act {
	case actFail:
		t.Error(msg)
	case actSkip:
		t.Skip(msg)
	default:
		t.Log(msg)
	}
}

// render writes the run folder's report (index.html, results.json,
// junit.xml) from the history and the results the run returned; a skipped
// run has none.
func render(o runner.Outcome) (verdict.Results, error) {
	if o.Skipped != "" {
		return verdict.Results{}, nil
	}
	res, err := reports.WriteRunResults(o.Dir, o.History, o.Results)
	if err != nil {
		return res, fmt.Errorf("report of %s: %w", o.Dir, err)
	}
	return res, nil
}
