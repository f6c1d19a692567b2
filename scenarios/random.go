package scenarios

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/contract"
	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// Step operations. A schedule runs its steps one after another; each step
// ends its own fault (restarts what it killed, removes what it added).
const (
	OpWait    = "wait"    // do nothing for For
	OpKill    = "kill"    // SIGKILL Slot, restart it after For
	OpPause   = "pause"   // SIGSTOP Slot for For, then SIGCONT
	OpTerm    = "term"    // SIGTERM Slot (graceful), restart it after For
	OpCrash   = "crash"   // crash Slot at the named Point on its Nth hit (needs crash points)
	OpWindow  = "window"  // crash Slot between a BullMQ add and its finalize, on its Nth batch
	OpNetwork = "network" // Fault on Dep, on Slot's link ("" = every link), for For
	OpRestart = "restart" // kill the Dep server, start it again after For
	OpProduce = "produce" // commit Events more events (Poison: invalid ones)
)

// ScheduleBudget bounds a generated schedule's nominal time, so the load
// phase stays short and every outage stays inside the retry budget of
// runner.DefaultTuning (six attempts, backoff 100 ms doubling to 2 s).
const ScheduleBudget = 8 * time.Second

// crashDeadline is how long a crash step waits for its point to be hit.
const crashDeadline = 3 * time.Second

// termTimeout is how long a graceful stop may take before it is a harness
// error.
const termTimeout = 10 * time.Second

// Step is one action of a schedule, written so a person can read it
// (String). Only the fields of its Op are set.
type Step struct {
	Op      string
	Slot    string          // instance slot, "d1".."dN"; "" on a network step: every link
	Dep     string          // "mysql" or "redis" (network, restart)
	Fault   faultproxy.Kind // network
	Point   string          // crash: the failpoint name
	Nth     int             // crash: the hit; window: the batch
	For     time.Duration   // how long the fault lasts (down time for kill, term, restart)
	Latency time.Duration   // network latency (jitter is a third of it)
	Rate    int             // network bandwidth in KB/s
	Slice   int             // network slicer: average slice in bytes
	Times   int             // network lost reply: how many replies to lose
	Events  int             // produce: how many
	Poison  bool            // produce: poison events (every permanent-failure kind)
}

// String says what the step does, e.g. "kill d2 for 300ms".
func (s Step) String() string {
	switch s.Op {
	case OpWait:
		return "wait " + s.For.String()
	case OpKill:
		return fmt.Sprintf("kill %s for %s", s.Slot, s.For)
	case OpPause:
		return fmt.Sprintf("pause %s for %s", s.Slot, s.For)
	case OpTerm:
		return fmt.Sprintf("term %s (down %s)", s.Slot, s.For)
	case OpCrash:
		return fmt.Sprintf("crash %s at %s (%s hit)", s.Slot, s.Point, ordinal(s.Nth))
	case OpWindow:
		return fmt.Sprintf("crash %s between add and finalize (%s batch)", s.Slot, ordinal(s.Nth))
	case OpNetwork:
		return s.networkString()
	case OpRestart:
		return fmt.Sprintf("restart %s (down %s)", s.Dep, s.For)
	case OpProduce:
		kind := "valid"
		if s.Poison {
			kind = "poison"
		}
		return fmt.Sprintf("produce %d %s events", s.Events, kind)
	}
	return fmt.Sprintf("unknown step %q", s.Op)
}

func (s Step) networkString() string {
	what := string(s.Fault)
	switch s.Fault {
	case kindLatency:
		what = "latency " + s.Latency.String()
	case kindBandwidth:
		what = fmt.Sprintf("bandwidth %dKB/s", s.Rate)
	case kindSlicer:
		what = fmt.Sprintf("slicer %dB", s.Slice)
	case kindLostRedis, kindLostMySQL:
		what = fmt.Sprintf("%s x%d", s.Fault, s.Times)
	}
	on := "every link"
	if s.Slot != "" {
		on = s.Slot
	}
	return fmt.Sprintf("%s %s on %s for %s", s.Dep, what, on, s.For)
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}

