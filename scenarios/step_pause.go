package scenarios

import (
	"context"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/nemesis"
)

// Pause SIGSTOPs the instance in Slot for For, then SIGCONTs it.
type Pause struct {
	Slot string // "d1".."dN"
	For  time.Duration
}

// String is "pause <Slot> for <For>".
func (s Pause) String() string { return fmt.Sprintf("pause %s for %s", s.Slot, s.For) }

// Validate wants a slot of the run and a positive duration.
func (s Pause) Validate(slots int) error {
	return invalid(s, validSlot(s.Slot, slots, false), positive(s.For))
}

// Nominal is For.
func (s Pause) Nominal() time.Duration { return s.For }

func (s Pause) run(ctx context.Context, n *nemesis.Nemesis) error { return n.Pause(ctx, s.Slot, s.For) }

// pauseFor are the pauses the generator draws, shortest first; 3 s is past
// the 2 s lease.
var pauseFor = []time.Duration{200 * time.Millisecond, time.Second, 3 * time.Second}

func (Pause) available(Space) bool { return true }

func (Pause) draw(c Chooser, sp Space) Step {
	return Pause{Slot: drawSlot(c, sp), For: pick(c, "for", pauseFor)}
}
