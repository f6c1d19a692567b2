package check

import (
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// judgeExclusive is I5, exclusive claims.
//
// Definition, over each event's outbox transitions in sequence order:
//   - no takeover (a new lock token over a row still processing) while the
//     previous claim's lease was unexpired: its locked_until, less DBSlack,
//     any MySQL latency in effect and a step of a column that keeps less
//     than microseconds (leaseStep), is after the takeover's time;
//   - no return to pending before the lease ran out written by another
//     slot than the one that claimed (moveSeized, when the history records
//     writers): a reset of a live claim is a takeover too;
//   - a write that ends a claim before its lease ran out (finalize, failure,
//     release, or a return the history cannot tell) carries the claim's own
//     token: one carrying a different non-empty token was written by another
//     owner (a recovery, at or after the lease end, may be anyone's);
//   - a claim's lease end is after the claim itself (checkLeaseAtClaim,
//     i5_skew.go): a lease already over when it is written excludes nobody;
//   - a row is never marked published while nobody holds it (from pending);
//   - a row published or failed is never written again (any later update).
//
// Without lock tokens (a schema lacking the column) a takeover is a new
// locked_by over a row still processing, and a foreign write that keeps
// locked_by cannot be seen; a gap in the triggers with nothing proven is
// unknown. With no claim at all it is not exercised.
func (ix *index) judgeExclusive(t *tally) Result {
	claims := 0
	for _, e := range ix.events {
		claims += len(ix.holds[e.ID])
		ix.checkTakeovers(t, e)
		ix.checkLeaseAtClaim(t, e)
		ix.checkWrites(t, e)
	}
	ix.doubtTriggersGap(t, "a conflicting write")
	if claims == 0 {
		t.nothing("no event was claimed")
	}
	r := t.result(count(claims, "claim", "claims") + ", none taken while another was unexpired, and no finalized row written again")
	return withSteps(r, ix.run, history.ColumnLockedUntil)
}

// checkTakeovers finds claims taken over before their lease ran out: by a
// new claim, or by another slot's return to pending.
func (ix *index) checkTakeovers(t *tally, e history.Event) {
	for _, h := range ix.holds[e.ID] {
		if h.End != nil && h.EndMove == moveSeized && h.Until != nil {
			ix.failSeized(t, e, h)
			continue
		}
		if h.End == nil || h.EndMove != moveTakeover || h.Until == nil {
			continue
		}
		at := h.End.At
		slack := DBSlack + storeDelay(ix.run, at) + leaseStep(ix.run)
		if !h.Until.Add(-slack).After(at) {
			continue
		}
		inst := appendUnique(appendUnique(nil, h.Owner), h.End.LockedBy)
		summary := fmt.Sprintf("Event %d was claimed by %s at %s while %s still held it under a lease running until %s.",
			e.ID, orSomeone(h.End.LockedBy), clock(at), orSomeone(h.Owner), clock(*h.Until))
		ix.failClaim(t, e, at, inst, summary)
	}
}

// failSeized records hold h ended by another slot's return to pending
// before its lease end (moves.go decided that it was before, with slack).
func (ix *index) failSeized(t *tally, e history.Event, h hold) {
	at := h.End.At
	writer := ix.lv.slotInstance(h.End.Writer, at)
	inst := appendUnique(appendUnique(nil, h.Owner), writer)
	summary := fmt.Sprintf("Event %d was returned to pending at %s by %s while %s still held it under a lease running until %s.",
		e.ID, clock(at), writer, orSomeone(h.Owner), clock(*h.Until))
	ix.failClaim(t, e, at, inst, summary)
}

// checkWrites finds writes by a non-owner, publishes of unheld rows and
// writes to finalized rows.
func (ix *index) checkWrites(t *tally, e history.Event) {
	var owner string
	for i, tr := range ix.outbox[e.ID] {
		m := ix.moveAt(e.ID, i)
		who := orSomeone(tr.LockedBy)
		switch {
		case m == moveRewrite:
			ix.failClaim(t, e, tr.At, appendUnique(nil, tr.LockedBy), fmt.Sprintf("Event %d was written again after it was %s: %s -> %s by %s at %s.",
				e.ID, tr.OldStatus, tr.OldStatus, tr.NewStatus, rewriter(tr), clock(tr.At)))
		case m == moveFinalize && tr.OldStatus != history.StatusProcessing && tr.NewStatus == history.StatusPublished:
			ix.failClaim(t, e, tr.At, appendUnique(nil, tr.LockedBy), fmt.Sprintf("Event %d was marked published by %s at %s while nobody held it (it was %s).",
				e.ID, who, clock(tr.At), tr.OldStatus))
		case (m == moveFinalize || (isReturn(m) && m != moveRecovery && m != moveSeized)) && ownerChanged(tr):
			ix.failClaim(t, e, tr.At, appendUnique(appendUnique(nil, tr.LockedBy), owner), fmt.Sprintf("Event %d was moved to %s by %s (token %s) at %s while the claim belonged to %s (token %s).",
				e.ID, tr.NewStatus, who, short(tr.LockToken), clock(tr.At), orSomeone(owner), short(tr.OldLockToken)))
		}
		if m == moveClaim || m == moveTakeover {
			owner = tr.LockedBy
		}
	}
}

// failClaim records a violation about event e's claims, with context from the
// event's first transition to at (at least a lease long).
func (ix *index) failClaim(t *tally, e history.Event, at time.Time, inst []string, summary string) {
	from := at.Add(-ix.run.Meta.Tuning.Lease.D())
	if ts := ix.outbox[e.ID]; len(ts) > 0 && ts[0].At.Before(from) {
		from = ts[0].At
	}
	ix.failOn(t, e, at, from, inst, summary)
}

// rewriter names who wrote a finalized row again. Only a write that set a
// new lock token names its writer in locked_by; otherwise locked_by still
// names whoever held the row before, so the writer is unknown.
func rewriter(tr history.Transition) string {
	switch {
	case tr.LockToken != "" && tr.LockToken != tr.OldLockToken:
		return orSomeone(tr.LockedBy)
	case tr.LockedBy != "":
		return "a dispatcher (locked_by still names " + tr.LockedBy + ", who may not be the writer)"
	}
	return "a dispatcher"
}
