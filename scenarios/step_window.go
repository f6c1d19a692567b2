package scenarios

import (
	"context"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/nemesis"
)

// Window crashes the instance in Slot between a BullMQ add and its
// finalize, on its Nth batch, trapped from outside (no crash points
// needed), waiting crashDeadline.
type Window struct {
	Slot string // "d1".."dN"
	Nth  int    // >= 1
}

// String is "crash <Slot> between add and finalize (<Nth> batch)".
func (s Window) String() string {
	return fmt.Sprintf("crash %s between add and finalize (%s batch)", s.Slot, ordinal(s.Nth))
}

// Validate wants a slot of the run and a batch from 1.
func (s Window) Validate(slots int) error {
	return invalid(s, validSlot(s.Slot, slots, false), validNth(s.Nth))
}

// Nominal is the whole deadline and a restart.
func (s Window) Nominal() time.Duration { return crashDeadline + typicalRestart }

func (s Window) run(ctx context.Context, n *nemesis.Nemesis) error {
	return n.CrashWindow(ctx, s.Slot, s.Nth, crashDeadline)
}

// available: the generator crashes at named points when it can, since
// those land on the same hit every run, and in the window otherwise.
func (Window) available(sp Space) bool { return !sp.CrashPoints }

func (Window) draw(c Chooser, sp Space) Step {
	return Window{Slot: drawSlot(c, sp), Nth: 1 + c.Choose("nth", 3)}
}
