package scenarios_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/mutants"
	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

// mutantSeed fixes every run of this file: the schedules' choices replay.
const mutantSeed = 20261129

// The issue "prove the checkers can fail": every mutant of the catalog runs
// in its declared scenario, and its declared invariant must fail. The
// reference and the bug-free base pass the same scenarios
// (TestReferenceAndBasePassTheMutantScenarios), so each failure is the bug's.
func TestMutantsAreCaughtByTheirInvariant(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs are skipped with -short")
	}
	e := openLocal(t)
	work := filepath.Join(t.TempDir(), "work")
	for _, m := range mutants.Catalog() {
		t.Run(m.Name, func(t *testing.T) {
			v := mutantScenario(t, m.Scenario)
			a, err := mutants.Adapter(m.Name)
			require.NoError(t, err)
			started := time.Now()
			o := runVariant(t, e, v, a, work)
			r := resultOf(t, o, m.Invariant)
			require.Equal(t, check.Fail, r.Verdict, "mutant %s must fail %s %s in %s: %s (run folder %s)",
				m.Name, r.ID, r.Name, v.scenario.Name, r.Reason, o.Dir)
			require.NotEmpty(t, r.Violations, "a fail names its counterexample")
			t.Logf("caught: mutant %s, %s (%s), scenario %s, %.1f s: %s",
				m.Name, r.ID, r.Name, v.scenario.Name, time.Since(started).Seconds(), r.Violations[0].Summary)
		})
	}
}

func TestReferenceAndBasePassTheMutantScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs are skipped with -short")
	}
	e := openLocal(t)
	work := filepath.Join(t.TempDir(), "work")
	base, err := mutants.BaseAdapter()
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, m := range mutants.Catalog() {
		if seen[m.Scenario] {
			continue
		}
		seen[m.Scenario] = true
		for _, a := range []supervisor.Adapter{refadapter.New(), base} {
			t.Run(m.Scenario+"/"+a.Name(), func(t *testing.T) {
				v := mutantScenario(t, m.Scenario)
				started := time.Now()
				o := runVariant(t, e, v, a, work)
				requireAllPass(t, o)
				t.Logf("%s passes %s in %.1f s", a.Name(), v.scenario.Name, time.Since(started).Seconds())
			})
		}
	}
}

// variant is a scenario a mutant runs in, and the failpoints instance d1
// gets on its first start (the nemesis has no "sleep at a crash point").
type variant struct {
	scenario     runner.Scenario
	d1Failpoints string
}

// mutantScenario builds the scenario a mutant declares: a catalog entry made
// smaller, or one of the variants package mutants documents.
func mutantScenario(t *testing.T, name string) variant {
	t.Helper()
	get := func(n string) runner.Scenario {
		s, err := scenarios.Get(n)
		require.NoError(t, err)
		return s
	}
	var v variant
	switch name {
	case "contention":
		v.scenario = get(name)
		v.scenario.Events = 600
	case "lease-expiry":
		v.scenario = get(name)
		v.scenario.Drain = 10 * time.Second // a mutant that never recovers would hold the drain for its whole default
	case "poison":
		v.scenario = get(name)
		v.scenario.Events = 200
	case "redis-outage":
		v.scenario = get(name)
		v.scenario.Events = 300
		// During the outage every add waits out the whole publish timeout
		// (go-redis retries refused dials until the deadline), so at the
		// catalog's 1 s no event reaches max attempts within the 6 s.
		v.scenario.Tuning.PublishTimeout = history.Duration(200 * time.Millisecond)
	case "crash-window-no-consumer":
		v.scenario = crashTwice(get("crash-window"), name, "after-enqueue",
			"two after-enqueue crashes with no consumer: the recovered claim is added again, which must create nothing")
	case "crash-after-finalize":
		v.scenario = crashTwice(get("crash-window"), name, "after-finalize-commit",
			"two crashes right after the finalize commit: each event must already have its BullMQ job")
	case "baseline-no-consumer":
		v.scenario = get("baseline")
		v.scenario.Name, v.scenario.Consumer, v.scenario.Events = name, false, 300
		v.scenario.Description = "baseline with no consumer: each job must be queued by the dispatcher itself"
	case "pause-after-enqueue":
		v = pauseAt(get("zombie"), name, "after-enqueue", 5*time.Second,
			"d1 sleeps 2.5 leases right after its 2nd add: another instance recovers and finalizes its claim, then d1 must be fenced out")
	case "pause-in-finalize":
		v = pauseAt(get("zombie"), name, "before-finalize-commit", 3*time.Second,
			"d1 sleeps 1.5 leases inside its 2nd finalize, holding its row locks: a recovery that read the rows as expired must not undo the commit")
	default:
		t.Fatalf("mutant scenario %q is not defined here", name)
	}
	require.Equal(t, name, v.scenario.Name)
	require.NoError(t, v.scenario.Validate())
	return v
}

