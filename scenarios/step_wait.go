package scenarios

import (
	"context"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/nemesis"
)

// Wait does nothing for For.
type Wait struct {
	For time.Duration
}

// String is "wait <For>".
func (s Wait) String() string { return "wait " + s.For.String() }

// Validate wants a positive duration.
func (s Wait) Validate(int) error { return invalid(s, positive(s.For)) }

// Nominal is For.
func (s Wait) Nominal() time.Duration { return s.For }

func (s Wait) run(ctx context.Context, n *nemesis.Nemesis) error { return n.Sleep(ctx, s.For) }

// waitFor are the waits the generator draws, shortest first.
var waitFor = []time.Duration{100 * time.Millisecond, 500 * time.Millisecond, time.Second}

func (Wait) available(Space) bool { return true }

func (Wait) draw(c Chooser, _ Space) Step { return Wait{For: pick(c, "for", waitFor)} }
