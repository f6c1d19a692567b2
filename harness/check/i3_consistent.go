package check

import (
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// judgeConsistent is I3, consistent.
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
// And at the moment it happens (docs/contract.md §2 step 4): when E becomes
// published, J's row is already queued or later by the ai_jobs transitions
// recorded before it (a worker got there first, or the same transaction
// moved it first), or the next transition of J moves it created -> queued
// (only a dispatcher makes that move; the same transaction may write it
// after the outbox row, and a lock wait may delay it), or a worker's move of J past queued follows it while the
// consumer had already taken J (the dispatcher's guarded move lost the race
// and wrote nothing), provided the run shows jobs moved created -> queued at
// all. A consumer that moves J created -> running later does not hide a
// dispatcher that never sets queued. With a gap in the triggers this part
// is not judged.
//
// And over time: E is never marked published before its job's first
// creation (by more than ClockSlack): a crash in between would leave it
// published without a job. Only a creation dated by the events stream can
// show that; a keyspace note's time is when the harness saw it.
//
// "No creation seen" proves nothing when, for J's queue, both the events
// stream and the keyspace notifications had gaps: then it is unknown.
func (ix *index) judgeConsistent(t *tally) Result {
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
	ix.judgeDurable(t)
	if len(ix.events) == 0 {
		t.nothing("the run produced no events")
	}
	lost := ""
	if n := len(ix.lost); n > 0 {
		lost = fmt.Sprintf(" (%d of them then lost by Redis in its restart: the report's lost adds)", n)
	}
	switch {
	case !ix.hasJobs() && lost != "":
		return t.result(fmt.Sprintf("every event (%d) ends consistent: published exactly when a %s was created for it%s", len(ix.events), ix.sinkJob(), lost))
	case !ix.hasJobs():
		return t.result(fmt.Sprintf("every event (%d) ends consistent: published exactly when a %s exists for it", len(ix.events), ix.sinkJob()))
	}
	if lost != "" {
		return t.result(fmt.Sprintf("every event (%d) ends consistent: published exactly when its job is queued and was created in BullMQ%s", len(ix.events), lost))
	}
	return t.result(fmt.Sprintf("every event (%d) ends consistent: published exactly when its job is queued and exists in BullMQ", len(ix.events)))
}

// DurabilityWait is the promise judgeDurable holds a dispatcher to
// (supervisor.DurabilityWait).
const DurabilityWait = "wait"

// judgeDurable is I3's part for a dispatcher that declares durability:
// wait (history.Meta.Durability): a job Redis lost after acknowledging it
// is no excuse. An event that ended published while its job was such a
// lost add, never created again and never taken by a worker before the
// loss, was marked published before a replica held the job: the restart
// kept what the replica held (RestartRedisLosing). A job a worker took was
// handed over; its event may then close as already dispatched, with no add
// and no WAIT.
func (ix *index) judgeDurable(t *tally) {
	if ix.run.Meta.Durability != DurabilityWait {
		return
	}
	for _, l := range ix.lost {
		if !l.Published || !l.Recreated.IsZero() || l.Taken {
			continue
		}
		for _, e := range ix.eventsByJob[l.Job] {
			if ix.finalOutbox[e.ID].Status != history.StatusPublished {
				continue
			}
			inst := appendUnique(nil, ix.lastTransition(e.ID).LockedBy)
			ix.failOn(t, e, l.Created, l.Created.Add(-time.Second), inst, fmt.Sprintf(
				"Event %d ended published, but its job %s, which Redis acknowledged at %s, was lost in Redis's restart and never added again. "+
					"The adapter declares durability: wait: an event is marked published only once a replica holds its job (WAIT), and the restart kept what the replica held.",
				e.ID, l.Job, l.Created.Format("15:04:05.000")))
		}
	}
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
		case !ix.hasJobs():
		case !jobExists:
			return fmt.Sprintf("Event %d was published but its job %s does not exist in ai_jobs.", e.ID, e.JobID), at, false
		case !queuedOrLater(jobSt):
			return fmt.Sprintf("Event %d was published but its job %s is still %s, not queued.", e.ID, e.JobID, jobSt), at, false
		}
		if msg, at := ix.publishedUnqueued(e); msg != "" {
			return msg, at, false
		}
		switch {
		case !aq && !created && ix.creationsBlind(ix.queueOf(e)):
			return "", at, true
		case !aq && !created:
			return fmt.Sprintf("Event %d was published but no %s was ever created for its job %s.", e.ID, ix.sinkJob(), e.JobID), at, false
		case !aq:
			return ix.publishedEarly(e)
		}
	case history.StatusFailed:
		switch {
		case queuedOrLater(jobSt) && aq:
			return fmt.Sprintf("Event %d ended failed but its job %s was already %s: %s.", e.ID, e.JobID, jobSt, ruleAlreadyDispatched), at, false
		case queuedOrLater(jobSt):
			return fmt.Sprintf("Event %d ended failed but its job %s is %s.", e.ID, e.JobID, jobSt), at, false
		case !aq && created:
			return fmt.Sprintf("Event %d ended failed, yet a %s exists for its job %s.", e.ID, ix.sinkJob(), e.JobID), at, false
		}
	default:
		if !aq && queuedOrLater(jobSt) {
			return fmt.Sprintf("Job %s is %s while its event %d is still %s.", e.JobID, jobSt, e.ID, row.Status), at, false
		}
	}
	return "", time.Time{}, false
}

