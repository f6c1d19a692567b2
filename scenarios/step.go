package scenarios

import (
	"context"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/runner"
)

// Step is one action of a schedule, written so a person can read it. Each
// kind is a type of its own, in a file of its own (step_wait.go,
// step_kill.go, ... step_produce.go), and the generator's menu (random.go)
// lists each once. A step ends its own fault: it restarts what it killed
// and removes what it added.
type Step interface {
	// String says what the step does, e.g. "kill d2 for 300ms".
	String() string
	// Validate says what is wrong with the step for a run with slots
	// instances, naming the step.
	Validate(slots int) error
	// Nominal is how long the step keeps the schedule busy when all goes
	// to plan: its duration plus a typical restart. A crash step counts its
	// whole deadline.
	Nominal() time.Duration
	// run executes the step through the nemesis.
	run(ctx context.Context, n *nemesis.Nemesis) error
}

// needer is a step that needs something of the adapter or the environment.
type needer interface {
	need() runner.Needs
}

// The steps that need something: Schedule.Scenario adds it to the
// scenario's needs.
var (
	_ needer = Crash{}
	_ needer = Restart{}
	_ needer = Skew{}
)

// typicalRestart is what Nominal counts for bringing a process or a server
// back.
const typicalRestart = 300 * time.Millisecond

// crashDeadline is how long a crash step waits for its point to be hit.
const crashDeadline = 3 * time.Second

// termTimeout is how long a graceful stop may take before it is a harness
// error.
const termTimeout = 10 * time.Second

// invalid returns the first non-nil problem, naming the step.
func invalid(s Step, problems ...error) error {
	for _, err := range problems {
		if err != nil {
			return fmt.Errorf("step %q: %w", s.String(), err)
		}
	}
	return nil
}

// validSlot wants one of d1..d<slots>, or "" when every slot is allowed.
func validSlot(slot string, slots int, allowEvery bool) error {
	if slot == "" && allowEvery {
		return nil
	}
	for i := 1; i <= slots; i++ {
		if slot == fmt.Sprintf("d%d", i) {
			return nil
		}
	}
	return fmt.Errorf("slot %q: want d1..d%d", slot, slots)
}

// validServer wants "mysql" or "redis"; what names what is checked.
func validServer(what, dep string) error {
	if dep != "redis" && dep != "mysql" {
		return fmt.Errorf("%s %q: want mysql or redis", what, dep)
	}
	return nil
}

func positive(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("duration %s: want > 0", d)
	}
	return nil
}

func validNth(nth int) error {
	if nth < 1 {
		return fmt.Errorf("hit %d: want >= 1", nth)
	}
	return nil
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