// The kinds a network step draws.
var (
	kindLatency   = faultproxy.Latency{}.Kind()
	kindReset     = faultproxy.Reset{}.Kind()
	kindDown      = faultproxy.Down{}.Kind()
	kindBlackhole = faultproxy.Blackhole{}.Kind()
	kindBandwidth = faultproxy.Bandwidth{}.Kind()
	kindSlicer    = faultproxy.Slicer{}.Kind()
	kindLostRedis = faultproxy.LostReplyRedisAdd{}.Kind()
	kindLostMySQL = faultproxy.LostReplyMySQLCommit{}.Kind()
)

// NetFault is the fault proxy's description of a network step.
func (s Step) NetFault() faultproxy.Fault {
	switch s.Fault {
	case kindLatency:
		return faultproxy.Latency{Latency: s.Latency, Jitter: (s.Latency / 3).Truncate(time.Millisecond)}
	case kindReset:
		return faultproxy.Reset{}
	case kindDown:
		return faultproxy.Down{}
	case kindBlackhole:
		return faultproxy.Blackhole{}
	case kindBandwidth:
		return faultproxy.Bandwidth{Rate: s.Rate}
	case kindSlicer:
		return faultproxy.Slicer{Average: s.Slice, Size: s.Slice / 2, Delay: 100}
	case kindLostRedis:
		return faultproxy.LostReplyRedisAdd{Times: s.Times}
	case kindLostMySQL:
		return faultproxy.LostReplyMySQLCommit{Times: s.Times}
	}
	return nil
}

// Nominal is how long the step keeps the schedule busy when all goes to
// plan: its duration plus a typical restart. A crash step counts its whole
// deadline.
func (s Step) Nominal() time.Duration {
	const restart = 300 * time.Millisecond
	switch s.Op {
	case OpKill, OpTerm, OpRestart:
		return s.For + restart
	case OpCrash, OpWindow:
		return crashDeadline + restart
	case OpProduce:
		return 0
	}
	return s.For
}

// Validate says what is wrong with the step for a run with slots instances.
func (s Step) Validate(slots int) error {
	if err := s.validateFields(slots); err != nil {
		return fmt.Errorf("step %q: %w", s.String(), err)
	}
	return nil
}

func (s Step) validateFields(slots int) error {
	slotOK := func(allowAll bool) error {
		if s.Slot == "" && allowAll {
			return nil
		}
		for i := 1; i <= slots; i++ {
			if s.Slot == fmt.Sprintf("d%d", i) {
				return nil
			}
		}
		return fmt.Errorf("slot %q: want d1..d%d", s.Slot, slots)
	}
	switch s.Op {
	case OpWait:
		return positive(s.For)
	case OpKill, OpPause, OpTerm:
		if err := slotOK(false); err != nil {
			return err
		}
		return positive(s.For)
	case OpCrash:
		if !contract.CrashPoint(s.Point).Known() {
			return fmt.Errorf("crash point %q: want one of %s", s.Point, strings.Join(contract.CrashPointNames(), ", "))
		}
		return nthAndSlot(s.Nth, slotOK(false))
	case OpWindow:
		return nthAndSlot(s.Nth, slotOK(false))
	case OpNetwork:
		return s.validateNetwork(slotOK(true))
	case OpRestart:
		if s.Dep != "redis" && s.Dep != "mysql" {
			return fmt.Errorf("server %q: want mysql or redis", s.Dep)
		}
		return positive(s.For)
	case OpProduce:
		if s.Events < 1 {
			return fmt.Errorf("events %d: want at least 1", s.Events)
		}
		return nil
	}
	return fmt.Errorf("unknown op: want one of %s", strings.Join(ops, ", "))
}

var ops = []string{OpWait, OpKill, OpPause, OpTerm, OpCrash, OpWindow, OpNetwork, OpRestart, OpProduce}