// publishedEarly finds an event marked published before its job was first
// created. Only a creation the events stream dates can prove it: a stream
// entry's id is Redis's own time of the add, while a keyspace note carries
// the time the harness got round to it, which under load lags the add by
// more than ClockSlack (a dispatcher that writes no stream would be accused
// of publishing early when it did not). A keyspace-only creation is an
// upper bound, and proves nothing here.
func (ix *index) publishedEarly(e history.Event) (string, time.Time, bool) {
	cs := ix.creations.byJob[e.JobID]
	if len(cs) == 0 || cs[0].Stream == nil {
		return "", time.Time{}, false
	}
	for i, t := range ix.outbox[e.ID] {
		if ix.moveAt(e.ID, i) == moveFinalize && t.NewStatus == history.StatusPublished {
			if cs[0].At.After(t.At.Add(ClockSlack)) {
				return fmt.Sprintf("Event %d was marked published by %s at %s, before its job %s was created in BullMQ at %s.",
					e.ID, orSomeone(t.LockedBy), clock(t.At), e.JobID, clock(cs[0].At)), t.At, false
			}
			break
		}
	}
	return "", time.Time{}, false
}

// publishedUnqueued finds the moment event e was marked published while its
// job was not yet queued or later (see the definition). It judges the first
// publish only; "" when there is nothing to judge or it was fine.
func (ix *index) publishedUnqueued(e history.Event) (string, time.Time) {
	jts := ix.jobs[e.JobID]
	if len(jts) == 0 {
		return "", time.Time{}
	}
	if _, gap := ix.triggersGap(); gap {
		return "", time.Time{}
	}
	for i, p := range ix.outbox[e.ID] {
		if ix.moveAt(e.ID, i) != moveFinalize || p.NewStatus != history.StatusPublished {
			continue
		}
		status, next := jobStatusAt(jts, p.Seq)
		if queuedOrLater(status) {
			return "", time.Time{}
		}
		if next != nil && next.Op == "update" && next.OldStatus == history.JobCreated && next.NewStatus == history.JobQueued {
			return "", time.Time{}
		}
		if next != nil && ix.lostRace(e.JobID, *next) {
			return "", time.Time{}
		}
		later := "it never became queued"
		if next != nil {
			later = fmt.Sprintf("it went %s -> %s only at %s", next.OldStatus, next.NewStatus, clock(next.At))
		}
		return fmt.Sprintf("Event %d was marked published by %s at %s while its job %s was still %s (%s): %s.",
			e.ID, orSomeone(p.LockedBy), clock(p.At), e.JobID, jobWord(status), later, ruleStep4), p.At
	}
	return "", time.Time{}
}

// lostRace tells whether the dispatcher's own move of the job to queued
// may have lost a race with a worker: the job's next transition after the
// publish is a worker's (past queued) made after the consumer took the job
// from BullMQ (ClockSlack allowed), and the run shows dispatchers moving
// jobs created -> queued at all (a guarded update that finds the job
// already running writes nothing, so it leaves no transition). A
// dispatcher that never once moves a job to queued gets no such benefit.
func (ix *index) lostRace(job string, next history.Transition) bool {
	if !queuedOrLater(next.NewStatus) || next.NewStatus == history.JobQueued || !ix.movesToQueued() {
		return false
	}
	for _, tk := range ix.creations.takes[job] {
		if !tk.At.After(next.At.Add(ClockSlack)) {
			return true
		}
	}
	return false
}

// movesToQueued tells whether any job row was moved created -> queued in
// the run: only a dispatcher makes that move.
func (ix *index) movesToQueued() bool {
	for _, jts := range ix.jobs {
		if movedToQueued(jts) {
			return true
		}
	}
	return false
}

// movedToQueued tells whether a job's transitions include created -> queued.
func movedToQueued(jts []history.Transition) bool {
	for _, t := range jts {
		if t.Op == "update" && t.OldStatus == history.JobCreated && t.NewStatus == history.JobQueued {
			return true
		}
	}
	return false
}

// jobStatusAt is a job row's status just before sequence number seq (from
// its recorded transitions, "" when it did not exist yet), and its first
// transition after seq (nil when none).
func jobStatusAt(jts []history.Transition, seq int64) (string, *history.Transition) {
	status := ""
	for i, t := range jts {
		if t.Seq > seq {
			return status, &jts[i]
		}
		if t.Op == "delete" {
			status = ""
		} else {
			status = t.NewStatus
		}
	}
	return status, nil
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
