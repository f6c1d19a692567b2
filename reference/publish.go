package reference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/outboxchaos/outboxchaos/reference/bullmq"
)

// leaseAllowsAdd is the local lease check before the Redis write (asynq's
// idea): the add may take up to PublishTimeout, and it must end inside the
// lease, or another instance may already hold the events.
func (d *Dispatcher) leaseAllowsAdd(b *Batch) bool {
	return b.Deadline().Sub(d.local()) > d.cfg.PublishTimeout
}

// publish adds the jobs of every fateAdd event with one Producer.Add call,
// bounded by PublishTimeout, and turns each into fatePublish (the add
// succeeded or was a no-op) or a failure. A whole-call error leaves every
// outcome unknown: all are transient failures.
func (d *Dispatcher) publish(ctx context.Context, b *Batch, fates []fate) {
	var jobs []bullmq.Job
	var at []int // index into b.Events of each job
	for i, f := range fates {
		if f.kind != fateAdd {
			continue
		}
		jobs = append(jobs, newJob(b.Events[i], f.queue))
		at = append(at, i)
	}
	if len(jobs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.PublishTimeout)
	defer cancel()
	results, err := d.producer.Add(ctx, jobs)
	if err == nil && len(results) != len(jobs) {
		err = fmt.Errorf("producer returned %d results for %d jobs", len(results), len(jobs))
	}
	for k, i := range at {
		if err != nil {
			fates[i] = retry(fmt.Errorf("publish batch: %w", err))
			continue
		}
		fates[i] = addFate(results[k])
	}
}

// addFate maps one add result onto the event's fate.
func addFate(r bullmq.Result) fate {
	switch {
	case errors.Is(r.Err, bullmq.ErrIllegalJobID):
		return failed(ReasonIllegalJobID, "%v", r.Err)
	case r.Err != nil:
		return retry(fmt.Errorf("publish job: %w", r.Err))
	case r.Outcome == bullmq.Added:
		return publish(HowAdded)
	case r.Outcome == bullmq.Duplicate:
		return publish(HowDuplicate)
	case r.Outcome == bullmq.Deduped:
		return publish(HowDeduped)
	}
	return retry(fmt.Errorf("publish job: unknown outcome %v", r.Outcome))
}

// newJob builds the BullMQ job of an event: jobId = ai_jobs.id, data =
// {"jobId":"<id>"}, name = the event type.
func newJob(e Event, queue string) bullmq.Job {
	data, _ := json.Marshal(struct {
		JobID string `json:"jobId"`
	}{e.JobID}) // marshalling a struct of one string cannot fail
	return bullmq.Job{Queue: queue, ID: e.JobID, Name: e.Type, Data: string(data)}
}
