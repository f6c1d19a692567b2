package check

import (
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// faultClockSkew is the fault kind the nemesis records for a skewed clock
// (nemesis.FaultClockSkew).
const faultClockSkew = "clock-skew"

// checkLeaseAtClaim is I5's rule for a lease that excludes nobody: a claim
// (or takeover) whose lease end, locked_until, is not after the claim's own
// write, both on the database clock, less DBSlack and any MySQL latency in
// effect. Such a lease ran out before the owner began: any recovery may
// take the event back at once and give it to another instance while the
// owner still works on it, which is the duplicate execution of a lease
// computed on a skewed application clock (MailFathom #1989). The verdict
// rests on the two database times alone; a clock-skew fault the harness
// applied to the owner (faults.jsonl) is named in the summary as the
// likely cause, never needed to prove it.
func (ix *index) checkLeaseAtClaim(t *tally, e history.Event) {
	for _, h := range ix.holds[e.ID] {
		// The claim's own lease end, before any extension moved it.
		until := h.Claim.LockedUntil
		if until == nil {
			continue
		}
		slack := DBSlack + storeDelay(ix.run, h.Start) + leaseStep(ix.run)
		if until.After(h.Start.Add(-slack)) {
			continue
		}
		summary := fmt.Sprintf("Event %d was claimed by %s at %s with a lease ending at %s, %s before the claim on the database clock: the claim excluded nobody.",
			e.ID, orSomeone(h.Owner), clock(h.Start), clock(*until), h.Start.Sub(*until).Round(time.Millisecond))
		if f, ok := skewOf(ix.run, h.Owner, h.Start); ok {
			summary += fmt.Sprintf(" The harness had set %s's clock %s off (%s).", h.Owner, f.Params["offset"], f.Params["mechanism"])
		}
		ix.failClaim(t, e, h.Start, appendUnique(nil, h.Owner), summary)
	}
}

// skewOf finds the clock-skew fault on instance at time at (harness clock,
// widened by ClockSlack), if any.
func skewOf(run history.Run, instance string, at time.Time) (history.Fault, bool) {
	for _, f := range run.Faults {
		if f.Kind != faultClockSkew || f.Params["instance"] != instance {
			continue
		}
		if at.Before(f.Start.Add(-ClockSlack)) || (!f.End.IsZero() && at.After(f.End.Add(ClockSlack))) {
			continue
		}
		return f, true
	}
	return history.Fault{}, false
}

// skewedClaims counts the claims made by an instance while the harness held
// its clock skewed (landing requirement history.LandClockSkew): a skew of an
// instance that claimed nothing tested nothing.
func (ix *index) skewedClaims() int {
	n := 0
	for _, e := range ix.events {
		for _, h := range ix.holds[e.ID] {
			if _, ok := skewOf(ix.run, h.Owner, h.Start); ok && h.Owner != "" {
				n++
			}
		}
	}
	return n
}
