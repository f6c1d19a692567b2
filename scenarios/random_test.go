package scenarios_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

func TestRandomStepsReadAsSentences(t *testing.T) {
	cases := []struct {
		step scenarios.Step
		want string
	}{
		{scenarios.Kill{Slot: "d2", For: 300 * time.Millisecond}, "kill d2 for 300ms"},
		{scenarios.Network{Dep: "redis", Slot: "d1", Fault: faultproxy.Latency{Latency: 150 * time.Millisecond, Jitter: 50 * time.Millisecond}, For: 2 * time.Second}, "redis latency 150ms on d1 for 2s"},
		{scenarios.Network{Dep: "mysql", Fault: faultproxy.Down{}, For: time.Second}, "mysql down on every link for 1s"},
		{scenarios.Network{Dep: "redis", Slot: "d2", Fault: faultproxy.LostReplyRedisAdd{Times: 2}, For: time.Second}, "redis lost-reply-redis-add x2 on d2 for 1s"},
		{scenarios.Network{Dep: "mysql", Fault: faultproxy.Slicer{Average: 8, Size: 4, Delay: 100}, For: time.Second}, "mysql slicer 8B on every link for 1s"},
		{scenarios.Network{Dep: "redis", Fault: faultproxy.Bandwidth{Rate: 16}, For: time.Second}, "redis bandwidth 16KB/s on every link for 1s"},
		{scenarios.Crash{Slot: "d3", Point: "after-enqueue", Nth: 2}, "crash d3 at after-enqueue (2nd hit)"},
		{scenarios.Window{Slot: "d1", Nth: 1}, "crash d1 between add and finalize (1st batch)"},
		{scenarios.Pause{Slot: "d1", For: 5 * time.Second}, "pause d1 for 5s"},
		{scenarios.Term{Slot: "d2", For: 100 * time.Millisecond}, "term d2 (down 100ms)"},
		{scenarios.Restart{Dep: "redis", For: time.Second}, "restart redis (down 1s)"},
		{scenarios.Wait{For: 500 * time.Millisecond}, "wait 500ms"},
		{scenarios.Produce{Events: 50, Poison: true}, "produce 50 poison events"},
		{scenarios.Restart{Dep: "mysql", For: 300 * time.Millisecond}, "restart mysql (down 300ms)"},
		{scenarios.Skew{Slot: "d3", By: -10 * time.Second, For: 2 * time.Second}, "skew d3's clock by -10s for 2s"},
		{scenarios.Hold{Slot: "d2", For: time.Second}, "hold d2's finalize commit for 1s"},
		{scenarios.Network{Dep: "mysql", Slot: "d1", Fault: faultproxy.SQLError{Probability: 0.1}, For: time.Second}, "mysql sql-error p=0.1 on d1 for 1s"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, c.step.String())
		require.NoError(t, c.step.Validate(3), c.want)
	}
	s := scenarios.Schedule{cases[0].step, cases[11].step}
	require.Equal(t, "1. kill d2 for 300ms\n2. wait 500ms", s.String())
	require.Equal(t, "1. kill d2 for 300ms; 2. wait 500ms", s.Line())
}

