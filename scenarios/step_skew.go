package scenarios

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/nemesis"
	"github.com/outboxchaos/outboxchaos/harness/runner"
)

// Skew restarts the instance in Slot with its wall clock off by By
// (negative: behind the database) for For, then restarts it with the true
// clock, as clock-skew does (Nemesis.SkewClock). It needs the adapter's
// declared clock (NeedClockSkew).
type Skew struct {
	Slot string // "d1".."dN"
	By   time.Duration
	For  time.Duration
}

// String is "skew <Slot>'s clock by <By> for <For>".
func (s Skew) String() string {
	return fmt.Sprintf("skew %s's clock by %s for %s", s.Slot, s.By, s.For)
}

// Validate wants a slot of the run, an offset and a positive duration.
func (s Skew) Validate(slots int) error {
	var off error
	if s.By == 0 {
		off = errors.New("offset 0s: want a clock ahead (> 0) or behind (< 0)")
	}
	return invalid(s, validSlot(s.Slot, slots, false), off, positive(s.For))
}

// Nominal is the skewed time and two restarts (into the skew and out).
func (s Skew) Nominal() time.Duration { return s.For + 2*typicalRestart }

func (s Skew) need() runner.Needs { return runner.NeedClockSkew }

func (s Skew) run(ctx context.Context, n *nemesis.Nemesis) error {
	return n.SkewClock(ctx, s.Slot, s.By, s.For)
}

// The skews the generator draws, simplest first: behind the database by
// more than a lease (clock-skew's), then ahead of it.
var (
	skewBy  = []time.Duration{-10 * time.Second, 10 * time.Second}
	skewFor = []time.Duration{2 * time.Second, 4 * time.Second}
)

// available: only where the adapter declares a clock the harness can skew
// here.
func (Skew) available(sp Space) bool { return sp.SkewClock }

func (Skew) draw(c Chooser, sp Space) Step {
	return Skew{Slot: drawSlot(c, sp), By: pick(c, "by", skewBy), For: pick(c, "for", skewFor)}
}
