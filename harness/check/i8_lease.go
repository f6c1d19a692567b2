package check

import (
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// judgeLeaseRecovery is I8, lease recovery.
//
// Definition. Take every claim whose lease (locked_until L, moved by
// extensions) ran out while the row was still processing under it. The
// other instances, together, must have been able to work (running, and not
// cut off from MySQL) for a bound B since L; the moment they had is the
// deadline, plus 4 x (latency + jitter) of the MySQL latency faults in that
// window (a takeover is a few round trips). Time in which no other instance
// was able does not count, widened by ClockSlack on each side: a short
// outage after L moves the deadline out by its length, it does not excuse
// the claim. Two bounds apply:
//   - a claim that ends (a takeover, a recovery to pending, or any other
//     write that ends it) fails when it ends after the deadline of the
//     generous bound of takeoverBound (timing.go: derived from the tuning,
//     or the adapter's declared recovery bound when longer), plus DBSlack:
//     the contract asks that the claim be recoverable after its lease, not
//     that it be taken within a second, so a slower recovery is measured,
//     not called a bug;
//   - a claim still held at the end of the run always fails once the
//     deadline of the tight bound (poll interval + max(1s, lease/2)) plus
//     ClockSlack is before the run's end.
//
// A fault on "mysql" or "mysql/<inst>" cuts inst off unless it only slows
// statements (latency, jitter, bandwidth, slicer); any other kind, unknown
// ones included, is a cut.
//
// Only a dead owner's claim is judged: one whose owner was not able at some
// moment of [L, deadline] (dead, paused, stopping, or cut off). Exempt: a
// claim whose deadline never comes, because from some moment on no other
// instance was able: nobody could have recovered it. A claim whose owner
// stayed able throughout is a live owner finishing late (I2 judges an event
// that stays stuck). With no process events recorded, the deadline is L plus
// the bound, and a claim that would fail is unknown; so is everything after
// a gap in the triggers. With no dead owner's claim judged (none expired, or
// every one exempt) it is not exercised.
//
// Measure. Every claim ended by a takeover or a recovery at or after its
// lease end gives one takeover delay (the end's time minus L); Result.Takeover
// is their distribution.
func (ix *index) judgeLeaseRecovery(t *tally) Result {
	n := map[recovery]int{}
	var delays []time.Duration
	for _, e := range ix.events {
		for _, h := range ix.holds[e.ID] {
			n[ix.checkRecovery(t, e, h)]++
			if d, ok := takeoverDelay(h, leaseStep(ix.run)); ok {
				delays = append(delays, d)
			}
		}
	}
	ix.doubtTriggersGap(t, "a takeover")
	if n[recoveryJudged] == 0 {
		t.nothing(recoveryReason(n))
	}
	r := withSteps(t.result(recoveryReason(n)), ix.run, history.ColumnLockedUntil)
	r.Takeover = NewDistribution(delays)
	return r
}

// takeoverDelay is how long after its lease ran out hold h was taken over or
// recovered; ok is false for a hold that ended otherwise, or not at all.
// step is the lease column's (leaseStep).
func takeoverDelay(h hold, step time.Duration) (time.Duration, bool) {
	if h.End == nil || h.Until == nil || (h.EndMove != moveTakeover && h.EndMove != moveRecovery) {
		return 0, false
	}
	d := h.End.At.Sub(*h.Until)
	if d < -DBSlack-step {
		return 0, false // a takeover before the lease ran out: I5's
	}
	return max(d, 0), true
}

// endedByRecovery reports a claim ended by a takeover or a recovery at (or,
// within DBSlack and the lease column's step, just before) its lease end:
// it expired, however promptly another instance took it; a dispatcher
// whose claimers take expired rows over directly often does so within
// milliseconds of the lease end.
func endedByRecovery(h hold, step time.Duration) bool {
	_, ok := takeoverDelay(h, step)
	return ok
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
func (ix *index) checkRecovery(t *tally, e history.Event, h hold) recovery {
	step := leaseStep(ix.run)
	if h.Until == nil || (h.End != nil && !h.End.At.After(h.Until.Add(DBSlack+step)) && !endedByRecovery(h, step)) {
		return recoveryNone
	}
	lv := ix.lv
	l := *h.Until
	bound, how := takeoverBound(ix.run.Meta.Tuning, l.Sub(h.Start), ix.run.Meta.Conventions)
	if h.End == nil {
		bound, how = recoveryBound(ix.run.Meta.Tuning, l.Sub(h.Start)), ""
	}
	d, due := ix.recoveryDeadline(h, bound)
	from, to := l.Add(-ClockSlack), d.Add(ClockSlack)
	if !due {
		to = maxTime(runEnd(ix.run), l).Add(ClockSlack)
	}
	if lv.known() && lv.runningThroughout(h.Owner, from, to) && !lv.storeCutDuring(h.Owner, from, to) {
		return recoveryNone
	}
	if !due {
		if h.End == nil {
			return recoveryExempt
		}
		return recoveryJudged
	}
	late := h.End != nil && h.End.At.After(d.Add(DBSlack+step))
	never := h.End == nil && d.Add(ClockSlack).Before(runEnd(ix.run))
	if !late && !never {
		return recoveryJudged
	}
	if !lv.known() {
		t.doubt("event %d's claim by %s ran out at %s and was not taken over in time, but no process events were recorded to tell whether anyone could", e.ID, orSomeone(h.Owner), clock(l))
		return recoveryJudged
	}
	ix.failClaim(t, e, l, ix.recoveryInstances(h), ix.recoverySentence(e, h, d, how))
	return recoveryJudged
}

// recoveryDeadline is the deadline of the definition for hold h and bound
// need, and whether it comes at all.
func (ix *index) recoveryDeadline(h hold, need time.Duration) (time.Time, bool) {
	l := *h.Until
	due := func(need time.Duration) (time.Time, bool) {
		if !ix.lv.known() {
			return l.Add(need), true
		}
		return ix.lv.recoveryDue(l, need, h.Owner)
	}
	d, ok := due(need)
	if !ok {
		return d, false
	}
	if extra := recoveryRoundTrips * storeDelayDuring(ix.run, l, d); extra > 0 {
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

func (ix *index) recoverySentence(e history.Event, h hold, d time.Time, how string) string {
	owner := orSomeone(h.Owner)
	what := ""
	if p, ok := ix.lastWords(h.Owner, h.Start.Add(-ClockSlack), h.Until.Add(ClockSlack)); ok {
		what = fmt.Sprintf(" (%s %s at %s)", owner, actionVerb(p.Action), clock(p.At))
	}
	if h.End == nil {
		return fmt.Sprintf("Event %d's claim by %s%s ran out at %s and was never taken over, though recovery was due by %s and the run ended at %s (%s).",
			e.ID, owner, what, clock(*h.Until), clock(d), clock(runEnd(ix.run)), ruleRecovery)
	}
	return fmt.Sprintf("Event %d's claim by %s%s ran out at %s but was taken over only at %s by %s, %s after the lease, later than the bound of %s (%s; time in which no other instance could work, and MySQL latency, extend it).",
		e.ID, owner, what, clock(*h.Until), clock(h.End.At), orSomeone(h.End.LockedBy), span(h.End.At.Sub(*h.Until)), span(d.Sub(*h.Until)), how)
}