func TestRandomStepValidationNamesTheProblem(t *testing.T) {
	cases := []struct {
		step scenarios.Step
		want string
	}{
		{scenarios.Kill{Slot: "d4", For: time.Second}, `step "kill d4 for 1s": slot "d4": want d1..d3`},
		{scenarios.Pause{Slot: "d1"}, "duration 0s: want > 0"},
		{scenarios.Term{For: time.Second}, `slot "": want d1..d3`},
		{scenarios.Crash{Slot: "d1", Point: "mid-air", Nth: 1}, `crash point "mid-air": want one of after-claim`},
		{scenarios.Crash{Slot: "d1", Point: "after-claim"}, "hit 0: want >= 1"},
		{scenarios.Window{Slot: "d9", Nth: 1}, `slot "d9"`},
		{scenarios.Restart{Dep: "kafka", For: time.Second}, `server "kafka": want mysql or redis`},
		{scenarios.Wait{}, "duration 0s: want > 0"},
		{scenarios.Network{Dep: "kafka", Fault: faultproxy.Down{}, For: time.Second}, `dependency "kafka"`},
		{scenarios.Network{Dep: "mysql", Fault: faultproxy.LostReplyRedisAdd{}, For: time.Second}, "lost-reply-redis-add cannot act on mysql"},
		{scenarios.Network{Dep: "redis", Fault: faultproxy.SQLError{}, For: time.Second}, "sql-error cannot act on redis"},
		{scenarios.Network{Dep: "redis", Fault: faultproxy.Latency{}, For: time.Second}, "fault latency: latency and jitter are both 0: set Latency"},
		{scenarios.Network{Dep: "redis", For: time.Second}, `step "redis (no fault) on every link for 1s": no fault: set Fault`},
		{scenarios.Network{Dep: "redis", Fault: faultproxy.Down{}}, "duration 0s: want > 0"},
		{scenarios.Produce{}, "events 0: want at least 1"},
		{scenarios.Skew{Slot: "d1", For: time.Second}, `step "skew d1's clock by 0s for 1s": offset 0s: want a clock ahead (> 0) or behind (< 0)`},
		{scenarios.Skew{Slot: "d7", By: time.Second, For: time.Second}, `slot "d7": want d1..d3`},
		{scenarios.Skew{Slot: "d1", By: time.Second}, "duration 0s: want > 0"},
		{scenarios.Hold{Slot: "d1", For: time.Second, Settle: -time.Second}, "settle -1s: want >= 0"},
		{scenarios.Hold{Slot: "d1"}, "duration 0s: want > 0"},
	}
	for _, c := range cases {
		require.ErrorContains(t, c.step.Validate(3), c.want)
	}
	bad := scenarios.Schedule{scenarios.Wait{For: time.Second}, scenarios.Kill{Slot: "d9", For: time.Second}}
	require.ErrorContains(t, bad.Validate(2), `schedule step 2: step "kill d9 for 1s": slot "d9": want d1..d2`)
	require.ErrorContains(t, scenarios.Schedule{scenarios.Wait{For: time.Second}, nil}.Validate(2), "schedule step 2: no step (nil)")
}

func TestRandomScheduleReplaysBySeedAndStaysInBounds(t *testing.T) {
	kinds := map[string]bool{}
	for seed := int64(1); seed <= 300; seed++ {
		sp := scenarios.Space{Slots: 3, CrashPoints: seed%2 == 0, RestartRedis: true, RestartStore: true, SQLErrors: true, SkewClock: true, HoldCommits: true}
		a := scenarios.RandomSchedule(rand.New(rand.NewSource(seed)), sp)
		b := scenarios.RandomSchedule(rand.New(rand.NewSource(seed)), sp)
		require.Equal(t, a, b, "seed %d must replay", seed)
		require.NotEmpty(t, a, "seed %d", seed)
		require.NoError(t, a.Validate(3))
		require.LessOrEqual(t, a.Nominal(), scenarios.ScheduleBudget, "seed %d:\n%s", seed, a)
		for _, st := range a {
			require.NotContains(t, fmt.Sprintf("%T", st), "Produce", "the workload is fixed before a run: no produce steps at run time")
			if seed%2 == 1 {
				require.NotContains(t, fmt.Sprintf("%T", st), "Crash", "seed %d: crash points drawn for an adapter without them", seed)
			}
			kinds[fmt.Sprintf("%T", st)] = true
			if _, ok := st.(scenarios.Hold); ok {
				kinds[string((faultproxy.CommitHoldMySQL{}).Kind())] = true // the finalize trap's fault
			}
			if r, ok := st.(scenarios.Restart); ok {
				kinds["restart "+r.Dep] = true
			}
			if n, ok := st.(scenarios.Network); ok {
				kinds[string(n.Fault.Kind())] = true
			}
		}
	}
	for _, want := range []scenarios.Step{scenarios.Wait{}, scenarios.Kill{}, scenarios.Pause{}, scenarios.Term{}, scenarios.Crash{}, scenarios.Window{}, scenarios.Network{}, scenarios.Restart{}, scenarios.Skew{}, scenarios.Hold{}} {
		require.True(t, kinds[fmt.Sprintf("%T", want)], "300 seeds never drew a %T step", want)
	}
	for _, dep := range []string{"redis", "mysql"} {
		require.True(t, kinds["restart "+dep], "300 seeds never drew a restart of %s", dep)
	}
	for _, k := range faultproxy.Kinds() {
		if k == (faultproxy.QueueError{}).Kind() {
			continue // queue-error's: it needs a queue, not a link
		}
		if k == (faultproxy.RedisState{}).Kind() || k == (faultproxy.SQLReadOnly{}).Kind() || k == (faultproxy.HalfOpen{}).Kind() {
			continue // round-2 scenarios of their own (transient-states, half-open)
		}
		if k == (faultproxy.LostReplyPostgresCommit{}).Kind() || k == (faultproxy.CommitHoldPostgres{}).Kind() {
			continue // what the MySQL kinds become on a PostgreSQL run (faultproxy.StoreBound)
		}
		require.True(t, kinds[string(k)], "300 seeds never drew a %s fault", k)
	}
}