func (s Step) validateNetwork(slotErr error) error {
	if s.Dep != "redis" && s.Dep != "mysql" {
		return fmt.Errorf("dependency %q: want mysql or redis", s.Dep)
	}
	if slotErr != nil {
		return slotErr
	}
	if (s.Fault == kindLostRedis && s.Dep != "redis") || (s.Fault == kindLostMySQL && s.Dep != "mysql") {
		return fmt.Errorf("%s cannot act on %s", s.Fault, s.Dep)
	}
	f := s.NetFault()
	if f == nil {
		return fmt.Errorf("fault %q: want one of %s", s.Fault, kindNames())
	}
	if err := f.Validate(); err != nil {
		return err
	}
	return positive(s.For)
}

func kindNames() string {
	var names []string
	for _, k := range netKinds["mysql"] {
		names = append(names, string(k))
	}
	return strings.Join(append(names, string(kindLostRedis)), ", ")
}

func positive(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("duration %s: want > 0", d)
	}
	return nil
}

func nthAndSlot(nth int, slotErr error) error {
	if slotErr != nil {
		return slotErr
	}
	if nth < 1 {
		return fmt.Errorf("hit %d: want >= 1", nth)
	}
	return nil
}

// Schedule is a fault schedule: steps run one after another during the
// load phase. Produce steps are not timed: they set the workload (how many
// events of which kind), which the runner's producer commits at an even
// rate over the schedule's nominal time.
type Schedule []Step

// String numbers the steps, one a line.
func (s Schedule) String() string {
	if len(s) == 0 {
		return "(no steps)"
	}
	lines := make([]string, len(s))
	for i, st := range s {
		lines[i] = fmt.Sprintf("%d. %s", i+1, st)
	}
	return strings.Join(lines, "\n")
}

// Line is String on one line, for a run's parameters.
func (s Schedule) Line() string { return strings.ReplaceAll(s.String(), "\n", "; ") }

// Nominal is the schedule's time when all goes to plan.
func (s Schedule) Nominal() time.Duration {
	var d time.Duration
	for _, st := range s {
		d += st.Nominal()
	}
	return d
}

// Fit keeps the steps, in order, that fit in budget: a step that would end
// past it is left out.
func (s Schedule) Fit(budget time.Duration) Schedule {
	var out Schedule
	var used time.Duration
	for _, st := range s {
		if used+st.Nominal() > budget {
			continue
		}
		used += st.Nominal()
		out = append(out, st)
	}
	return out
}

// Validate reports the first bad step, numbered as String numbers it.
func (s Schedule) Validate(slots int) error {
	for i, st := range s {
		if err := st.Validate(slots); err != nil {
			return fmt.Errorf("schedule step %d: %w", i+1, err)
		}
	}
	return nil
}

// Scenario is base with this schedule: its workload from the produce steps
// (base's events and mix when there are none), committed at an even rate
// over the schedule's nominal time, its needs from the steps, and the
// schedule itself in Params["schedule"].
func (s Schedule) Scenario(name string, base runner.Scenario) runner.Scenario {
	sc := base
	sc.Name = name
	sc.Params = map[string]string{}
	for k, v := range base.Params {
		sc.Params[k] = v
	}
	if valid, poison := s.produced(); valid+poison > 0 {
		sc.Events = valid + poison
		p := poison // a weight per poison kind: together they make poison/(valid+poison)
		sc.Mix = workload.Mix{Valid: 4 * valid, UnknownType: p, MissingJob: p, QueueDenied: p, IllegalJobID: p}
	}
	span := s.Nominal()
	if span < time.Second {
		span = time.Second
	}
	sc.Rate = float64(sc.Events) / span.Seconds()
	sc.Needs = append(append([]runner.Needs(nil), base.Needs...), s.needs()...)
	sc.Params["schedule"] = s.Line()
	steps := append(Schedule(nil), s...)
	slots := sc.Instances
	sc.Script = func(ctx context.Context, n *runner.Nemesis) error {
		if err := steps.Validate(slots); err != nil {
			return err
		}
		return steps.Run(ctx, n)
	}
	return sc
}

func (s Schedule) produced() (valid, poison int) {
	for _, st := range s {
		if st.Op != OpProduce {
			continue
		}
		if st.Poison {
			poison += st.Events
		} else {
			valid += st.Events
		}
	}
	return valid, poison
}

