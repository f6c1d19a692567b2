package scenarios

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/contract"
	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/runner"
)

// Crash crashes the instance in Slot at the named crash Point on its Nth
// hit of it (the adapter must have crash points), waiting crashDeadline.
type Crash struct {
	Slot  string // "d1".."dN"
	Point contract.CrashPoint
	Nth   int // >= 1
}

// String is "crash <Slot> at <Point> (<Nth> hit)".
func (s Crash) String() string {
	return fmt.Sprintf("crash %s at %s (%s hit)", s.Slot, s.Point, ordinal(s.Nth))
}

// Validate wants a known point, a slot of the run and a hit from 1.
func (s Crash) Validate(slots int) error {
	var point error
	if !s.Point.Known() {
		point = fmt.Errorf("crash point %q: want one of %s", s.Point, strings.Join(contract.CrashPointNames(), ", "))
	}
	return invalid(s, point, validSlot(s.Slot, slots, false), validNth(s.Nth))
}

// Nominal is the whole deadline and a restart.
func (s Crash) Nominal() time.Duration { return crashDeadline + typicalRestart }

func (s Crash) need() runner.Needs { return runner.NeedCrashPoints }

func (s Crash) run(ctx context.Context, n *nemesis.Nemesis) error {
	return n.CrashAt(ctx, s.Slot, s.Point, s.Nth, crashDeadline)
}

func (Crash) available(sp Space) bool { return sp.CrashPoints }

func (Crash) draw(c Chooser, sp Space) Step {
	return Crash{Slot: drawSlot(c, sp), Point: pick(c, "point", contract.CrashPoints()), Nth: 1 + c.Choose("nth", 3)}
}
