package scenarios

import (
	"context"
	"fmt"
	"math/rand"

	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/runner"
)

// Chooser makes a generator's choices. Choose returns a number in [0, n);
// every list a generator chooses from puts its simplest entry first, so a
// shrinker that lowers choices simplifies the schedule.
type Chooser interface {
	Choose(label string, n int) int
}

// RandChooser chooses with r.
func RandChooser(r *rand.Rand) Chooser { return randChooser{r} }

type randChooser struct{ r *rand.Rand }

func (c randChooser) Choose(_ string, n int) int { return c.r.Intn(n) }

// Space is what a generator may draw from.
type Space struct {
	Slots        int  // instances, >= 1
	CrashPoints  bool // the adapter has crash points: crash steps at named points
	RestartRedis bool // the environment can restart Redis
	// RestartStore: the environment can SIGKILL the outbox's database
	// server and start it again in place, with its data (mysql-restart's
	// fault).
	RestartStore bool
	// SQLErrors: network faults on the store may answer its locking
	// statements with deadlock and lock wait timeout errors
	// (lock-conflicts' fault).
	SQLErrors bool
	// SkewClock: the adapter declares a clock the harness can skew here
	// (clock-skew's fault).
	SkewClock bool
	// HoldCommits: a finalize's COMMIT may be held on the store's link
	// (zombie's finalize trap).
	HoldCommits bool
	Produce     bool // produce steps (only before a run: see Schedule.Scenario)
}

// stepKind is an entry of the generator's menu: a step kind, whether a
// space offers it, and how it is drawn.
type stepKind interface {
	available(sp Space) bool
	draw(c Chooser, sp Space) Step
}

// menu is the one list of step kinds the generator draws from, simplest
// first, since a shrinker lowers each choice toward the first entry:
// doing nothing, then the crash that lands at a named point (or, without
// crash points, in the add-to-finalize window) on the same hit every run,
// then the signals whose landing depends on timing, then a Redis restart
// and produce steps where the space allows them, then a network fault on
// each dependency (one entry each, so they come up as often as process
// faults), then the store's restart in place, clock skew and a held
// finalize COMMIT where the space allows them (last, so that a space without them asks the same
// questions as before). A failure found with a SIGKILL that happened to land in the
// window thus shrinks toward the crash that lands there every time, which
// replays, rather than toward a schedule that fails by luck.
var menu = []stepKind{
	Wait{}, Crash{}, Window{}, Kill{}, Pause{}, Term{}, Restart{Dep: "redis"}, Produce{},
	Network{Dep: "mysql"}, Network{Dep: "redis"}, Restart{Dep: "mysql"}, Skew{}, Hold{},
}

// kindsIn lists the menu's entries a space offers, in the menu's order.
func kindsIn(sp Space) []stepKind {
	var out []stepKind
	for _, k := range menu {
		if k.available(sp) {
			out = append(out, k)
		}
	}
	return out
}

// DrawStep draws one step from the space. Every duration is bounded so the
// reference must keep every invariant: outages end inside the retry budget,
// one instance at most is down at a time, crashes only where the adapter
// can crash.
func DrawStep(c Chooser, sp Space) Step {
	all := kindsIn(sp)
	return all[c.Choose("op", len(all))].draw(c, sp)
}

// drawSlot draws one of the space's instance slots.
func drawSlot(c Chooser, sp Space) string { return fmt.Sprintf("d%d", 1+c.Choose("slot", sp.Slots)) }

func pick[T any](c Chooser, label string, list []T) T { return list[c.Choose(label, len(list))] }

// maxRandomSteps bounds a generated schedule's length before Fit.
const maxRandomSteps = 6

// RandomSchedule draws a schedule of fault steps from sp, fitted into
// ScheduleBudget. Produce steps are never drawn (the workload is fixed
// before a run starts), whatever sp says.
func RandomSchedule(r *rand.Rand, sp Space) Schedule {
	c := RandChooser(r)
	sp.Produce = false
	n := 1 + c.Choose("steps", maxRandomSteps)
	s := make(Schedule, 0, n)
	for i := 0; i < n; i++ {
		s = append(s, DrawStep(c, sp))
	}
	return s.Fit(ScheduleBudget)
}

// RandomSpace is what the random scenario draws from on a run of slots
// instances: crash points when the adapter has them, Redis restarts (the
// scenario needs server control), the store's restart in place when the
// environment can, SQL error packets, held finalize COMMITs, and clock
// skew when the adapter declares a clock that can be skewed here.
func RandomSpace(slots int, n interface {
	HasCrashPoints() bool
	CanRestartStore() bool
	CanSkewClock() bool
}) Space {
	return Space{Slots: slots, CrashPoints: n.HasCrashPoints(), RestartRedis: true,
		RestartStore: n.CanRestartStore(), SQLErrors: true, SkewClock: n.CanSkewClock(), HoldCommits: true}
}

// Random is the "random" catalog entry: at run time its schedule is drawn
// from the run's seeded randomness (so --seed replays it) and written to
// Params["schedule"] of the run folder before the first step runs.
func Random() runner.Scenario {
	s := base("random", "a random fault schedule drawn from the seed (kill, pause, term, crash, network faults, SQL error packets, Redis restart, the database server's restart in place, clock skew, a held finalize COMMIT); the run folder names it", 3, 800)
	s.Rate = 100 // events keep coming for the whole schedule (at most 8 s)
	s.ConsumerLeavesRows = true
	s.Needs = []runner.Needs{runner.NeedServerCtl}
	s.Params["schedule"] = "drawn at run time from the seed"
	s.Script = func(ctx context.Context, n *nemesis.Nemesis) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		steps := RandomSchedule(n.Rand(), RandomSpace(len(n.Slots()), n))
		n.Note("schedule", steps.Line()) // in results.json and on the page
		return steps.Run(ctx, n)
	}
	return s
}
