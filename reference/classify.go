package reference

import (
	"context"

	"github.com/outboxchaos/outboxchaos/reference/bullmq"
	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

// jobCreated is the ai_jobs status the dispatcher moves to jobQueued.
const (
	jobCreated = "created"
	jobQueued  = "queued"
)

// classify decides what to do with each event of b (contract step 2): a
// permanent failure, a close with no add (the job is already past created),
// or an add. It loads the batch's jobs with one query; if MySQL answers
// that with an error, every event is a transient failure; if it answers
// nothing, every event is given back (no attempt spent).
func (d *Dispatcher) classify(ctx context.Context, b *Batch) []fate {
	fates := make([]fate, len(b.Events))
	jobs, err := d.loadJobs(ctx, b)
	if err != nil {
		outage := heard(ctx, d.mysqlB, err)
		for i := range fates {
			fates[i] = retry(err)
			if outage {
				fates[i] = giveBack(err)
			}
		}
		return fates
	}
	for i, e := range b.Events {
		fates[i] = d.classifyOne(e, jobs)
	}
	return fates
}

func (d *Dispatcher) classifyOne(e Event, jobs map[string]dispatchkit.Job) fate {
	if e.Type != EventTypeEnqueue {
		return failed(ReasonUnknownEventType, "event type %q is not %q", e.Type, EventTypeEnqueue)
	}
	job, ok := jobs[e.JobID]
	if !ok {
		return failed(ReasonJobNotFound, "ai_jobs has no row with id %q", e.JobID)
	}
	if job.Status != jobCreated {
		return publish(HowAlreadyDispatched)
	}
	if !d.queues[job.Queue] {
		return failed(ReasonQueueNotAllowed, "queue %q of job %q is not in %s", job.Queue, e.JobID, envQueues)
	}
	if err := bullmq.ValidateJobID(e.JobID); err != nil {
		return failed(ReasonIllegalJobID, "%v", err)
	}
	return fate{kind: fateAdd, queue: job.Queue}
}

// loadJobs reads the ai_jobs rows of the batch's enqueue events.
func (d *Dispatcher) loadJobs(ctx context.Context, b *Batch) (map[string]dispatchkit.Job, error) {
	var ids []string
	seen := map[string]bool{}
	for _, e := range b.Events {
		if e.Type == EventTypeEnqueue && !seen[e.JobID] {
			seen[e.JobID] = true
			ids = append(ids, e.JobID)
		}
	}
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	return dispatchkit.LoadJobs(ctx, d.db, ids)
}
