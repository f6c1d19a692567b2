package check

import (
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// CheckLeaseRecovery is I8, lease recovery.
//
// Definition. Take every claim whose lease (locked_until L, moved by
// extensions) ran out while the row was still processing under it, and whose
// owner was not able to work at some moment of [L, D] (dead, paused,
// stopping, or cut off from MySQL by a fault on "mysql" or "mysql/<owner>"),
// where D = L + poll interval + max(1s, lease/2). Such a claim must end (a
// takeover, a return to pending, or any other write that ends it) by D, plus
// DBSlack. A claim still held at the end of the run fails once D + ClockSlack
// is before the run's end.
//
// Exempt: a claim for which, at some moment of [L, D] widened by ClockSlack,
// no other instance was able to work (running and not cut off from MySQL):
// nobody could have recovered it. A claim whose owner stayed able throughout
// is a live owner finishing late, not a dead owner's claim (I2 judges an
// event that stays stuck). With no process events recorded, a claim that
// would fail is unknown; so is everything after a gap in the triggers.
func CheckLeaseRecovery(run history.Run) Result {
	ix := newIndex(run)
	lv := newLiveness(run)
	t := newTally("I8", "dead owner's claim not recovered in time", "dead owners' claims not recovered in time")
	expired := 0
	for _, e := range ix.events {
		for _, h := range ix.holds[e.ID] {
			if ix.checkRecovery(t, lv, e, h) {
				expired++
			}
		}
	}
	if g, ok := ix.triggersGap(); ok {
		t.doubt("the MySQL triggers had a gap at %s: a takeover may have gone unseen", clock(g.At))
	}
	if expired == 0 {
		return t.result("no dead owner's claim expired")
	}
	return t.result(count(expired, "expired claim of a dead owner", "expired claims of dead owners") + "; all taken over in time")
}

// checkRecovery judges one claim and tells whether it was a dead owner's
// expired claim.
func (ix *index) checkRecovery(t *tally, lv liveness, e history.Event, h hold) bool {
	if h.Until == nil || (h.End != nil && !h.End.At.After(h.Until.Add(DBSlack))) {
		return false
	}
	tn := ix.run.Meta.Tuning
	l := *h.Until
	d := l.Add(recoveryBound(tn, l.Sub(h.Start)))
	from, to := l.Add(-ClockSlack), d.Add(ClockSlack)
	if lv.known() && lv.runningThroughout(h.Owner, from, to) && !lv.mysqlCutDuring(h.Owner, from, to) {
		return false
	}
	late := h.End != nil && h.End.At.After(d.Add(DBSlack))
	never := h.End == nil && d.Add(ClockSlack).Before(runEnd(ix.run))
	if !late && !never {
		return true
	}
	if !lv.known() {
		t.doubt("event %d's claim by %s ran out at %s and was not taken over in time, but no process events were recorded to tell whether anyone could", e.ID, orSomeone(h.Owner), clock(l))
		return true
	}
	if _, able := lv.ableAll(from, to, h.Owner); !able {
		return true
	}
	ix.failClaim(t, e, l, ix.recoveryInstances(h), ix.recoverySentence(e, h, d))
	return true
}

func (ix *index) recoveryInstances(h hold) []string {
	inst := appendUnique(nil, h.Owner)
	if h.End != nil {
		inst = appendUnique(inst, h.End.LockedBy)
	}
	return inst
}

func (ix *index) recoverySentence(e history.Event, h hold, d time.Time) string {
	owner := orSomeone(h.Owner)
	what := ""
	if p, ok := ix.lastWords(h.Owner, h.Start.Add(-ClockSlack), h.Until.Add(ClockSlack)); ok {
		what = fmt.Sprintf(" (%s %s at %s)", owner, actionVerb(p.Action), clock(p.At))
	}
	if h.End == nil {
		return fmt.Sprintf("Event %d's claim by %s%s ran out at %s and was never taken over, though recovery was due by %s and the run ended at %s.",
			e.ID, owner, what, clock(*h.Until), clock(d), clock(runEnd(ix.run)))
	}
	return fmt.Sprintf("Event %d's claim by %s%s ran out at %s but was taken over only at %s by %s, %s after the lease, later than the bound of %s.",
		e.ID, owner, what, clock(*h.Until), clock(h.End.At), orSomeone(h.End.LockedBy), span(h.End.At.Sub(*h.Until)), span(d.Sub(*h.Until)))
}