func TestRandomScheduleFitKeepsOrderWithinBudget(t *testing.T) {
	long := scenarios.Pause{Slot: "d1", For: 5 * time.Second}
	short := scenarios.Wait{For: time.Second}
	s := scenarios.Schedule{long, long, short, short}
	require.Equal(t, scenarios.Schedule{long, short, short}, s.Fit(7*time.Second))
}

func TestRandomScheduleMakesItsScenario(t *testing.T) {
	base := runner.Scenario{
		Name: "property", Description: "d", Instances: 2, Events: 40, Tuning: runner.DefaultTuning(),
		Needs: []runner.Needs{runner.NeedGracefulTerm}, Params: map[string]string{"instances": "2"},
	}
	s := scenarios.Schedule{
		scenarios.Produce{Events: 30},
		scenarios.Crash{Slot: "d1", Point: "after-enqueue", Nth: 1},
		scenarios.Produce{Events: 10, Poison: true},
		scenarios.Restart{Dep: "redis", For: time.Second},
	}
	sc := s.Scenario("property-1", base)
	require.NoError(t, sc.Validate())
	require.Equal(t, "property-1", sc.Name)
	require.Equal(t, 40, sc.Events)
	require.Equal(t, 120, sc.Mix.Valid)
	require.Equal(t, 10, sc.Mix.UnknownType)
	require.Equal(t, 10, sc.Mix.IllegalJobID)
	require.InDelta(t, 40/(3.3+1.3), sc.Rate, 0.01, "events spread over the schedule's nominal time")
	require.Equal(t, []runner.Needs{runner.NeedGracefulTerm, runner.NeedCrashPoints, runner.NeedServerCtl}, sc.Needs)
	require.Equal(t, s.Line(), sc.Params["schedule"])
	require.Equal(t, "2", sc.ShownParams()["instances"])
	require.NotContains(t, base.Params, "schedule", "the base's parameters stay untouched")
	require.NotNil(t, sc.Script)

	empty := scenarios.Schedule{}.Scenario("property-2", base)
	require.Equal(t, 40, empty.Events, "no produce step: the base's workload")
	require.InDelta(t, 40.0, empty.Rate, 0.01, "over at least a second")

	bad := scenarios.Schedule{scenarios.Kill{Slot: "d3", For: time.Second}}.Scenario("property-3", base)
	require.ErrorContains(t, bad.Script(context.Background(), &nemesis.Nemesis{}), `slot "d3": want d1..d2`)
}

func TestRandomCatalogEntryDescribesItself(t *testing.T) {
	s := scenarios.Random()
	require.NoError(t, s.Validate())
	require.Equal(t, "random", s.Name)
	require.True(t, strings.Contains(s.Description, "seed"), s.Description)
	require.Equal(t, "drawn at run time from the seed", s.Params["schedule"])
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, s.Script(ctx, &nemesis.Nemesis{}), context.Canceled)
}

// The "random" entry end to end: the reference passes the schedule drawn
// from the seed, the run folder names that schedule, and the same seed
// draws the same schedule again.
func TestRandomScenarioReplaysBySeedAndRecordsItsSchedule(t *testing.T) {
	e := endToEnd(t)
	var drawn []string
	for i := 0; i < 2; i++ {
		s := scenarios.Random()
		s.Events = 300 // keep the test short; the schedule does not depend on it
		// Seed 21 draws a Redis restart, a crash after an add, a MySQL
		// outage on one link and Redis resets on every link.
		o := runScenario(t, e, s, runner.Options{Adapter: refadapter.New(), Seed: 21})
		requireAllPass(t, o)
		h, err := history.Load(o.Dir)
		require.NoError(t, err)
		got := h.Meta.Params["schedule"]
		require.Regexp(t, `^1\. `, got, "the run folder names the schedule that ran")
		t.Logf("seed 21 drew: %s", got)
		drawn = append(drawn, got)
	}
	require.Equal(t, drawn[0], drawn[1], "the same seed draws the same schedule")
}

// scripted makes the choices it is given and records what was asked.
type scripted struct {
	choices []int
	asked   []string
}

func (s *scripted) Choose(label string, n int) int {
	s.asked = append(s.asked, fmt.Sprintf("%s/%d", label, n))
	v := s.choices[0]
	s.choices = s.choices[1:]
	return v
}

