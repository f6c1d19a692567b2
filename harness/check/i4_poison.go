package check

import (
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// judgePoison is I4, poison fails fast.
//
// Definition. Every poison event (kind unknown-type, missing-job,
// queue-not-allowed or illegal-job-id):
//   - is never put back to pending for a retry (a transient failure, as
//     moves.go classifies it: a return with backoff before the lease ended):
//     the first claim that completes (ends in a finalize or a failure rather
//     than being lost to a crash, a lease recovery or a release) fails it.
//     Attempts above 1 from claims lost to crashes are not retries. A
//     return the history cannot tell from a retry (moveUnclear) is unknown;
//   - has no BullMQ job created for its job id;
//   - ends failed: published is a fail; still pending or processing is a
//     fail when the drain was long enough or it is stuck under an expired
//     lease (as in I2), else unknown.
//
// With nothing proven, a gap in the triggers (a failure may be unseen) or in
// both creation sources of the event's queue makes it unknown.
func (ix *index) judgePoison(t *tally) Result {
	n := 0
	for _, e := range ix.events {
		if !isPoison(e.Kind) {
			continue
		}
		n++
		ix.checkPoison(t, e)
		if ix.creationsBlind(ix.queueOf(e)) {
			t.doubt("both creation sources of queue %s had gaps: a job created for poison event %d may have gone unseen", ix.queueOf(e), e.ID)
		}
	}
	if n == 0 {
		return skipped("I4", "the run produced no poison events")
	}
	if g, ok := ix.triggersGap(); ok {
		t.doubt("the MySQL triggers had a gap at %s: a retry of a poison event may have gone unseen", clock(g.At))
	}
	return t.result(fmt.Sprintf("every poison event (%d) failed at its first completed attempt, with no job and no retry", n))
}

func (ix *index) checkPoison(t *tally, e history.Event) {
	summary, focus, inst := ix.poisonViolation(e)
	if summary == "" {
		for _, why := range ix.unclear(e.ID) {
			t.doubt("poison event %d: %s", e.ID, why)
		}
		if row, ok := ix.finalOutbox[e.ID]; ok && !isFinal(row.Status) {
			t.doubt("poison event %d was still %s at the end, but the drain was too short to tell (run did not quiesce)", e.ID, row.Status)
		}
		return
	}
	ix.failOn(t, e, focus, focus.Add(-time.Second), inst, summary)
}

// poisonViolation tells how a poison event broke I4 ("" when it did not or
// it cannot be told yet).
func (ix *index) poisonViolation(e history.Event) (string, time.Time, []string) {
	for i, tr := range ix.outbox[e.ID] {
		if ix.moveAt(e.ID, i) == moveFailure {
			return fmt.Sprintf("Poison event %d (%s) was put back to pending for a retry by %s at attempt %d instead of failed (%s): %s.",
				e.ID, e.Kind, orSomeone(tr.LockedBy), tr.Attempts, poisonRule(e), quote(tr.LastError)), tr.At, appendUnique(nil, tr.LockedBy)
		}
	}
	if cs := ix.creations.byJob[e.JobID]; len(cs) > 0 {
		who := ix.creator(cs[0])
		return fmt.Sprintf("BullMQ job %s was created for poison event %d (%s) by %s at %s: %s.",
			e.JobID, e.ID, e.Kind, orSomeone(who), clock(cs[0].At), poisonRule(e)), cs[0].At, appendUnique(nil, who)
	}
	row, ok := ix.finalOutbox[e.ID]
	if !ok || row.Status == history.StatusFailed {
		return "", time.Time{}, nil
	}
	last := ix.lastTransition(e.ID)
	if row.Status == history.StatusPublished {
		return fmt.Sprintf("Poison event %d (%s) was published by %s instead of failed: %s.", e.ID, e.Kind, orSomeone(last.LockedBy), poisonRule(e)), last.At, appendUnique(nil, last.LockedBy)
	}
	if _, stuck := ix.stuck(e.ID); stuck || drainAdequate(ix.run, e.Produced) {
		return fmt.Sprintf("Poison event %d (%s) was still %s at the end instead of failed: %s.", e.ID, e.Kind, row.Status, poisonRule(e)), runEnd(ix.run), appendUnique(nil, last.LockedBy)
	}
	return "", time.Time{}, nil
}
