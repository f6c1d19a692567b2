package scenarios

import (
	"context"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/nemesis"
)

// Kill SIGKILLs the instance in Slot and restarts it after For.
type Kill struct {
	Slot string // "d1".."dN"
	For  time.Duration
}

// String is "kill <Slot> for <For>".
func (s Kill) String() string { return fmt.Sprintf("kill %s for %s", s.Slot, s.For) }

// Validate wants a slot of the run and a positive down time.
func (s Kill) Validate(slots int) error {
	return invalid(s, validSlot(s.Slot, slots, false), positive(s.For))
}

// Nominal is the down time and a restart.
func (s Kill) Nominal() time.Duration { return s.For + typicalRestart }

func (s Kill) run(ctx context.Context, n *nemesis.Nemesis) error { return n.Kill(ctx, s.Slot, s.For) }

// killDown are the down times the generator draws, shortest first.
var killDown = []time.Duration{100 * time.Millisecond, 300 * time.Millisecond, time.Second}

func (Kill) available(Space) bool { return true }

func (Kill) draw(c Chooser, sp Space) Step {
	return Kill{Slot: drawSlot(c, sp), For: pick(c, "down", killDown)}
}