// Seeds and fail files replay only while the generator asks the same
// questions in the same order: these pin the choices a step is drawn from
// (in the property's space: two slots, crash points, Redis restarts,
// produce steps) and two seeds' schedules.
func TestRandomDrawsStayInOrder(t *testing.T) {
	sp := scenarios.Space{Slots: 2, CrashPoints: true, RestartRedis: true, Produce: true}
	cases := []struct {
		choices []int
		asked   string
		want    string
	}{
		{[]int{0, 0}, "op/9 for/3", "wait 100ms"},
		{[]int{1, 0, 1, 0}, "op/9 slot/2 point/4 nth/3", "crash d1 at after-enqueue (1st hit)"},
		{[]int{2, 1, 2}, "op/9 slot/2 down/3", "kill d2 for 1s"},
		{[]int{3, 0, 2}, "op/9 slot/2 for/3", "pause d1 for 3s"},
		{[]int{4, 1, 1}, "op/9 slot/2 down/2", "term d2 (down 500ms)"},
		{[]int{5, 1}, "op/9 down/2", "restart redis (down 1s)"},
		{[]int{6, 1, 0}, "op/9 events/3 poison/2", "produce 25 valid events"},
		{[]int{7, 2, 6, 1, 2}, "op/9 link/3 fault/7 times/2 for/3", "mysql lost-reply-mysql-commit x2 on d2 for 2s"},
		{[]int{8, 0, 0, 1, 0}, "op/9 link/3 fault/7 latency/2 for/3", "redis latency 150ms on every link for 300ms"},
		{[]int{8, 1, 5, 1, 1}, "op/9 link/3 fault/7 slice/2 for/3", "redis slicer 8B on d1 for 1s"},
	}
	for _, c := range cases {
		ch := &scripted{choices: c.choices}
		st := scenarios.DrawStep(ch, sp)
		require.Equal(t, c.want, st.String())
		require.Equal(t, c.asked, strings.Join(ch.asked, " "), c.want)
		require.Empty(t, ch.choices, c.want)
		require.NoError(t, st.Validate(2), c.want)
	}
	// The round-1 faults of the store and the clock come last, so they
	// add questions only to a space that has them: the property's space
	// now does.
	withStore := sp
	withStore.RestartStore, withStore.SQLErrors, withStore.SkewClock, withStore.HoldCommits = true, true, true, true
	for _, c := range []struct {
		choices     []int
		asked, want string
	}{
		{[]int{9, 1}, "op/12 down/2", "restart mysql (down 1s)"},
		{[]int{5, 0}, "op/12 down/2", "restart redis (down 300ms)"},
		{[]int{7, 2, 7, 1, 0}, "op/12 link/3 fault/8 share/2 for/3", "mysql sql-error p=0.3 on d2 for 300ms"},
		{[]int{8, 1, 5, 1, 1}, "op/12 link/3 fault/7 slice/2 for/3", "redis slicer 8B on d1 for 1s"},
		{[]int{10, 1, 0, 1}, "op/12 slot/2 by/2 for/2", "skew d2's clock by -10s for 4s"},
		{[]int{11, 0, 1}, "op/12 slot/2 hold/2", "hold d1's finalize commit for 3.5s"},
	} {
		ch := &scripted{choices: c.choices}
		st := scenarios.DrawStep(ch, withStore)
		require.Equal(t, c.want, st.String())
		require.Equal(t, c.asked, strings.Join(ch.asked, " "), c.want)
		require.Empty(t, ch.choices, c.want)
		require.NoError(t, st.Validate(2), c.want)
	}
	ch := &scripted{choices: []int{1, 0, 0}}
	require.Equal(t, "crash d1 between add and finalize (1st batch)", scenarios.DrawStep(ch, scenarios.Space{Slots: 2}).String())
	require.Equal(t, "op/7 slot/2 nth/3", strings.Join(ch.asked, " "), "without crash points, restarts or produce steps")

	for crash, want := range map[bool]string{
		true:  "1. redis latency 150ms on d3 for 300ms; 2. crash d3 at after-claim (1st hit); 3. mysql bandwidth 16KB/s on d3 for 1s; 4. kill d1 for 1s; 5. restart redis (down 300ms); 6. redis blackhole on d2 for 1s",
		false: "1. redis latency 150ms on d3 for 300ms; 2. crash d3 between add and finalize (2nd batch); 3. term d3 (down 500ms); 4. kill d3 for 300ms; 5. kill d1 for 1s; 6. restart redis (down 300ms)",
	} {
		sp := scenarios.Space{Slots: 3, CrashPoints: crash, RestartRedis: true}
		require.Equal(t, want, scenarios.RandomSchedule(rand.New(rand.NewSource(1)), sp).Line(), "seed 1, crash points %v", crash)
	}
}
