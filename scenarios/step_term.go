package scenarios

import (
	"context"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/nemesis"
)

// Term SIGTERMs the instance in Slot (a graceful stop, within termTimeout)
// and restarts it after For.
type Term struct {
	Slot string // "d1".."dN"
	For  time.Duration
}

// String is "term <Slot> (down <For>)".
func (s Term) String() string { return fmt.Sprintf("term %s (down %s)", s.Slot, s.For) }

// Validate wants a slot of the run and a positive down time.
func (s Term) Validate(slots int) error {
	return invalid(s, validSlot(s.Slot, slots, false), positive(s.For))
}

// Nominal is the down time and a restart.
func (s Term) Nominal() time.Duration { return s.For + typicalRestart }

func (s Term) run(ctx context.Context, n *nemesis.Nemesis) error {
	return n.Term(ctx, s.Slot, termTimeout, s.For)
}

// termDown are the down times the generator draws, shortest first.
var termDown = []time.Duration{100 * time.Millisecond, 500 * time.Millisecond}

func (Term) available(Space) bool { return true }

func (Term) draw(c Chooser, sp Space) Step {
	return Term{Slot: drawSlot(c, sp), For: pick(c, "down", termDown)}
}
