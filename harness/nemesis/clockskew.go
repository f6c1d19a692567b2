package nemesis

import (
	"context"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/clockskew"
)

// FaultClockSkew is the kind of a clock-skew fault window.
const FaultClockSkew = "clock-skew"

// CanSkewClock says whether the adapter declares a clock the harness can
// skew here (SkewClock would not refuse it).
func (n *Nemesis) CanSkewClock() bool { return clockskew.Missing(n.caps.Clock) == "" }

// SkewClock restarts the slot's instance with its wall clock off by offset
// (negative: behind the database), keeps it so for d, then restarts it with
// the true clock. The skew goes to that instance only, through the
// mechanism the adapter declares (harness/clockskew); the fault window
// (kind clock-skew, target the slot) records the offset, the mechanism and
// the skewed instance's id, which is what the checkers read. A restart is a
// graceful SIGTERM when the adapter declares one, else a SIGKILL.
func (n *Nemesis) SkewClock(ctx context.Context, slot string, offset, d time.Duration) error {
	vars, err := clockskew.Env(n.caps.Clock, offset)
	if err != nil {
		return fmt.Errorf("skew %s: %w", slot, err)
	}
	if err := n.restartWith(ctx, slot, vars); err != nil {
		return fmt.Errorf("skew %s: %w", slot, err)
	}
	params := map[string]string{"offset": offset.String(), "mechanism": n.caps.Clock, "for": d.String(), "instance": n.instanceOf(slot)}
	end := n.window(FaultClockSkew, slot, params)
	sleepErr := n.Sleep(ctx, d)
	// The window closes before the restart: claims the skewed instance
	// still holds were all made under the skew.
	end()
	if err := n.restartWith(context.WithoutCancel(ctx), slot, nil); err != nil {
		return fmt.Errorf("unskew %s: %w", slot, err)
	}
	return sleepErr
}

// restartWith stops the slot's instance and starts it again with the
// process variables vars (nil: none).
func (n *Nemesis) restartWith(ctx context.Context, slot string, vars []string) error {
	var err error
	if n.caps.GracefulTerm {
		_, err = n.sup.Term(slot, 10*time.Second)
	} else {
		err = n.sup.Kill(slot)
	}
	if err != nil {
		return err
	}
	n.sup.SetProcessEnv(slot, vars)
	return n.start(ctx, slot, n.slotEnv[slot])
}

// instanceOf is the id of the slot's live instance ("" when none).
func (n *Nemesis) instanceOf(slot string) string {
	if p, ok := n.sup.Current(slot); ok {
		return p.ID
	}
	return ""
}
