package reports

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// runBuilder writes realistic histories for the stored runs: the rows'
// transitions as the triggers record them, Redis stream entries and key
// notes, consumer takes, processes and faults.
type runBuilder struct {
	run   history.Run
	t0    time.Time
	lease time.Duration
}

func newRunBuilder(meta history.Meta) *runBuilder {
	return &runBuilder{run: history.Run{Meta: meta}, t0: meta.Started, lease: meta.Tuning.Lease.D()}
}

func (b *runBuilder) at(ms float64) time.Time {
	return b.t0.Add(time.Duration(ms * float64(time.Millisecond)))
}

func jobName(id int64) string { return fmt.Sprintf("job-%04d", id) }

func (b *runBuilder) outbox(t history.Transition) {
	t.Table = history.TableOutbox
	if t.Op == "" {
		t.Op = "update"
	}
	b.run.Transitions = append(b.run.Transitions, t)
}

// produce commits an event and its job row in one transaction.
func (b *runBuilder) produce(id int64, kind, typ, queue string, at time.Time) {
	job := jobName(id)
	b.run.Events = append(b.run.Events, history.Event{ID: id, Type: typ, JobID: job, Queue: queue, Kind: kind, Produced: at})
	b.run.Transitions = append(b.run.Transitions, history.Transition{Table: history.TableJobs, Key: job, Op: "insert", At: at, NewStatus: history.JobCreated})
	avail := at
	b.outbox(history.Transition{Key: strconv.FormatInt(id, 10), Op: "insert", At: at.Add(10 * time.Microsecond), NewStatus: history.StatusPending, AvailableAt: &avail})
}

// claim moves the row to processing under inst and returns the lock token.
func (b *runBuilder) claim(id int64, inst string, attempt int, at time.Time, oldStatus, oldToken string) string {
	tok := fmt.Sprintf("%s-%d-%d", inst, id, attempt)
	until := at.Add(b.lease)
	b.outbox(history.Transition{Key: strconv.FormatInt(id, 10), At: at, OldStatus: oldStatus, NewStatus: history.StatusProcessing,
		Attempts: attempt, LockedBy: inst, LockToken: tok, LockedUntil: &until, OldLockToken: oldToken})
	return tok
}

// add records a BullMQ job creation: the stream's added and waiting entries
// and the new job key.
func (b *runBuilder) add(id int64, queue string, at time.Time) {
	job := jobName(id)
	ms := at.UnixMilli()
	b.run.Stream = append(b.run.Stream,
		history.StreamEntry{Queue: queue, ID: fmt.Sprintf("%d-0", ms), At: at, Event: "added", JobID: job, Name: "ai.job"},
		history.StreamEntry{Queue: queue, ID: fmt.Sprintf("%d-1", ms), At: at, Event: "waiting", JobID: job})
	b.run.Keys = append(b.run.Keys, history.KeyNote{Queue: queue, JobID: job, Event: "new", DataJobID: job,
		Data: `{"jobId":"` + job + `"}`, Opts: `{"attempts":1,"removeOnComplete":true}`, At: at.Add(300 * time.Microsecond)})
}

// publish finalizes the row and moves its job created -> queued, together.
func (b *runBuilder) publish(id int64, inst, tok string, attempt int, at time.Time) {
	b.outbox(history.Transition{Key: strconv.FormatInt(id, 10), At: at, OldStatus: history.StatusProcessing, NewStatus: history.StatusPublished,
		Attempts: attempt, LockedBy: inst, LockToken: tok, OldLockToken: tok})
	b.run.Transitions = append(b.run.Transitions, history.Transition{Table: history.TableJobs, Key: jobName(id), Op: "update", At: at,
		OldStatus: history.JobCreated, NewStatus: history.JobQueued})
}

// retry puts the row back to pending with an error and a backoff.
func (b *runBuilder) retry(id int64, inst, tok string, attempt int, at time.Time, errText string, backoff time.Duration, oldErr string) {
	avail := at.Add(backoff)
	b.outbox(history.Transition{Key: strconv.FormatInt(id, 10), At: at, OldStatus: history.StatusProcessing, NewStatus: history.StatusPending,
		Attempts: attempt, AvailableAt: &avail, OldLockToken: tok, LastError: errText, OldLastError: oldErr})
}

