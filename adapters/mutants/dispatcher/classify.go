package dispatcher

import (
	"context"
	"fmt"

	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/reference/bullmq"
	"github.com/outboxchaos/outboxchaos/reference/dispatchkit"
)

// How a published event was closed.
const (
	howAdded             = "added"
	howDuplicate         = "duplicate"
	howAlreadyDispatched = "already_dispatched" // the job was past created: no add
)

type fateKind int

const (
	fateAdd     fateKind = iota + 1 // valid and due for the add
	fatePublish                     // close as published
	fateFail                        // close as failed with a permanent reason
	fateRetry                       // transient failure: pending with backoff, or failed at the maximum
)

// fate is what the batch decided for one event.
type fate struct {
	kind  fateKind
	queue string // fateAdd
	how   string // fatePublish
	text  string // fateFail: "<reason>: <detail>"; fateRetry: the error
}

func publish(how string) fate { return fate{kind: fatePublish, how: how} }
func retry(err error) fate    { return fate{kind: fateRetry, text: err.Error()} }

// permanent is a permanent failure: failed at once (the base), or a retry
// (poison-as-transient).
func (d *Dispatcher) permanent(reason, format string, args ...any) fate {
	text := reason + ": " + fmt.Sprintf(format, args...)
	if !d.flow.poisonFails {
		return fate{kind: fateRetry, text: text}
	}
	return fate{kind: fateFail, text: text}
}

func hasAdds(fates []fate) bool {
	for _, f := range fates {
		if f.kind == fateAdd {
			return true
		}
	}
	return false
}

// classify applies the contract's step 2 to every event: unknown type, no
// job, a job already past created (closed with no add), queue not allowed,
// illegal job id, else an add. If the jobs cannot be read, every event is a
// transient failure.
func (d *Dispatcher) classify(ctx context.Context, b *batch) []fate {
	fates := make([]fate, len(b.events))
	jobs, err := d.loadJobs(ctx, b)
	for i, e := range b.events {
		if err != nil {
			fates[i] = retry(err)
			continue
		}
		fates[i] = d.classifyOne(e, jobs)
	}
	return fates
}

func (d *Dispatcher) classifyOne(e event, jobs map[string]dispatchkit.Job) fate {
	job, found := jobs[e.jobID]
	switch {
	case e.typ != reference.EventTypeEnqueue:
		return d.permanent(reference.ReasonUnknownEventType, "event type %q is not %q", e.typ, reference.EventTypeEnqueue)
	case !found:
		return d.permanent(reference.ReasonJobNotFound, "ai_jobs has no row with id %q", e.jobID)
	case job.Status != "created":
		return publish(howAlreadyDispatched)
	case !d.queues[job.Queue]:
		return d.permanent(reference.ReasonQueueNotAllowed, "queue %q of job %q is not allowed", job.Queue, e.jobID)
	}
	if err := bullmq.ValidateJobID(e.jobID); err != nil {
		return d.permanent(reference.ReasonIllegalJobID, "%v", err)
	}
	return fate{kind: fateAdd, queue: job.Queue}
}

// loadJobs reads the batch's ai_jobs rows in one query.
func (d *Dispatcher) loadJobs(ctx context.Context, b *batch) (map[string]dispatchkit.Job, error) {
	var ids []string
	for _, e := range b.events {
		ids = append(ids, e.jobID)
	}
	ctx, cancel := d.opContext(ctx)
	defer cancel()
	return dispatchkit.LoadJobs(ctx, d.db, ids)
}
