package nemesis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// PauseTrap makes a zombie of a black-box dispatcher where fencing matters:
// it arms the slot's instance (its Redis replies delayed, as for the window
// trap) and, when Redis shows a job created for an event the instance holds
// (claim held, add done, finalize not yet written), SIGSTOPs it for d (past
// its lease, so another instance takes the claim over), then SIGCONTs it and
// keeps the schedule here for settle while the zombie wakes and tries to
// finalize. p.While, when set, runs while the instance is stopped. It
// re-arms until a pause lands or deadline passes. A landed
// pause is a "pause-trap" fault, each miss a "pause-trap-miss". It reports
// whether a pause landed.
func (n *Nemesis) PauseTrap(ctx context.Context, p Pause, deadline time.Duration) (bool, error) {
	slot := p.Slot
	if p.Point != "" || p.OnHit != 0 {
		return false, fmt.Errorf("pause trap %s: the trap springs on an add seen in Redis; it takes no Point or OnHit", slot)
	}
	if p.For <= 0 {
		return false, fmt.Errorf("pause trap %s: For must be positive (got %s)", slot, p.For)
	}
	if n.obs == nil {
		return false, fmt.Errorf("pause trap %s: no Redis observer to signal job creations", slot)
	}
	landed, err := rearm(ctx, 1, deadline, func(left time.Duration) (tryResult, error) {
		hit, instance, m, err := n.armForPause(ctx, slot, left)
		switch {
		case err != nil:
			return tryResult{}, err
		case hit.Job != "":
			return tryResult{landed: true, signals: m.seen}, n.zombie(ctx, p, instance, hit)
		case !n.alive(slot):
			return tryResult{signals: m.seen}, n.start(ctx, slot, n.slotEnv[slot])
		}
		return tryResult{signals: m.seen}, nil
	})
	return landed == 1, err
}

// armForPause waits up to d for a hit on the slot's instance, with its Redis
// replies delayed; on a hit the instance is already stopped when it returns.
// A try without a hit is recorded as a miss.
func (n *Nemesis) armForPause(ctx context.Context, slot string, d time.Duration) (supervisor.Hit, string, *matcher, error) {
	return n.armForHit(ctx, slot, d, FaultPauseTrapMiss, func() string {
		if err := n.sup.Pause(slot); err != nil {
			return "the instance could not be paused: " + err.Error()
		}
		return ""
	})
}

// armForHit waits up to d for a hit on the slot's instance, with its Redis
// replies delayed (its add lands, it learns so only later), and springs the
// trap on a hit before the delay is lifted. spring returns why it could not
// spring ("" when it did). A try without a hit, or whose spring failed, is
// recorded as a miss of kind missKind and returns no hit.
func (n *Nemesis) armForHit(ctx context.Context, slot string, d time.Duration, missKind string, spring func() string) (supervisor.Hit, string, *matcher, error) {
	a, err := n.arm(slot)
	if err != nil {
		return supervisor.Hit{}, n.sup.Instances()[slot], nil, fmt.Errorf("trap %s: %w", slot, err)
	}
	defer a.sub.Close()
	defer func() { _ = a.undelay() }()
	instance := a.instance
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	hits := make(chan supervisor.Hit, 1)
	m := newMatcher(n, slot, a.sub)
	go m.run(tctx, hits)
	var hit supervisor.Hit
	select {
	case hit = <-hits:
	case <-tctx.Done():
	}
	cancel()
	m.wait()
	if hit.Job == "" {
		select { // a hit sent as the deadline passed
		case hit = <-hits:
		default:
		}
	}
	if hit.Job == "" {
		if ctx.Err() == nil {
			n.recordMiss(missKind, slot, instance, a.at, missReason(tctx.Err(), d), m)
		}
		return hit, instance, m, nil
	}
	if why := spring(); why != "" {
		n.recordMiss(missKind, slot, instance, a.at, why, m)
		return supervisor.Hit{}, instance, m, nil
	}
	return hit, instance, m, nil
}

// zombie keeps the stopped instance paused for p.For (or until p.While
// ends, if later), resumes it, and waits p.Settle; the whole span is one
// "pause-trap" fault.
func (n *Nemesis) zombie(ctx context.Context, p Pause, instance string, hit supervisor.Hit) error {
	params := map[string]string{}
	for k, v := range hit.Params {
		params[k] = v
	}
	params["job"], params["slot"], params["for"] = hit.Job, p.Slot, p.For.String()
	stopped := time.Now()
	id := n.rec.StartFault(history.Fault{Kind: FaultPauseTrap, Target: instance, Params: params, Start: stopped.UTC()})
	defer func() { n.rec.EndFault(id, time.Now().UTC()) }()
	sleepErr := n.whilePaused(ctx, p, stopped)
	if err := n.sup.Resume(p.Slot); err != nil {
		return errors.Join(sleepErr, fmt.Errorf("pause trap: resume %s: %w", p.Slot, err))
	}
	if sleepErr != nil {
		return sleepErr
	}
	return n.Sleep(ctx, p.Settle)
}

// whilePaused runs p.While, if any, and sleeps out the rest of p.For from
// stopped.
func (n *Nemesis) whilePaused(ctx context.Context, p Pause, stopped time.Time) error {
	if p.While != nil {
		if err := p.While(ctx); err != nil {
			return fmt.Errorf("pause trap %s: while paused: %w", p.Slot, err)
		}
	}
	return n.Sleep(ctx, time.Until(stopped.Add(p.For)))
}
