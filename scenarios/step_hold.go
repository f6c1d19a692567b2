package scenarios

import (
	"context"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/nemesis"
)

// Hold holds the COMMIT of a finalize of the instance in Slot for For on
// its database link, then lets it go and stays Settle, as zombie's
// finalize trap does (Nemesis.FinalizeTrap): the trap springs when Redis
// shows a job added for an event the instance holds, so the statements of
// that event's finalize have run and their row locks are held. A hold past
// the lease makes the instance a zombie that finishes late. No crash points
// are needed; the trap waits crashDeadline for its hit.
type Hold struct {
	Slot   string // "d1".."dN"
	For    time.Duration
	Settle time.Duration
}

// String is "hold <Slot>'s finalize commit for <For>".
func (s Hold) String() string {
	return fmt.Sprintf("hold %s's finalize commit for %s", s.Slot, s.For)
}

// Validate wants a slot of the run, a positive hold and a settle time that
// is not negative.
func (s Hold) Validate(slots int) error {
	var settle error
	if s.Settle < 0 {
		settle = fmt.Errorf("settle %s: want >= 0", s.Settle)
	}
	return invalid(s, validSlot(s.Slot, slots, false), positive(s.For), settle)
}

// Nominal is the trap's whole deadline, the hold and the settle time.
func (s Hold) Nominal() time.Duration { return crashDeadline + s.For + s.Settle }

func (s Hold) run(ctx context.Context, n *nemesis.Nemesis) error {
	_, err := n.FinalizeTrap(ctx, s.Slot, s.For, s.Settle, crashDeadline)
	return err
}

// The holds the generator draws, shortest first: inside the default lease
// (2 s), then 7/4 of it, zombie's hold, past it.
var (
	holdFor    = []time.Duration{time.Second, 3500 * time.Millisecond}
	holdSettle = time.Second
)

// available: where the space holds commits (the store's COMMIT on a
// link of the run).
func (Hold) available(sp Space) bool { return sp.HoldCommits }

func (Hold) draw(c Chooser, sp Space) Step {
	return Hold{Slot: drawSlot(c, sp), For: pick(c, "hold", holdFor), Settle: holdSettle}
}
