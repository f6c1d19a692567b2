package scenarios

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// ScheduleBudget bounds a generated schedule's nominal time, so the load
// phase stays short and every outage stays inside the retry budget of
// runner.DefaultTuning (six attempts, backoff 100 ms doubling to 2 s).
const ScheduleBudget = 8 * time.Second

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
		d += nominal(st)
	}
	return d
}

// nominal is st's Nominal; a nil step (which Validate reports) takes none.
func nominal(st Step) time.Duration {
	if st == nil {
		return 0
	}
	return st.Nominal()
}

// Fit keeps the steps, in order, that fit in budget: a step that would end
// past it is left out.
func (s Schedule) Fit(budget time.Duration) Schedule {
	var out Schedule
	var used time.Duration
	for _, st := range s {
		if used+nominal(st) > budget {
			continue
		}
		used += nominal(st)
		out = append(out, st)
	}
	return out
}

// Validate reports the first bad step, numbered as String numbers it.
func (s Schedule) Validate(slots int) error {
	for i, st := range s {
		if st == nil {
			return fmt.Errorf("schedule step %d: no step (nil)", i+1)
		}
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
	sc.Script = func(ctx context.Context, n *nemesis.Nemesis) error {
		if err := steps.Validate(slots); err != nil {
			return err
		}
		return steps.Run(ctx, n)
	}
	return sc
}

func (s Schedule) produced() (valid, poison int) {
	for _, st := range s {
		p, ok := st.(Produce)
		if !ok {
			continue
		}
		if p.Poison {
			poison += p.Events
		} else {
			valid += p.Events
		}
	}
	return valid, poison
}

func (s Schedule) needs() []runner.Needs {
	var out []runner.Needs
	seen := map[runner.Needs]bool{}
	for _, st := range s {
		nd, ok := st.(needer)
		if !ok {
			continue
		}
		n := nd.need()
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Run executes the steps in order through the nemesis.
func (s Schedule) Run(ctx context.Context, n *nemesis.Nemesis) error {
	for i, st := range s {
		if st == nil {
			return fmt.Errorf("schedule step %d: no step (nil)", i+1)
		}
		if err := st.run(ctx, n); err != nil {
			return fmt.Errorf("schedule step %d (%s): %w", i+1, st, err)
		}
	}
	return nil
}
