package check

import (
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// judgeBackoff is I6, backoff respected.
//
// Definition. For the n-th transient failure of an event (a return to
// pending before the lease ended with available_at in the future, or, with
// declared conventions, one that is none of the dispatcher's releases or
// recoveries: moves.go; n counts that event's transient failures in the
// history, so neither claims lost to crashes nor whether the dispatcher
// counts attempts at claim or at failure changes the exponent), at database time At
// with available_at A, and expected backoff B = min(base * 2^(n-1), max):
//   - A - At >= B/2 - slack (a jitter may halve the backoff), and
//   - A - At <= max + slack (when a maximum is configured), and
//   - the event's next claim is not before A - slack,
//
// where slack is DBSlack plus any MySQL latency fault in effect, plus a
// step of an available_at column that keeps less than microseconds
// (backoffStep: a backoff under a step cannot be told from none). Lease
// recoveries (at or after the lease end) and releases (SIGTERM, or nothing
// failing for the owner) are not failures and owe no backoff, whatever
// last_error says. A return with no backoff before the lease ended while
// something failed for the owner may be a release or a retry without
// backoff: unknown, with the reason, not a fail. Not exercised (with the
// reason) when the tuning's max attempts or backoff base is zero (the
// adapter does not honour them), or when the run had no transient failure
// and no gap. A failure without a recorded available_at is unknown.
func (ix *index) judgeBackoff(t *tally) Result {
	tn := ix.run.Meta.Tuning
	if tn.MaxAttempts == 0 || tn.BackoffBase == 0 {
		return skipped("I6", "the adapter does not honour max attempts and backoff base (tuning is zero)")
	}
	failures := 0
	for _, e := range ix.events {
		failures += ix.checkBackoff(t, e)
	}
	ix.doubtTriggersGap(t, "a failure or an early claim")
	if failures == 0 {
		t.nothing("the run had no transient failure (processing -> pending with a new error) whose backoff could be checked")
	}
	r := t.result(count(failures, "transient failure", "transient failures") + "; all backed off within bounds and none claimed early")
	return withSteps(r, ix.run, history.ColumnAvailableAt)
}

// checkBackoff checks one event's failures and returns how many it had.
func (ix *index) checkBackoff(t *tally, e history.Event) int {
	tn := ix.run.Meta.Tuning
	ts := ix.outbox[e.ID]
	n := 0
	moves := ix.moves[e.ID]
	for _, why := range ix.unclear(e.ID) {
		t.doubt("event %d: %s", e.ID, why)
	}
	for i, tr := range ts {
		if moves[i] != moveFailure {
			continue
		}
		n++
		if tr.AvailableAt == nil {
			t.doubt("event %d's available_at was not recorded at its transient failure at %s", e.ID, clock(tr.At))
			continue
		}
		want := expectedBackoff(tn, n)
		slack := DBSlack + storeDelay(ix.run, tr.At) + backoffStep(ix.run)
		got := tr.AvailableAt.Sub(tr.At)
		who := appendUnique(nil, tr.LockedBy)
		switch {
		case got < want/2-slack:
			ix.failClaim(t, e, tr.At, who, fmt.Sprintf("After transient failure %d of event %d at %s, %s made it available again after %s, less than half the expected backoff of %s (%s).",
				n, e.ID, clock(tr.At), orSomeone(tr.LockedBy), span(got), span(want), ruleTransient))
		case tn.BackoffMax > 0 && got > tn.BackoffMax.D()+slack:
			ix.failClaim(t, e, tr.At, who, fmt.Sprintf("After transient failure %d of event %d at %s, %s held it back for %s, more than the backoff maximum of %s.",
				n, e.ID, clock(tr.At), orSomeone(tr.LockedBy), span(got), span(tn.BackoffMax.D())))
		}
		if next, ok := nextClaim(ts[i+1:], moves[i+1:]); ok && next.At.Before(tr.AvailableAt.Add(-slack)) {
			ix.failClaim(t, e, next.At, appendUnique(who, next.LockedBy), fmt.Sprintf("Event %d was claimed by %s at %s, %s before its backoff ended at %s.",
				e.ID, orSomeone(next.LockedBy), clock(next.At), span(tr.AvailableAt.Sub(next.At)), clock(*tr.AvailableAt)))
		}
	}
	return n
}

// expectedBackoff is min(base * 2^(n-1), max); no maximum when max is zero.
func expectedBackoff(tn history.Tuning, n int) time.Duration {
	b := tn.BackoffBase.D()
	capped := tn.BackoffMax.D()
	for i := 1; i < n; i++ {
		if capped > 0 && b >= capped {
			break
		}
		if b > time.Duration(1<<62)/2 {
			break
		}
		b *= 2
	}
	if capped > 0 && b > capped {
		b = capped
	}
	return b
}

// nextClaim is the first claim or takeover among ts (moves parallel to it).
func nextClaim(ts []history.Transition, moves []move) (history.Transition, bool) {
	for i, t := range ts {
		if m := moves[i]; m == moveClaim || m == moveTakeover {
			return t, true
		}
	}
	return history.Transition{}, false
}
