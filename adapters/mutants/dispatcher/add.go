package dispatcher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/reference/bullmq"
	"github.com/redis/go-redis/v9"
)

// add writes the job of every fateAdd event in the flow's way, bounded by
// PublishTimeout, and turns each fate into published, failed or retry. A
// whole-call error leaves every outcome unknown: all are transient failures.
func (d *Dispatcher) add(ctx context.Context, b *batch, fates []fate) {
	var jobs []bullmq.Job
	var at []int // index into b.events of each job
	for i, f := range fates {
		if f.kind == fateAdd {
			jobs = append(jobs, d.newJob(b.events[i], f.queue))
			at = append(at, i)
		}
	}
	ctx, cancel := d.bounded(ctx, d.cfg.PublishTimeout)
	defer cancel()
	results, err := d.addJobs(ctx, jobs)
	if err == nil && len(results) != len(jobs) {
		err = fmt.Errorf("add returned %d results for %d jobs", len(results), len(jobs))
	}
	for k, i := range at {
		if err != nil && d.flow.replyFails && redisErrorReply(err) {
			fates[i] = fate{kind: fateFail, text: "publish batch: " + err.Error()} // transient-as-permanent
			continue
		}
		if err != nil {
			fates[i] = retry(fmt.Errorf("publish batch: %w", err))
			continue
		}
		fates[i] = d.addFate(results[k])
	}
}

func (d *Dispatcher) addJobs(ctx context.Context, jobs []bullmq.Job) ([]bullmq.Result, error) {
	if d.flow.scriptOnce {
		// script-loaded-once: the script is loaded at the first add; every
		// later load is answered by scriptOnceClient, never sent.
		if err := d.producer.LoadScript(ctx); err != nil {
			return nil, err
		}
	}
	switch d.flow.add {
	case addNumericID:
		return d.runEach(ctx, jobs, d.addWithoutJobID)
	case addBlindPush:
		return d.runEach(ctx, jobs, d.pushWithoutCheck)
	case addOverwrite:
		return d.addOverwriting(ctx, jobs)
	}
	return d.producer.Add(ctx, jobs)
}

// addFate maps one add result onto the event's fate.
func (d *Dispatcher) addFate(r bullmq.Result) fate {
	switch {
	case errors.Is(r.Err, bullmq.ErrIllegalJobID):
		return d.permanent(reference.ReasonIllegalJobID, "%v", r.Err)
	case errors.Is(r.Err, bullmq.ErrNotReplicated) && d.flow.waitUnchecked:
		return publish(howAdded) // wait-unchecked: WAIT's count is not read
	case r.Err != nil && d.flow.replyFails && redisErrorReply(r.Err):
		return fate{kind: fateFail, text: "publish job: " + r.Err.Error()} // transient-as-permanent
	case r.Err != nil:
		return retry(fmt.Errorf("publish job: %w", r.Err))
	case r.Outcome == bullmq.Added:
		return publish(howAdded)
	case r.Outcome == bullmq.Duplicate, r.Outcome == bullmq.Deduped:
		return publish(howDuplicate)
	}
	return retry(fmt.Errorf("publish job: unknown outcome %v", r.Outcome))
}

// redisErrorReply tells whether Redis answered with an error reply (READONLY,
// LOADING, OOM, WRONGTYPE, ...), not a lost connection or a timeout.
// transient-as-permanent takes every such reply for a verdict on the event.
func redisErrorReply(err error) bool {
	var rd redis.Error
	return errors.As(err, &rd) && !errors.Is(err, redis.Nil)
}

// newJob is the event's BullMQ job: jobId = ai_jobs.id, data = {"jobId":
// id}. overwrite-job-data also writes who dispatched it into data, so that
// its overwrite of an existing job is visible.
func (d *Dispatcher) newJob(e event, queue string) bullmq.Job {
	data := map[string]string{"jobId": e.jobID}
	if d.flow.add == addOverwrite {
		data["dispatcher"] = d.cfg.InstanceID
	}
	text, _ := json.Marshal(data) // a map of strings always marshals
	return bullmq.Job{Queue: queue, ID: e.jobID, Name: e.typ, Data: string(text)}
}

// runEach runs one script call per job (the bugs' adds need no speed).
func (d *Dispatcher) runEach(ctx context.Context, jobs []bullmq.Job, one func(context.Context, bullmq.Job) error) ([]bullmq.Result, error) {
	results := make([]bullmq.Result, len(jobs))
	for i, j := range jobs {
		if err := one(ctx, j); err != nil {
			return nil, err
		}
		results[i] = bullmq.Result{Job: j, Outcome: bullmq.Added}
	}
	return results, nil
}

// key is a BullMQ key of queue q.
func (d *Dispatcher) key(q, suffix string) string { return d.cfg.BullPrefix + ":" + q + ":" + suffix }

// jobOpts is the opts JSON of a job with a custom id, as the producer writes it.
func jobOpts(id string) string {
	text, _ := json.Marshal(struct {
		JobID    string `json:"jobId"`
		Attempts int    `json:"attempts"`
		Delay    int    `json:"delay"`
	}{JobID: id}) // a struct of a string and two ints always marshals
	return string(text)
}

// addWithoutJobID is no-jobid: a BullMQ add with no custom jobId, so the
// queue's id counter names the job ("1", "2", ...) and a second add of the
// same event creates a second job. data still carries {"jobId": id}.
func (d *Dispatcher) addWithoutJobID(ctx context.Context, j bullmq.Job) error {
	keys := []string{d.key(j.Queue, "id"), d.key(j.Queue, "meta"), d.key(j.Queue, "wait"),
		d.key(j.Queue, "paused"), d.key(j.Queue, "marker"), d.key(j.Queue, "events")}
	err := addNumericScript.Run(ctx, d.rdb, keys, d.key(j.Queue, ""), j.Name, j.Data, `{"attempts":0,"delay":0}`).Err()
	if err != nil {
		return fmt.Errorf("add job for %q without a jobId: %w", j.ID, err)
	}
	return nil
}

// pushWithoutCheck is push-without-check: the job hash is written and the
// id pushed on wait whether or not the job exists, and no event is written
// to the queue's stream.
func (d *Dispatcher) pushWithoutCheck(ctx context.Context, j bullmq.Job) error {
	keys := []string{d.key(j.Queue, j.ID), d.key(j.Queue, "wait"), d.key(j.Queue, "marker")}
	if err := blindPushScript.Run(ctx, d.rdb, keys, j.ID, j.Name, j.Data, jobOpts(j.ID)).Err(); err != nil {
		return fmt.Errorf("push job %q: %w", j.ID, err)
	}
	return nil
}

// addOverwriting is overwrite-job-data: the producer's add, then, for a job
// that already existed, HSET of data and opts over it.
func (d *Dispatcher) addOverwriting(ctx context.Context, jobs []bullmq.Job) ([]bullmq.Result, error) {
	results, err := d.producer.Add(ctx, jobs)
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		if r.Err != nil || r.Outcome != bullmq.Duplicate {
			continue
		}
		j := r.Job
		if err := d.rdb.HSet(ctx, d.key(j.Queue, j.ID), "data", j.Data, "opts", jobOpts(j.ID)).Err(); err != nil {
			return nil, fmt.Errorf("overwrite job %q: %w", j.ID, err)
		}
	}
	return results, nil
}