// crashTwice is s without a consumer, crashing two instances at point (on
// their 1st to 3rd pass) instead of crash-window's eight.
func crashTwice(s runner.Scenario, name, point, desc string) runner.Scenario {
	s.Name, s.Description, s.Consumer, s.Events = name, desc, false, 400
	s.Params = map[string]string{"instances": fmt.Sprint(s.Instances), "events": "400", "crashes": "2", "point": point}
	s.Schedule = func(ctx context.Context, n *runner.Nemesis) error {
		for i := 0; i < 2; i++ {
			if err := n.CrashAt(ctx, n.Pick(), point, 1+n.Rand().Intn(3), 5*time.Second); err != nil {
				return err
			}
		}
		return nil
	}
	return s
}

// pauseAt makes d1 sleep d at point on its 2nd pass. The schedule keeps the
// load phase open until d1 has woken and finished its batch.
func pauseAt(s runner.Scenario, name, point string, d time.Duration, desc string) variant {
	s.Name, s.Description = name, desc
	s.Needs = []runner.Needs{runner.NeedCrashPoints}
	s.Params = map[string]string{"instances": fmt.Sprint(s.Instances), "events": fmt.Sprint(s.Events), "d1_failpoint": point, "sleep": d.String()}
	lease := s.Tuning.Lease.D()
	s.Schedule = func(ctx context.Context, n *runner.Nemesis) error { return n.Sleep(ctx, d+lease) }
	fp := supervisor.SleepAt(point, d).OnNth(2)
	return variant{scenario: s, d1Failpoints: fp.String()}
}

// firstStartFailpoints gives instance d1 (the first start of slot d1 only)
// its OUTBOX_FAILPOINTS.
type firstStartFailpoints struct {
	supervisor.Adapter
	spec string
}

func (a firstStartFailpoints) Spec(inst supervisor.Instance) (supervisor.Spec, error) {
	if inst.ID == "d1" {
		env := map[string]string{supervisor.EnvFailpoints: a.spec}
		for k, v := range inst.Env {
			if k != supervisor.EnvFailpoints {
				env[k] = v
			}
		}
		inst.Env = env
	}
	return a.Adapter.Spec(inst)
}

// runVariant runs v against a with the fixed seed; every run of a test
// shares one work directory, so each dispatcher is built once.
func runVariant(t *testing.T, e env.Env, v variant, a supervisor.Adapter, work string) runner.Outcome {
	t.Helper()
	if v.d1Failpoints != "" {
		a = firstStartFailpoints{Adapter: a, spec: v.d1Failpoints}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out := filepath.Join(t.TempDir(), "run")
	if dir := os.Getenv("OUTBOXCHAOS_ARTIFACTS"); dir != "" {
		out = filepath.Join(dir, t.Name())
	}
	o, err := runner.Run(ctx, runner.Options{Scenario: v.scenario, Adapter: a, Env: e, Seed: mutantSeed, Out: out, WorkDir: work})
	require.NoError(t, err)
	require.Empty(t, o.Skipped)
	return o
}

func resultOf(t *testing.T, o runner.Outcome, id string) check.Result {
	t.Helper()
	for _, r := range o.Results {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no result for %s among %d results", id, len(o.Results))
	return check.Result{}
}
