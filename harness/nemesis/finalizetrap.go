package nemesis

import (
	"context"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// Fault kinds of the finalize trap (see doc.go for their params).
const (
	FaultFinalizeTrap     = history.FaultFinalizeTrap
	FaultFinalizeTrapMiss = "finalize-trap-miss"
)

// commitWait bounds how long the finalize trap waits, after its hit, for
// the instance's next COMMIT: its finalize follows the add it was told of
// (windowLatency late) at once.
const commitWait = 5 * time.Second

// FinalizeTrap catches a black-box dispatcher inside its finalize, where a
// crash point would pause it (before-finalize-commit): it arms the slot's
// instance as the pause trap does and, when Redis shows a job created for an
// event the instance holds, holds the next COMMIT on the instance's database
// link for hold (past its lease). The finalize's statements have run, so
// its row locks are held while its lease runs out and others recover and
// claim around it; then the COMMIT goes on, and the schedule stays here for
// settle. It re-arms until a hold lands or deadline passes. A landed hold is
// a "finalize-trap" fault, each miss a "finalize-trap-miss". It reports
// whether a hold landed.
func (n *Nemesis) FinalizeTrap(ctx context.Context, slot string, hold, settle, deadline time.Duration) (bool, error) {
	if n.obs == nil {
		return false, fmt.Errorf("finalize trap %s: no Redis observer to signal job creations", slot)
	}
	landed, err := rearm(ctx, 1, deadline, func(left time.Duration) (tryResult, error) {
		return n.tryFinalizeHold(ctx, slot, hold, settle, left)
	})
	return landed == 1, err
}

// tryFinalizeHold is one armed try of the finalize trap: up to d for a hit,
// then the hold on its COMMIT.
func (n *Nemesis) tryFinalizeHold(ctx context.Context, slot string, hold, settle, d time.Duration) (tryResult, error) {
	link := n.links[n.store+"/"+slot]
	var holdID string
	var armed time.Time
	hit, instance, m, err := n.armForHit(ctx, slot, d, FaultFinalizeTrapMiss, func() string {
		armed = time.Now().UTC()
		id, err := link.Add(n.bind(faultproxy.CommitHoldMySQL{Hold: hold}))
		if err != nil {
			return "the instance's COMMIT could not be held: " + err.Error()
		}
		holdID = id
		return ""
	})
	switch {
	case err != nil:
		return tryResult{}, err
	case hit.Job == "":
		return tryResult{signals: m.seen}, nil
	}
	landed, err := n.holdFinalize(ctx, slot, instance, hit, holdID, armed, settle)
	return tryResult{landed: landed, signals: m.seen}, err
}

// holdFinalize waits for the armed hold to catch a COMMIT and to release
// it, and records the span from arming to release as one "finalize-trap"
// fault (a miss when no COMMIT came within commitWait); then it waits
// settle.
func (n *Nemesis) holdFinalize(ctx context.Context, slot, instance string, hit supervisor.Hit, holdID string, armed time.Time, settle time.Duration) (bool, error) {
	link := n.links[n.store+"/"+slot]
	defer func() { _ = link.Remove(holdID) }()
	held, err := n.waitHeld(ctx, link, holdID)
	if err != nil || held.At.IsZero() {
		if ctx.Err() == nil {
			why := fmt.Sprintf("no COMMIT came on the instance's %s link within %s of its add "+
				"(a finalize outside a transaction holds no row locks to catch)", storeTitle(n.store), commitWait)
			n.rec.StartFault(history.Fault{Kind: FaultFinalizeTrapMiss, Target: instance, Start: armed, End: time.Now().UTC(),
				Params: map[string]string{"slot": slot, "reason": why, "job": hit.Job}})
		}
		return false, nil
	}
	params := map[string]string{}
	for k, v := range hit.Params {
		params[k] = v
	}
	params["job"], params["slot"], params["link"] = hit.Job, slot, n.store+"/"+slot
	params["held_at"], params["released"] = stamp(held.At), stamp(held.Released)
	params["for"] = held.Released.Sub(held.At).Round(time.Millisecond).String()
	if held.Cut {
		// The connection ended while the COMMIT was held: it never
		// reached the server, which rolled the finalize back.
		params["cut"] = "true"
	}
	n.rec.StartFault(history.Fault{Kind: FaultFinalizeTrap, Target: instance, Params: params, Start: armed, End: held.Released.UTC()})
	return true, n.Sleep(ctx, settle)
}

// waitHeld polls the hold until a COMMIT it caught was released (zero At
// when none was caught within commitWait).
func (n *Nemesis) waitHeld(ctx context.Context, link *faultproxy.Proxy, id string) (faultproxy.HeldCommit, error) {
	caught := time.Now().Add(commitWait)
	for {
		hs, err := link.Held(id)
		if err != nil {
			return faultproxy.HeldCommit{}, err
		}
		switch {
		case len(hs) > 0 && !hs[0].Released.IsZero():
			return hs[0], nil
		case len(hs) == 0 && time.Now().After(caught):
			return faultproxy.HeldCommit{}, nil
		}
		if err := n.Sleep(ctx, 20*time.Millisecond); err != nil {
			return faultproxy.HeldCommit{}, err
		}
	}
}

// storeTitle names a store for a person.
func storeTitle(store string) string {
	if store == faultproxy.StorePostgres {
		return "PostgreSQL"
	}
	return "MySQL"
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
