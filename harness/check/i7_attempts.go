package check

import (
	"fmt"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// judgeAttempts is I7, bounded attempts.
//
// Definition, with M the tuning's max attempts, counting transient
// failures from the history (moves.go), never from the attempts column, so
// a dispatcher may count attempts at claim or at failure:
//   - an event has at most M transient failures;
//   - after its M-th transient failure an event is never claimed again (it
//     should have been failed);
//   - a valid event (not poison) that ends failed does so at attempt M or
//     later: its attempts (the final row's, or its number of claims if
//     larger, since attempts count claims and a claim lost to a crash counts)
//     reached M. Failing earlier treats a transient error as permanent.
//
// Not exercised (with the reason) when M is zero (the adapter does not
// honour it), or when the bound was never put to the test: no event kept
// failing up to it (ended failed after at least M-1 transient failures, or
// had M), and no valid event ended failed. A gap in the triggers with
// nothing proven is unknown, and so is an event whose returns the history
// cannot tell from retries (moveUnclear) when, counted as retries, they
// would break the bound.
func (ix *index) judgeAttempts(t *tally) Result {
	limit := ix.run.Meta.Tuning.MaxAttempts
	if limit == 0 {
		return skipped("I7", "the adapter does not honour max attempts (tuning is zero)")
	}
	for _, e := range ix.events {
		ix.checkRetries(t, e, limit)
		ix.checkFailedEarly(t, e, limit)
	}
	ix.doubtTriggersGap(t, "a retry")
	if reached, most := ix.boundReached(limit); !reached {
		t.nothing(fmt.Sprintf("no event kept failing transiently up to the maximum of %d attempts (the most transient failures of one event was %d), and no valid event ended failed", limit, most))
	}
	return t.result(fmt.Sprintf("no event retried past %d attempts, and no valid event failed before them", limit))
}

// boundReached tells whether the run put the maximum to the test: some event
// had limit transient failures, or ended failed after at least limit-1 of
// them (its last attempt failed it), or a valid event ended failed. It also
// returns the most transient failures any event had.
func (ix *index) boundReached(limit int) (bool, int) {
	most, reached := 0, false
	for _, e := range ix.events {
		n := 0
		for _, m := range ix.moves[e.ID] {
			if m == moveFailure {
				n++
			}
		}
		most = max(most, n)
		row, ok := ix.finalOutbox[e.ID]
		failed := ok && row.Status == history.StatusFailed
		if n >= limit || (failed && n >= limit-1) || (failed && !isPoison(e.Kind)) {
			reached = true
		}
	}
	return reached, most
}

// checkRetries finds an event retried after its M-th transient failure.
func (ix *index) checkRetries(t *tally, e history.Event, limit int) {
	ts, moves := ix.outbox[e.ID], ix.moves[e.ID]
	n := 0
	defer func() {
		if u := len(ix.unclear(e.ID)); u > 0 && n+u >= limit && n <= limit {
			t.doubt("event %d had %d transient failures and %d returns to pending the history cannot tell from retries (%s): counted as retries they reach the maximum of %d attempts",
				e.ID, n, u, ix.unclear(e.ID)[0], limit)
		}
	}()
	for i, tr := range ts {
		if moves[i] != moveFailure {
			continue
		}
		n++
		if n < limit {
			continue
		}
		who := appendUnique(nil, tr.LockedBy)
		if n > limit {
			ix.failClaim(t, e, tr.At, who, fmt.Sprintf("Event %d was put back to pending for a retry %d times, more than the maximum of %d attempts (the last by %s at %s): %s.",
				e.ID, n, limit, orSomeone(tr.LockedBy), clock(tr.At), ruleTransient))
			n = limit + 1
			return
		}
		if next, ok := nextClaim(ts[i+1:], moves[i+1:]); ok {
			ix.failClaim(t, e, next.At, appendUnique(who, next.LockedBy), fmt.Sprintf("Event %d was claimed again by %s at %s after %d transient failures, although the maximum is %d attempts: it should have been failed (%s).",
				e.ID, orSomeone(next.LockedBy), clock(next.At), n, limit, ruleTransient))
			n = limit + 1
			return
		}
	}
}

// checkFailedEarly finds a valid event failed before it reached M attempts.
func (ix *index) checkFailedEarly(t *tally, e history.Event, limit int) {
	row, ok := ix.finalOutbox[e.ID]
	if !ok || isPoison(e.Kind) || row.Status != history.StatusFailed {
		return
	}
	attempts := row.Attempts
	if n := len(ix.holds[e.ID]); n > attempts {
		attempts = n
	}
	if attempts >= limit {
		return
	}
	last := ix.lastTransition(e.ID)
	ix.failClaim(t, e, last.At, appendUnique(nil, last.LockedBy), fmt.Sprintf("Valid event %d (job %s) was failed by %s at attempt %d, before the maximum of %d attempts (%s; its attempts are the larger of the row's count and its %d claims in the history): %s.",
		e.ID, e.JobID, orSomeone(last.LockedBy), attempts, limit, ruleTransient, len(ix.holds[e.ID]), quote(row.LastError)))
}
