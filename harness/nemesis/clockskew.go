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
	return n.SkewClockFor(ctx, slot, offset, d, 0)
}

// SkewClockFor is SkewClock that keeps the skew past d until Redis has shown
// the jobs of claims (0: none) events the skewed instance held, for up to
// twice d more, or until the workload is over. An instance may win few
// claim races for long (SKIP LOCKED hands each batch to whichever instance
// polls first, and a poll just behind another's wins nothing), and a skew
// it claimed nothing under proves nothing: while short of claims, a skewed
// instance that showed no job of its own for rerollAfter (doubled at each
// restart that brought none) is restarted, skewed again, in a new window,
// at a new phase.
func (n *Nemesis) SkewClockFor(ctx context.Context, slot string, offset, d time.Duration, claims int) error {
	vars, err := clockskew.Env(n.caps.Clock, offset)
	if err != nil {
		return fmt.Errorf("skew %s: %w", slot, err)
	}
	skew := func() (func(), error) {
		if err := n.restartWith(ctx, slot, vars); err != nil {
			return nil, fmt.Errorf("skew %s: %w", slot, err)
		}
		params := map[string]string{"offset": offset.String(), "mechanism": n.caps.Clock, "for": d.String(), "instance": n.instanceOf(slot)}
		return n.window(FaultClockSkew, slot, params), nil
	}
	end, err := skew()
	if err != nil {
		return err
	}
	holdErr := n.holdSkew(ctx, slot, d, claims, &end, skew)
	// The window closes before the restart: claims the skewed instance
	// still holds were all made under the skew.
	end()
	if err := n.restartWith(context.WithoutCancel(ctx), slot, nil); err != nil {
		return fmt.Errorf("unskew %s: %w", slot, err)
	}
	return holdErr
}

// rerollAfter is how long a skewed instance short of claims may show no job
// of its own before it is restarted at a new phase. Each restart that
// brought no job doubles it: a process that needs longer to start than
// that (Node.js under libfaketime on a loaded machine) would otherwise be
// restarted before its first claim every time, and the skew would land
// nothing (CI saw 0 claims in 13 s).
const rerollAfter = 1500 * time.Millisecond

// holdSkew waits d, and then, while fewer than claims jobs of events the
// slot's skewed instances held were seen, up to 2d more or until the
// workload is over; *end closes the current window, and skew restarts the
// slot skewed in a new one.
func (n *Nemesis) holdSkew(ctx context.Context, slot string, d time.Duration, claims int, end *func(), skew func() (func(), error)) error {
	if claims <= 0 || n.obs == nil {
		return n.Sleep(ctx, d)
	}
	sub := n.obs.Subscribe(signalBuffer)
	defer sub.Close()
	m := newMatcher(n, slot, sub)
	seen, last, wait := 0, time.Now(), rerollAfter
	minEnd, maxEnd := time.Now().Add(d), time.Now().Add(3*d)
	tick := time.NewTicker(workloadPoll)
	defer tick.Stop()
	for {
		now := time.Now()
		switch {
		case !now.Before(maxEnd):
			return nil
		case !now.Before(minEnd) && (seen >= claims || n.workloadOver(ctx)):
			return nil
		case seen < claims && now.Sub(last) >= wait:
			(*end)()
			next, err := skew()
			if err != nil {
				*end = func() {}
				return err
			}
			*end, last, wait = next, time.Now(), 2*wait
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		case c, ok := <-sub.C:
			if !ok {
				return n.Sleep(ctx, time.Until(minEnd))
			}
			if _, held := m.match(ctx, c); held {
				seen++
				last, wait = time.Now(), rerollAfter
			}
		}
	}
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
