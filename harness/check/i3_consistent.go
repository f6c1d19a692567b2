package check

import (
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// CheckConsistent is I3, consistent.
//
// Definition. For every event E about job J, in the final scan:
//   - E published: J's row exists and is queued or later, and a BullMQ job
//     was created for J (a creation, a take, or J in the final scan of
//     Redis). An already-queued event needs no creation (one is I1's).
//   - E failed: J's row is not queued or later, and no BullMQ job was
//     created for J.
//   - E still pending or processing: J's row is not queued or later, unless
//     E is already-queued (its job was queued before it).
//
// And over time: E is never marked published before its job's first
// creation (by more than ClockSlack): a crash in between would leave it
// published without a job.
//
// "No creation seen" proves nothing when, for J's queue, both the events
// stream and the keyspace notifications had gaps: then it is unknown.
func CheckConsistent(run history.Run) Result {
	ix := newIndex(run)
	t := newTally("I3", "inconsistent event", "inconsistent events")
	for _, e := range ix.events {
		row, ok := ix.finalOutbox[e.ID]
		if !ok {
			t.doubt("event %d has no row in the final scan", e.ID)
			continue
		}
		summary, focus, blind := ix.inconsistency(e, row)
		switch {
		case blind:
			t.doubt("event %d was published but no creation of job %s was seen, and both creation sources of queue %s had gaps", e.ID, e.JobID, e.Queue)
		case summary != "":
			inst := appendUnique(nil, ix.lastTransition(e.ID).LockedBy)
			ix.failOn(t, e, focus, focus.Add(-time.Second), inst, summary)
		}
	}
	if len(ix.events) == 0 {
		t.nothing("the run produced no events")
	}
	return t.result(fmt.Sprintf("every event (%d) ends consistent: published exactly when its job is queued and exists in BullMQ", len(ix.events)))
}

// inconsistency tells how event e breaks I3 ("" when it does not), when, and
// whether it is unknown for lack of creation sources.
func (ix *index) inconsistency(e history.Event, row history.OutboxRow) (string, time.Time, bool) {
	jobSt := ix.jobStatus(e.JobID)
	_, jobExists := ix.finalJobs[e.JobID]
	created := ix.created(e.JobID)
	at := ix.lastTransition(e.ID).At
	aq := e.Kind == history.KindAlreadyQueued
	switch row.Status {
	case history.StatusPublished:
		switch {
		case !jobExists:
			return fmt.Sprintf("Event %d was published but its job %s does not exist in ai_jobs.", e.ID, e.JobID), at, false
		case !queuedOrLater(jobSt):
			return fmt.Sprintf("Event %d was published but its job %s is still %s, not queued.", e.ID, e.JobID, jobSt), at, false
		case !aq && !created && ix.creationsBlind(ix.queueOf(e)):
			return "", at, true
		case !aq && !created:
			return fmt.Sprintf("Event %d was published but no BullMQ job was ever created for its job %s.", e.ID, e.JobID), at, false
		case !aq:
			return ix.publishedEarly(e)
		}
	case history.StatusFailed:
		switch {
		case queuedOrLater(jobSt):
			return fmt.Sprintf("Event %d ended failed but its job %s is %s.", e.ID, e.JobID, jobSt), at, false
		case !aq && created:
			return fmt.Sprintf("Event %d ended failed, yet a BullMQ job exists for its job %s.", e.ID, e.JobID), at, false
		}
	default:
		if !aq && queuedOrLater(jobSt) {
			return fmt.Sprintf("Job %s is %s while its event %d is still %s.", e.JobID, jobSt, e.ID, row.Status), at, false
		}
	}
	return "", time.Time{}, false
}

// publishedEarly finds an event marked published before its job was first
// created.
func (ix *index) publishedEarly(e history.Event) (string, time.Time, bool) {
	cs := ix.creations.byJob[e.JobID]
	if len(cs) == 0 {
		return "", time.Time{}, false
	}
	for _, t := range ix.outbox[e.ID] {
		if classify(t) == moveFinalize && t.NewStatus == history.StatusPublished {
			if cs[0].At.After(t.At.Add(ClockSlack)) {
				return fmt.Sprintf("Event %d was marked published by %s at %s, before its job %s was created in BullMQ at %s.",
					e.ID, orSomeone(t.LockedBy), clock(t.At), e.JobID, clock(cs[0].At)), t.At, false
			}
			break
		}
	}
	return "", time.Time{}, false
}

// queueOf is the queue an event's job belongs to.
func (ix *index) queueOf(e history.Event) string {
	if e.Queue != "" {
		return e.Queue
	}
	return ix.finalJobs[e.JobID].Queue
}

func orSomeone(inst string) string {
	if inst == "" {
		return "a dispatcher"
	}
	return inst
}