// fail finalizes the row as failed.
func (b *runBuilder) fail(id int64, inst, tok string, attempt int, at time.Time, errText, oldErr string) {
	b.outbox(history.Transition{Key: strconv.FormatInt(id, 10), At: at, OldStatus: history.StatusProcessing, NewStatus: history.StatusFailed,
		Attempts: attempt, LockedBy: inst, LockToken: tok, OldLockToken: tok, LastError: errText, OldLastError: oldErr})
}

// consume records the consumer taking the job, completing it and BullMQ
// removing it (removeOnComplete).
func (b *runBuilder) consume(id int64, queue, worker string, at time.Time) {
	job := jobName(id)
	ms := at.UnixMilli()
	b.run.Takes = append(b.run.Takes, history.Take{Queue: queue, JobID: job, DataJobID: job, Worker: worker, At: at})
	done := at.Add(4 * time.Millisecond)
	b.run.Stream = append(b.run.Stream,
		history.StreamEntry{Queue: queue, ID: fmt.Sprintf("%d-2", ms), At: at, Event: "active", JobID: job, Extra: map[string]string{"prev": "waiting"}},
		history.StreamEntry{Queue: queue, ID: fmt.Sprintf("%d-0", done.UnixMilli()), At: done, Event: "completed", JobID: job, Extra: map[string]string{"returnvalue": "null"}})
	b.run.Keys = append(b.run.Keys, history.KeyNote{Queue: queue, JobID: job, Event: "del", At: done.Add(200 * time.Microsecond)})
}

func (b *runBuilder) process(inst, action string, at time.Time, pid int, detail string) {
	b.run.Processes = append(b.run.Processes, history.ProcessEvent{Instance: inst, Action: action, At: at, PID: pid, Detail: detail})
}

func (b *runBuilder) fault(kind, target string, start, end time.Time, params map[string]string) {
	b.run.Faults = append(b.run.Faults, history.Fault{ID: len(b.run.Faults) + 1, Kind: kind, Target: target, Params: params, Start: start, End: end})
}

// finish numbers the transitions in time order and takes the final scan
// from the last state of every row.
func (b *runBuilder) finish() history.Run {
	run := b.run
	sort.SliceStable(run.Transitions, func(i, j int) bool { return run.Transitions[i].At.Before(run.Transitions[j].At) })
	type rowState struct {
		status, err string
		attempts    int
		published   *time.Time
		created     time.Time
	}
	outbox := map[string]*rowState{}
	jobs := map[string]string{}
	for i := range run.Transitions {
		t := &run.Transitions[i]
		t.Seq = int64(i + 1)
		if t.Table == history.TableJobs {
			jobs[t.Key] = t.NewStatus
			continue
		}
		st := outbox[t.Key]
		if st == nil {
			st = &rowState{created: t.At}
			outbox[t.Key] = st
		}
		st.status, st.attempts = t.NewStatus, t.Attempts
		if t.LastError != "" {
			st.err = t.LastError
		}
		if t.NewStatus == history.StatusPublished && st.published == nil {
			at := t.At
			st.published = &at
		}
	}
	run.Final = history.Final{At: run.Meta.Ended, Queues: map[string]history.QueueScan{}}
	for _, e := range run.Events {
		st := outbox[strconv.FormatInt(e.ID, 10)]
		run.Final.Outbox = append(run.Final.Outbox, history.OutboxRow{ID: e.ID, Type: e.Type, JobID: e.JobID, Status: st.status,
			Attempts: st.attempts, LastError: st.err, PublishedAt: st.published, Created: st.created})
		run.Final.Jobs = append(run.Final.Jobs, history.JobRow{ID: e.JobID, Queue: e.Queue, Status: jobs[e.JobID]})
	}
	for _, q := range run.Meta.Queues {
		run.Final.Queues[q] = history.QueueScan{Lists: map[string][]string{"wait": {}, "active": {}, "completed": {}, "failed": {}}, Jobs: map[string]history.JobHash{}}
	}
	run.Sort()
	return run
}
