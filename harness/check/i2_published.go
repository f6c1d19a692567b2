package check

import (
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// judgePublished is I2, eventually published.
//
// Definition. Every valid event (kind valid or already-queued) ends, in the
// final scan after heal and drain, published with its job queued or later.
// One that does not is a fail when its state is terminal (failed, or
// published with the job not queued), when the drain gave it enough time
// (from the heal, or its production if later, to the end of the run: at
// least lease + backoff max + 2 poll intervals + 2s), or when it is stuck in
// processing under a lease that ran out longer ago than the recovery bound of
// I8. Otherwise it is unknown: the run did not quiesce. A valid event whose
// queue was broken (queue-error) for every attempt it made is expected to
// end failed and is not counted (brokenQueueFailed).
func (ix *index) judgePublished(t *tally) Result {
	n, expected := 0, 0
	for _, e := range ix.events {
		if isPoison(e.Kind) {
			continue
		}
		if ix.brokenQueueFailed(e) {
			expected++
			continue
		}
		n++
		ix.checkPublished(t, e)
	}
	if n == 0 {
		return skipped("I2", "the run produced no valid events")
	}
	pass := fmt.Sprintf("every valid event (%d) published with its job queued", n)
	if !ix.hasJobs() {
		pass = fmt.Sprintf("every valid event (%d) published", n)
	}
	if expected > 0 {
		pass += fmt.Sprintf("; %d more ended failed as expected, their queue broken for all their attempts", expected)
	}
	return t.result(pass)
}

func (ix *index) checkPublished(t *tally, e history.Event) {
	row, ok := ix.finalOutbox[e.ID]
	if !ok {
		t.doubt("event %d has no row in the final scan", e.ID)
		return
	}
	jobSt := ix.jobStatus(e.JobID)
	if row.Status == history.StatusPublished && (queuedOrLater(jobSt) || !ix.hasJobs()) {
		return
	}
	summary, focus, inst := ix.notPublished(e, row, jobSt)
	if summary == "" {
		needed := drainNeeded(ix.run.Meta.Tuning)
		had := runEnd(ix.run).Sub(drainFrom(ix.run, e.Produced))
		t.doubt("event %d was still %s at the end, but the drain lasted %s of the %s a correct dispatcher may need (run did not quiesce)",
			e.ID, row.Status, span(had), span(needed))
		return
	}
	ix.failOn(t, e, focus, focus.Add(-ix.run.Meta.Tuning.Lease.D()), inst, summary)
}

// notPublished tells why a valid event is proven not published ("" when it
// is not proven), when, and which instances were involved.
func (ix *index) notPublished(e history.Event, row history.OutboxRow, jobSt string) (string, time.Time, []string) {
	last := ix.lastTransition(e.ID)
	inst := appendUnique(nil, last.LockedBy)
	end := runEnd(ix.run)
	switch {
	case row.Status == history.StatusFailed && e.Kind == history.KindAlreadyQueued:
		return fmt.Sprintf("Event %d (job %s, already %s before the event) ended failed at attempt %d instead of published: %s; %s.",
			e.ID, e.JobID, jobWord(jobSt), row.Attempts, quote(row.LastError), ruleAlreadyDispatched), last.At, inst
	case row.Status == history.StatusFailed:
		return fmt.Sprintf("Event %d (job %s) ended failed at attempt %d instead of published: %s.", e.ID, e.JobID, row.Attempts, quote(row.LastError)), last.At, inst
	case row.Status == history.StatusPublished:
		return fmt.Sprintf("Event %d was published but its job %s ended %s instead of queued.", e.ID, e.JobID, jobWord(jobSt)), last.At, inst
	}
	if c, ok := ix.cursorPassed(e.ID); ok && row.Status == history.StatusPending {
		return fmt.Sprintf("Event %d (job %s) was never published: the cursor passed its id at %s (offset %d, written by %s) before the event's transaction had committed, and a cursor does not go back for it.",
			e.ID, e.JobID, clock(c.At), c.Offset, orSomeone(c.Writer)), c.At, appendUnique(nil, c.Writer)
	}
	if h, ok := ix.stuck(e.ID); ok {
		return fmt.Sprintf("Event %d (job %s) was still held by %s at the end, although its lease ran out at %s.", e.ID, e.JobID, h.Owner, clock(*h.Until)), *h.Until, appendUnique(nil, h.Owner)
	}
	if drainAdequate(ix.run, e.Produced) {
		had := end.Sub(drainFrom(ix.run, e.Produced))
		return fmt.Sprintf("Event %d (job %s) was still %s at the end, %s after the heal, although a correct dispatcher needs at most %s.",
			e.ID, e.JobID, row.Status, span(had), span(drainNeeded(ix.run.Meta.Tuning))), end, inst
	}
	return "", time.Time{}, nil
}

// stuck returns the hold an event is stuck in: still held at the end of the
// history, under a lease that ran out more than the I8 recovery bound before
// the run ended.
func (ix *index) stuck(event int64) (hold, bool) {
	hs := ix.holds[event]
	if len(hs) == 0 || ix.finalOutbox[event].Status != history.StatusProcessing {
		return hold{}, false
	}
	h := hs[len(hs)-1]
	if h.End != nil || h.Until == nil {
		return hold{}, false
	}
	deadline := h.Until.Add(recoveryBound(ix.run.Meta.Tuning, h.Until.Sub(h.Start)) + ClockSlack)
	return h, deadline.Before(runEnd(ix.run))
}

// lastTransition is an event's last outbox transition (zero when none).
func (ix *index) lastTransition(event int64) history.Transition {
	ts := ix.outbox[event]
	if len(ts) == 0 {
		return history.Transition{}
	}
	return ts[len(ts)-1]
}

func isPoison(kind string) bool {
	switch kind {
	case history.KindUnknownType, history.KindMissingJob, history.KindQueueDenied, history.KindIllegalJobID,
		history.KindLongError, history.KindMultibyteError:
		return true
	}
	return false
}

func jobWord(status string) string {
	if status == "" {
		return "missing"
	}
	return status
}

// cursorPassed is the first write of the outbox's cursor (an offsets
// table's record, harness/model) whose offset reached event id; ok is false
// for an outbox without a cursor, or one that never reached it. An event
// still pending after it was passed by its transaction's commit time would
// have been published by that move, so it was passed before.
func (ix *index) cursorPassed(id int64) (history.Transition, bool) {
	for _, t := range ix.run.Transitions {
		if t.Table == history.TableCursor && t.Offset >= id {
			return t, true
		}
	}
	return history.Transition{}, false
}
