package check

import (
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// CheckLeaseRecovery is I8, lease recovery.
//
// Definition. Take every claim whose lease (locked_until L, moved by
// extensions) ran out while the row was still processing under it. Its
// recovery deadline D is the moment by which the other instances, together,
// had been able to work (running, and not cut off from MySQL) for
// poll interval + max(1s, lease/2) since L, plus 4 x (latency + jitter) of
// the MySQL latency faults in that window (a takeover is a few round trips).
// Time in which no other instance was able does not count, widened by
// ClockSlack on each side: a short outage after L moves D out by its length,
// it does not excuse the claim.
//
// A fault on "mysql" or "mysql/<inst>" cuts inst off unless it only slows
// statements (latency, jitter, bandwidth, slicer); any other kind, unknown
// ones included, is a cut.
//
// A claim whose owner was not able at some moment of [L, D] (dead, paused,
// stopping, or cut off) is a dead owner's claim. It must end (a takeover, a
// return to pending, or any other write that ends it) by D, plus DBSlack. A
// claim still held at the end of the run fails once D + ClockSlack is before
// the run's end.
//
// Exempt: a claim whose D never comes, because from some moment on no other
// instance was able: nobody could have recovered it. A claim whose owner
// stayed able throughout is a live owner finishing late, not a dead owner's
// claim (I2 judges an event that stays stuck). With no process events
// recorded, D is L plus the bound, and a claim that would fail is unknown;
// so is everything after a gap in the triggers. With no dead owner's claim
// judged (none expired, or every one exempt) it is not exercised.
func CheckLeaseRecovery(run history.Run) Result {
	ix := newIndex(run)
	lv := newLiveness(run)
	t := newTally("I8", "dead owner's claim not recovered in time", "dead owners' claims not recovered in time")
	n := map[recovery]int{}
	for _, e := range ix.events {
		for _, h := range ix.holds[e.ID] {
			n[ix.checkRecovery(t, lv, e, h)]++
		}
	}
	if g, ok := ix.triggersGap(); ok {
		t.doubt("the MySQL triggers had a gap at %s: a takeover may have gone unseen", clock(g.At))
	}
	if n[recoveryJudged] == 0 {
		t.nothing(recoveryReason(n))
	}
	return t.result(recoveryReason(n))
}

// recovery is what I8 made of one claim.
type recovery int

const (
	recoveryNone   recovery = iota // not a dead owner's expired claim
	recoveryJudged                 // a dead owner's expired claim, judged
	recoveryExempt                 // a dead owner's expired claim nobody could recover
)

func recoveryReason(n map[recovery]int) string {
	judged, exempt := n[recoveryJudged], n[recoveryExempt]
	if judged+exempt == 0 {
		return "no dead owner's claim expired"
	}
	reason := count(judged+exempt, "expired claim of a dead owner", "expired claims of dead owners")
	if judged > 0 {
		reason += "; " + count(judged, "was taken over in time", "were taken over in time")
	}
	if exempt > 0 {
		reason += "; " + count(exempt, "was not due: no other instance was able to recover it before the run ended",
			"were not due: no other instance was able to recover them before the run ended")
	}
	return reason
}

// checkRecovery judges one claim.
func (ix *index) checkRecovery(t *tally, lv liveness, e history.Event, h hold) recovery {
	if h.Until == nil || (h.End != nil && !h.End.At.After(h.Until.Add(DBSlack))) {
		return recoveryNone
	}
	l := *h.Until
	d, due := ix.recoveryDeadline(lv, h)
	from, to := l.Add(-ClockSlack), d.Add(ClockSlack)
	if !due {
		to = maxTime(runEnd(ix.run), l).Add(ClockSlack)
	}
	if lv.known() && lv.runningThroughout(h.Owner, from, to) && !lv.mysqlCutDuring(h.Owner, from, to) {
		return recoveryNone
	}
	if !due {
		if h.End == nil {
			return recoveryExempt
		}
		return recoveryJudged
	}
	late := h.End != nil && h.End.At.After(d.Add(DBSlack))
	never := h.End == nil && d.Add(ClockSlack).Before(runEnd(ix.run))
	if !late && !never {
		return recoveryJudged
	}
	if !lv.known() {
		t.doubt("event %d's claim by %s ran out at %s and was not taken over in time, but no process events were recorded to tell whether anyone could", e.ID, orSomeone(h.Owner), clock(l))
		return recoveryJudged
	}
	ix.failClaim(t, e, l, ix.recoveryInstances(h), ix.recoverySentence(e, h, d))
	return recoveryJudged
}

// recoveryDeadline is D of the definition for hold h, and whether it comes
// at all.
func (ix *index) recoveryDeadline(lv liveness, h hold) (time.Time, bool) {
	l := *h.Until
	need := recoveryBound(ix.run.Meta.Tuning, l.Sub(h.Start))
	due := func(need time.Duration) (time.Time, bool) {
		if !lv.known() {
			return l.Add(need), true
		}
		return lv.recoveryDue(l, need, h.Owner)
	}
	d, ok := due(need)
	if !ok {
		return d, false
	}
	if extra := recoveryRoundTrips * mysqlDelayDuring(ix.run, l, d); extra > 0 {
		return due(need + extra)
	}
	return d, true
}

// recoveryRoundTrips is how many MySQL round trips a takeover is allowed to
// be slowed by a latency fault: a poll's select, the claim, its commit, and
// one more.
const recoveryRoundTrips = 4

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
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