func (s Schedule) needs() []runner.Needs {
	var out []runner.Needs
	seen := map[runner.Needs]bool{}
	for _, st := range s {
		var n runner.Needs
		switch st.Op {
		case OpCrash:
			n = runner.NeedCrashPoints
		case OpRestart:
			n = runner.NeedServerCtl
		default:
			continue
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Run executes the steps in order through the nemesis.
func (s Schedule) Run(ctx context.Context, n *runner.Nemesis) error {
	for i, st := range s {
		if err := st.run(ctx, n); err != nil {
			return fmt.Errorf("schedule step %d (%s): %w", i+1, st, err)
		}
	}
	return nil
}

func (s Step) run(ctx context.Context, n *runner.Nemesis) error {
	switch s.Op {
	case OpWait:
		return n.Sleep(ctx, s.For)
	case OpKill:
		return n.Kill(ctx, s.Slot, s.For)
	case OpPause:
		return n.Pause(ctx, s.Slot, s.For)
	case OpTerm:
		return n.Term(ctx, s.Slot, termTimeout, s.For)
	case OpCrash:
		return n.CrashAt(ctx, s.Slot, contract.CrashPoint(s.Point), s.Nth, crashDeadline)
	case OpWindow:
		return n.CrashWindow(ctx, s.Slot, s.Nth, crashDeadline)
	case OpNetwork:
		return n.Network(ctx, s.Dep, s.Slot, s.NetFault(), s.For)
	case OpRestart:
		return n.RestartServer(ctx, s.Dep, s.For)
	case OpProduce:
		return nil // the workload: see Schedule.Scenario
	}
	return fmt.Errorf("unknown op %q", s.Op)
}

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
	Produce      bool // produce steps (only before a run: see Schedule.Scenario)
}

// The generator's choices, simplest (shortest) first.
var (
	waitFor    = []time.Duration{100 * time.Millisecond, 500 * time.Millisecond, time.Second}
	killDown   = []time.Duration{100 * time.Millisecond, 300 * time.Millisecond, time.Second}
	pauseFor   = []time.Duration{200 * time.Millisecond, time.Second, 3 * time.Second} // 3 s: past the 2 s lease
	termDown   = []time.Duration{100 * time.Millisecond, 500 * time.Millisecond}
	netFor     = []time.Duration{300 * time.Millisecond, time.Second, 2 * time.Second} // outages stay inside the retry budget
	latencies  = []time.Duration{50 * time.Millisecond, 150 * time.Millisecond}
	rates      = []int{64, 16}
	slices     = []int{64, 8}
	restartFor = []time.Duration{300 * time.Millisecond, time.Second}
	batches    = []int{10, 25, 50}
	netKinds   = map[string][]faultproxy.Kind{
		"mysql": {kindLatency, kindReset, kindDown, kindBlackhole, kindBandwidth, kindSlicer, kindLostMySQL},
		"redis": {kindLatency, kindReset, kindDown, kindBlackhole, kindBandwidth, kindSlicer, kindLostRedis},
	}
)

// Network steps are chosen as one op per dependency, so they come up as
// often as process faults.
const (
	choiceMySQLNet = "network-mysql"
	choiceRedisNet = "network-redis"
)

// opsIn lists the op choices a space allows, simplest first, since a
// shrinker lowers each choice toward the first entry: doing nothing, then
// the crash that lands at a named point (or, without crash points, in the
// add-to-finalize window) on the same hit every run, then the signals whose
// landing depends on timing. A failure found with a SIGKILL that happened to
// land in the window thus shrinks toward the crash that lands there every
// time, which replays, rather than toward a schedule that fails by luck.
func opsIn(sp Space) []string {
	out := []string{OpWait}
	if sp.CrashPoints {
		out = append(out, OpCrash)
	} else {
		out = append(out, OpWindow)
	}
	out = append(out, OpKill, OpPause, OpTerm)
	if sp.RestartRedis {
		out = append(out, OpRestart)
	}
	if sp.Produce {
		out = append(out, OpProduce)
	}
	return append(out, choiceMySQLNet, choiceRedisNet)
}

// DrawStep draws one step from the space. Every duration is bounded so the
// reference must keep every invariant: outages end inside the retry budget,
// one instance at most is down at a time, crashes only where the adapter
// can crash.
func DrawStep(c Chooser, sp Space) Step {
	all := opsIn(sp)
	op := all[c.Choose("op", len(all))]
	slot := func() string { return fmt.Sprintf("d%d", 1+c.Choose("slot", sp.Slots)) }
	switch op {
	case OpWait:
		return Step{Op: op, For: pick(c, "for", waitFor)}
	case OpKill:
		return Step{Op: op, Slot: slot(), For: pick(c, "down", killDown)}
	case OpPause:
		return Step{Op: op, Slot: slot(), For: pick(c, "for", pauseFor)}
	case OpTerm:
		return Step{Op: op, Slot: slot(), For: pick(c, "down", termDown)}
	case OpCrash:
		return Step{Op: op, Slot: slot(), Point: pick(c, "point", contract.CrashPointNames()), Nth: 1 + c.Choose("nth", 3)}
	case OpWindow:
		return Step{Op: op, Slot: slot(), Nth: 1 + c.Choose("nth", 3)}
	case choiceMySQLNet:
		return drawNetwork(c, sp, "mysql")
	case choiceRedisNet:
		return drawNetwork(c, sp, "redis")
	case OpRestart:
		return Step{Op: op, Dep: "redis", For: pick(c, "down", restartFor)}
	}
	return Step{Op: OpProduce, Events: pick(c, "events", batches), Poison: c.Choose("poison", 2) == 1}
}

func drawNetwork(c Chooser, sp Space, dep string) Step {
	s := Step{Op: OpNetwork, Dep: dep}
	if k := c.Choose("link", sp.Slots+1); k > 0 {
		s.Slot = fmt.Sprintf("d%d", k)
	}
	s.Fault = pick(c, "fault", netKinds[s.Dep])
	switch s.Fault {
	case kindLatency:
		s.Latency = pick(c, "latency", latencies)
	case kindBandwidth:
		s.Rate = pick(c, "rate", rates)
	case kindSlicer:
		s.Slice = pick(c, "slice", slices)
	case kindLostRedis, kindLostMySQL:
		s.Times = 1 + c.Choose("times", 2)
	}
	s.For = pick(c, "for", netFor)
	return s
}

func pick[T any](c Chooser, label string, list []T) T { return list[c.Choose(label, len(list))] }

// maxRandomSteps bounds a generated schedule's length before Fit.
const maxRandomSteps = 6

// RandomSchedule draws a schedule of fault steps (no produce steps: the
// workload is fixed before a run starts) for slots instances, with crash
// points when the adapter has them, fitted into ScheduleBudget.
func RandomSchedule(r *rand.Rand, slots int, crashPoints bool) Schedule {
	c := RandChooser(r)
	sp := Space{Slots: slots, CrashPoints: crashPoints, RestartRedis: true}
	n := 1 + c.Choose("steps", maxRandomSteps)
	s := make(Schedule, 0, n)
	for i := 0; i < n; i++ {
		s = append(s, DrawStep(c, sp))
	}
	return s.Fit(ScheduleBudget)
}

// Random is the "random" catalog entry: at run time its schedule is drawn
// from the run's seeded randomness (so --seed replays it) and written to
// Params["schedule"] of the run folder before the first step runs.
func Random() runner.Scenario {
	s := base("random", "a random fault schedule drawn from the seed (kill, pause, term, crash, network faults, Redis restart); the run folder names it", 3, 800)
	s.Rate = 100 // events keep coming for the whole schedule (at most 8 s)
	s.ConsumerLeavesRows = true
	s.Needs = []runner.Needs{runner.NeedServerCtl}
	s.Params["schedule"] = "drawn at run time from the seed"
	s.Script = func(ctx context.Context, n *runner.Nemesis) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		steps := RandomSchedule(n.Rand(), len(n.Slots()), n.HasCrashPoints())
		n.Note("schedule", steps.Line()) // in results.json and on the page
		return steps.Run(ctx, n)
	}
	return s
}
