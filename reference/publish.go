package reference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

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
// succeeded or was a no-op) or a failure (doc.go, "Dependency health"): an
// error reply about one job is that event's transient failure; no answer
// (for the whole call, or a server-wide reply such as LOADING) opens the
// Redis breaker and gives the events back, spending no attempt. With
// OUTBOX_REDIS_REPLICAS set, an add that WAIT did not count on that many
// replicas is given back too: Redis has the job, a failover may not.
func (d *Dispatcher) publish(work context.Context, b *Batch, fates []fate) {
	jobs, at := selectFates(b, fates, func(_ Event, f fate) bool { return f.kind == fateAdd },
		func(e Event, f fate) bullmq.Job { return newJob(e, f.queue) })
	if len(jobs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(work, d.cfg.PublishTimeout)
	defer cancel()
	results, err := d.producer.Add(ctx, jobs)
	if err == nil && len(results) != len(jobs) {
		err = fmt.Errorf("producer returned %d results for %d jobs", len(results), len(jobs))
	}
	if err != nil {
		outage := heard(work, d.redisB, err)
		for _, i := range at {
			fates[i] = addFailure(fmt.Errorf("publish batch: %w", err), fates[i].queue, outage)
		}
		return
	}
	answered := true
	for k, i := range at {
		if r := results[k]; errors.Is(r.Err, bullmq.ErrNotReplicated) {
			fates[i] = giveBack(fmt.Errorf("publish job: %w", r.Err)) // Redis has it; a replica may not
			continue
		}
		if r := results[k]; r.Err != nil && answeredNothing(r.Err) {
			heard(work, d.redisB, r.Err)
			fates[i], answered = giveBack(fmt.Errorf("publish job: %w", r.Err)), false
			continue
		}
		fates[i] = addFate(results[k], fates[i].queue)
	}
	if answered {
		d.redisB.answered()
	}
}

// waitTimeout bounds the WAIT that ends an add batch when the dispatcher
// waits for replicas (OUTBOX_REDIS_REPLICAS): a quarter of the publish
// timeout, so the adds before it keep the rest.
func waitTimeout(publish time.Duration) time.Duration {
	return max(publish/4, time.Millisecond)
}

// addFailure is the fate of an event whose add failed as a whole: given
// back when Redis answered nothing, else a transient failure.
func addFailure(err error, queue string, outage bool) fate {
	if outage {
		return giveBack(err)
	}
	return retryAdd(err, queue)
}

// addFate maps one add result onto the event's fate.
func addFate(r bullmq.Result, queue string) fate {
	switch {
	case errors.Is(r.Err, bullmq.ErrIllegalJobID):
		return failed(ReasonIllegalJobID, "%v", r.Err)
	case r.Err != nil:
		return retryAdd(fmt.Errorf("publish job: %w", r.Err), queue)
	case r.Outcome == bullmq.Added:
		return publish(HowAdded)
	case r.Outcome == bullmq.Duplicate:
		return publish(HowDuplicate)
	case r.Outcome == bullmq.Deduped:
		return publish(HowDeduped)
	}
	return retryAdd(fmt.Errorf("publish job: unknown outcome %v", r.Outcome), queue)
}

// newJob builds the BullMQ job of an event: jobId = ai_jobs.id, data =
// {"jobId":"<id>"}, name = the event type.
func newJob(e Event, queue string) bullmq.Job {
	data, _ := json.Marshal(struct {
		JobID string `json:"jobId"`
	}{e.JobID}) // marshalling a struct of one string cannot fail
	return bullmq.Job{Queue: queue, ID: e.JobID, Name: e.Type, Data: string(data)}
}
