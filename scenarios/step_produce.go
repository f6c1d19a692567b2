package scenarios

import (
	"context"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/nemesis"
)

// Produce commits Events more events, poison ones (every permanent-failure
// kind) when Poison is set. It is not timed: it sets the workload, which
// the runner's producer commits over the schedule (Schedule.Scenario).
type Produce struct {
	Events int // >= 1
	Poison bool
}

// String is "produce <Events> valid|poison events".
func (s Produce) String() string {
	kind := "valid"
	if s.Poison {
		kind = "poison"
	}
	return fmt.Sprintf("produce %d %s events", s.Events, kind)
}

// Validate wants at least one event.
func (s Produce) Validate(int) error {
	var events error
	if s.Events < 1 {
		events = fmt.Errorf("events %d: want at least 1", s.Events)
	}
	return invalid(s, events)
}

// Nominal is 0: the step takes no time of the schedule.
func (s Produce) Nominal() time.Duration { return 0 }

func (s Produce) run(context.Context, *nemesis.Nemesis) error { return nil }

// batches are the produce sizes the generator draws, smallest first.
var batches = []int{10, 25, 50}

func (Produce) available(sp Space) bool { return sp.Produce }

func (Produce) draw(c Chooser, _ Space) Step {
	return Produce{Events: pick(c, "events", batches), Poison: c.Choose("poison", 2) == 1}
}
