package check

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// t0 is the start of every built history.
var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// ms is t0 plus n milliseconds.
func ms(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

// builder writes histories the way the harness records them: it keeps each
// outbox row, job row and BullMQ queue as state and emits the transitions,
// stream entries, key notes and takes a real run would show, so a test
// history reads like a recorded one.
type builder struct {
	run    history.Run
	seq    int64
	tokens int
	rows   map[int64]*outboxRow
	jobs   map[string]*history.JobRow
	queues map[string]*queueState
	// blind is set while the keyspace observer is disconnected: key notes
	// are not recorded (see keyspaceDown and keyspaceBack).
	blind bool
	// noTokens is a schema without a lock_token column: claims write none.
	noTokens bool
	// attemptsAtFailure counts attempts when a claim fails, not at claim.
	attemptsAtFailure bool
	// writers records who wrote each row, as a run whose slots have their
	// own MySQL users does: a claim is written by its claimer's slot, the
	// producer's insert by the harness, other writes as by says.
	writers bool
	// stored is what the server keeps of a lease end or a backoff end
	// written (wholeSeconds); nil keeps microseconds.
	stored func(time.Time) time.Time
}

// wholeSeconds makes the lease and backoff columns keep whole seconds, as
// the run read them back (Model.Precision 0): the server cuts a written
// fraction (MariaDB) or, with round, rounds it (MySQL, PostgreSQL).
func (b *builder) wholeSeconds(round bool) *builder {
	b.run.Meta.Model.Precision = map[string]int{history.ColumnLockedUntil: 0, history.ColumnAvailableAt: 0}
	b.stored = func(t time.Time) time.Time { return t.Truncate(time.Second) }
	if round {
		b.stored = func(t time.Time) time.Time { return t.Round(time.Second) }
	}
	return b
}

// keep is what the server keeps of time t written to a lease or backoff
// column.
func (b *builder) keep(t time.Time) time.Time {
	if b.stored == nil {
		return t
	}
	return b.stored(t)
}

type outboxRow struct {
	ev          history.Event
	status      string
	attempts    int
	availableAt time.Time
	lockedBy    string
	token       string
	lockedUntil *time.Time
	lastError   string
	publishedAt *time.Time
}

type queueState struct {
	counter int
	hashes  map[string]history.JobHash
	lists   map[string][]string
}

// referenceConventions are what the reference adapter declares.
var referenceConventions = history.Conventions{ReleaseKeepsError: true, RecoveryKeepsError: true}

func newBuilder(scenario string) *builder {
	return &builder{
		run: history.Run{Meta: history.Meta{
			Scenario: scenario, Seed: 1, Adapter: "reference", Environment: "local", Prefix: "bull",
			Queues: []string{"ai-default", "ai-bulk"}, Started: t0, Consumer: true,
			Command: "outboxchaos run --scenario " + scenario,
			Tuning: history.Tuning{
				PollInterval: history.Duration(50 * time.Millisecond), BatchSize: 10,
				Lease: history.Duration(2 * time.Second), MaxAttempts: 5,
				BackoffBase: history.Duration(500 * time.Millisecond), BackoffMax: history.Duration(4 * time.Second),
				PublishTimeout: history.Duration(time.Second),
			},
			// The reference's conventions: releases and recoveries leave
			// last_error as it was.
			Conventions: referenceConventions,
		}},
		rows:   map[int64]*outboxRow{},
		jobs:   map[string]*history.JobRow{},
		queues: map[string]*queueState{},
	}
}

// --- processes, faults, gaps ---

func (b *builder) proc(inst, action string, at int) *builder {
	b.run.Processes = append(b.run.Processes, history.ProcessEvent{Instance: inst, Action: action, At: ms(at), PID: 1000 + len(b.run.Processes)})
	return b
}

func (b *builder) start(at int, insts ...string) *builder {
	for _, i := range insts {
		b.proc(i, "start", at)
	}
	return b
}

func (b *builder) fault(kind, target string, from, to int) *builder {
	f := history.Fault{ID: len(b.run.Faults) + 1, Kind: kind, Target: target, Start: ms(from)}
	if to >= 0 {
		f.End = ms(to)
	}
	b.run.Faults = append(b.run.Faults, f)
	return b
}

// refused is d1's write command name (a store statement when store is
// set), sent at at and answered 1 ms later with the error reply.
func (b *builder) refused(name string, at int, reply, store string) {
	b.run.Commands = append(b.run.Commands, history.Command{Slot: "d1", Store: store, Name: name, Write: true,
		Sent: ms(at), Outcome: history.CommandError, Reply: reply, Replied: ms(at + 1)})
}

func (b *builder) gap(source string, at int, detail string) *builder {
	b.run.Gaps = append(b.run.Gaps, history.Gap{Source: source, At: ms(at), Detail: detail})
	return b
}

// keyspaceDown is the keyspace observer losing its pub/sub connection: a
// gap, and no key notes until keyspaceBack.
func (b *builder) keyspaceDown(at int) *builder {
	b.blind = true
	return b.gap("keyspace", at, "pub/sub connection lost (EOF): notifications until it is back are missing")
}

// keyspaceBack is the observer back: it scans every job hash there is and
// records a "scan" note for each.
func (b *builder) keyspaceBack(at int) *builder {
	b.blind = false
	for _, q := range sortedKeys(b.queues) {
		qs := b.queues[q]
		for _, id := range sortedKeys(qs.hashes) {
			h := qs.hashes[id]
			b.note(history.KeyNote{Queue: q, JobID: id, Event: "scan", DataJobID: h.DataJobID, Data: h.Data, Opts: h.Opts, At: ms(at)})
		}
	}
	return b
}

// note records a key note unless the observer is disconnected.
func (b *builder) note(n history.KeyNote) {
	if !b.blind {
		b.run.Keys = append(b.run.Keys, n)
	}
}

// --- the producer ---

// produce commits one event and, unless it is missing-job, its job row.
func (b *builder) produce(id int64, job, kind string, at int) *builder {
	queue, typ := "ai-default", "ai.job.enqueue"
	switch kind {
	case history.KindQueueDenied:
		queue = "ai-secret"
	case history.KindUnknownType:
		typ = "ai.job.frobnicate"
	}
	e := history.Event{ID: id, Type: typ, JobID: job, Queue: queue, Kind: kind, Produced: ms(at)}
	b.run.Events = append(b.run.Events, e)
	if kind != history.KindMissingJob {
		status := history.JobCreated
		if kind == history.KindAlreadyQueued {
			status = history.JobQueued
		}
		b.jobs[job] = &history.JobRow{ID: job, Queue: queue, Status: status}
		b.seq++
		b.run.Transitions = append(b.run.Transitions, history.Transition{Seq: b.seq, Table: history.TableJobs, Key: job, Op: "insert", At: ms(at), NewStatus: status})
	}
	r := &outboxRow{ev: e, availableAt: ms(at)}
	b.rows[id] = r
	b.emit(r, at, "insert", history.StatusPending, func(*outboxRow) {})
	return b
}

// --- the dispatcher's row writes ---

func (b *builder) emit(r *outboxRow, at int, op, status string, change func(*outboxRow)) {
	old := *r
	change(r)
	r.status = status
	b.seq++
	avail := r.availableAt
	t := history.Transition{
		Seq: b.seq, Table: history.TableOutbox, Key: strconv.FormatInt(r.ev.ID, 10), Op: op, At: ms(at),
		OldStatus: old.status, NewStatus: r.status, Attempts: r.attempts, AvailableAt: &avail,
		LockedBy: r.lockedBy, LockToken: r.token, LockedUntil: r.lockedUntil, LastError: r.lastError,
		OldLockToken: old.token, OldLastError: old.lastError,
	}
	if op == "insert" {
		t.OldStatus, t.OldLockToken, t.OldLastError = "", "", ""
		if b.writers {
			t.Writer = history.WriterHarness
		}
	}
	b.run.Transitions = append(b.run.Transitions, t)
}

// by sets who wrote the transition just emitted: an instance's slot (d1r1
// writes as d1), or history.WriterHarness.
func (b *builder) by(inst string) *builder {
	slot := inst
	if i := strings.LastIndex(inst, "r"); i > 0 && strings.Trim(inst[i+1:], "0123456789") == "" && i+1 < len(inst) {
		slot = inst[:i]
	}
	b.run.Transitions[len(b.run.Transitions)-1].Writer = slot
	return b
}

func (b *builder) lease(at int) *time.Time {
	u := b.keep(ms(at).Add(b.run.Meta.Tuning.Lease.D()))
	return &u
}

func (b *builder) newToken() string {
	if b.noTokens {
		return ""
	}
	b.tokens++
	return fmt.Sprintf("tok%02d-%x", b.tokens, 0xbeef00+b.tokens)
}

// claim is pending -> processing by inst; takeover is processing ->
// processing under a new token.
func (b *builder) claim(id int64, inst string, at int) *builder {
	r := b.rows[id]
	b.emit(r, at, "update", history.StatusProcessing, func(r *outboxRow) {
		if !b.attemptsAtFailure {
			r.attempts++
		}
		r.lockedBy, r.token, r.lockedUntil = inst, b.newToken(), b.lease(at)
	})
	if b.writers {
		b.by(inst)
	}
	return b
}

func (b *builder) takeover(id int64, inst string, at int) *builder { return b.claim(id, inst, at) }

// failTransient returns the row to pending with a new error and a backoff.
func (b *builder) failTransient(id int64, at int, err string, backoff time.Duration) *builder {
	r := b.rows[id]
	b.emit(r, at, "update", history.StatusPending, func(r *outboxRow) {
		if b.attemptsAtFailure {
			r.attempts++
		}
		r.lastError = fmt.Sprintf("%s (attempt %d)", err, r.attempts)
		r.availableAt = b.keep(ms(at).Add(backoff))
	})
	return b
}

// giveBack returns the row to pending with its lock cleared, last_error set
// to reason (kept when reason is ""), and available_at moved to at + delay
// (left alone when delay is zero): a release or recovery that writes a
// reason, or a retry without backoff.
func (b *builder) giveBack(id int64, at int, reason string, delay time.Duration) *builder {
	r := b.rows[id]
	b.emit(r, at, "update", history.StatusPending, func(r *outboxRow) {
		if reason != "" {
			r.lastError = reason
		}
		if delay > 0 {
			r.availableAt = ms(at).Add(delay)
		}
		r.lockedBy, r.token, r.lockedUntil = "", "", nil
	})
	return b
}

// jobMove is a write to a job row by someone other than the dispatcher's
// publish (a worker, or a dispatcher's separate statement).
func (b *builder) jobMove(job, status string, at int) *builder {
	j := b.jobs[job]
	b.seq++
	b.run.Transitions = append(b.run.Transitions, history.Transition{Seq: b.seq, Table: history.TableJobs, Key: job, Op: "update", At: ms(at), OldStatus: j.Status, NewStatus: status})
	j.Status = status
	return b
}

// publishOnly marks the event published and leaves its job as it is.
func (b *builder) publishOnly(id int64, at int) *builder {
	r := b.rows[id]
	b.emit(r, at, "update", history.StatusPublished, func(r *outboxRow) {
		p := ms(at)
		r.publishedAt = &p
	})
	return b
}

// release returns the row to pending with its error unchanged and no lock.
func (b *builder) release(id int64, at int) *builder {
	r := b.rows[id]
	b.emit(r, at, "update", history.StatusPending, func(r *outboxRow) {
		r.lockedBy, r.token, r.lockedUntil = "", "", nil
	})
	return b
}

// publish marks the event published and its job queued, in one transaction.
func (b *builder) publish(id int64, at int) *builder {
	b.publishOnly(id, at)
	if j := b.jobs[b.rows[id].ev.JobID]; j != nil && j.Status == history.JobCreated {
		b.jobMove(j.ID, history.JobQueued, at)
	}
	return b
}

// failPermanent marks the event failed with a reason.
func (b *builder) failPermanent(id int64, at int, reason string) *builder {
	r := b.rows[id]
	b.emit(r, at, "update", history.StatusFailed, func(r *outboxRow) {
		if b.attemptsAtFailure {
			r.attempts++
		}
		r.lastError = reason
	})
	return b
}

// rewrite is an unguarded write by inst over whatever the row holds.
func (b *builder) rewrite(id int64, inst string, at int, status string) *builder {
	r := b.rows[id]
	b.emit(r, at, "update", status, func(r *outboxRow) { r.lockedBy = inst; r.token = b.newToken() })
	return b
}

// --- BullMQ ---

func (b *builder) queue(q string) *queueState {
	if b.queues[q] == nil {
		b.queues[q] = &queueState{hashes: map[string]history.JobHash{}, lists: map[string][]string{}}
	}
	return b.queues[q]
}

// add is a BullMQ add of bullID carrying data.jobId = job: a new job (stream
// added + waiting, keyspace new) unless the hash exists (stream duplicated).
func (b *builder) add(q, bullID, job string, at int) *builder {
	qs := b.queue(q)
	streamID := fmt.Sprintf("%d-%d", ms(at).UnixMilli(), len(b.run.Stream))
	if _, ok := qs.hashes[bullID]; ok {
		b.run.Stream = append(b.run.Stream, history.StreamEntry{Queue: q, ID: streamID, At: ms(at), Event: "duplicated", JobID: bullID})
		return b
	}
	h := history.JobHash{Name: "ai.job.enqueue", Data: fmt.Sprintf(`{"jobId":%q}`, job), Opts: fmt.Sprintf(`{"jobId":%q,"attempts":1}`, bullID), DataJobID: job, Timestamp: strconv.FormatInt(ms(at).UnixMilli(), 10)}
	if history.AllDigits(bullID) {
		h.Opts = `{"attempts":1}`
	}
	qs.hashes[bullID] = h
	qs.lists["wait"] = append([]string{bullID}, qs.lists["wait"]...)
	b.run.Stream = append(b.run.Stream,
		history.StreamEntry{Queue: q, ID: streamID, At: ms(at), Event: "added", JobID: bullID, Name: h.Name},
		history.StreamEntry{Queue: q, ID: streamID + "1", At: ms(at), Event: "waiting", JobID: bullID})
	b.note(history.KeyNote{Queue: q, JobID: bullID, Event: "new", DataJobID: job, Data: h.Data, Opts: h.Opts, At: ms(at + 1)})
	return b
}

// addNumeric is an add without a jobId: BullMQ numbers the job.
func (b *builder) addNumeric(q, job string, at int) *builder {
	qs := b.queue(q)
	qs.counter++
	return b.add(q, strconv.Itoa(qs.counter), job, at)
}

// overwrite is an HSET over an existing job hash with new data.
func (b *builder) overwrite(q, bullID, data string, at int) *builder {
	qs := b.queue(q)
	h := qs.hashes[bullID]
	h.Data, h.DataJobID = data, history.DataJobID(data)
	qs.hashes[bullID] = h
	b.note(history.KeyNote{Queue: q, JobID: bullID, Event: "hset", DataJobID: h.DataJobID, Data: h.Data, Opts: h.Opts, At: ms(at)})
	return b
}

// take is a consumer taking a job from wait and completing it; remove
// deletes its hash on completion (removeOnComplete).
func (b *builder) take(q, bullID, worker string, at int, remove bool) *builder {
	qs := b.queue(q)
	h := qs.hashes[bullID]
	b.run.Takes = append(b.run.Takes, history.Take{Queue: q, JobID: bullID, DataJobID: h.DataJobID, Worker: worker, At: ms(at)})
	var wait []string
	for _, id := range qs.lists["wait"] {
		if id != bullID {
			wait = append(wait, id)
		}
	}
	qs.lists["wait"] = wait
	if remove {
		delete(qs.hashes, bullID)
		b.note(history.KeyNote{Queue: q, JobID: bullID, Event: "del", At: ms(at + 50)})
		return b
	}
	qs.lists["completed"] = append(qs.lists["completed"], bullID)
	return b
}

// finish closes the run: heal and end times, quiescence, and the final scan.
func (b *builder) finish(healed, ended int, quiesced bool) history.Run {
	b.run.Meta.Healed, b.run.Meta.Ended, b.run.Meta.Quiesced = ms(healed), ms(ended), quiesced
	f := history.Final{At: ms(ended), Queues: map[string]history.QueueScan{}}
	for _, e := range b.run.Events {
		r := b.rows[e.ID]
		f.Outbox = append(f.Outbox, history.OutboxRow{ID: e.ID, Type: e.Type, JobID: e.JobID, Status: r.status,
			Attempts: r.attempts, LastError: r.lastError, PublishedAt: r.publishedAt, Created: e.Produced})
		if j := b.jobs[e.JobID]; j != nil {
			f.Jobs = append(f.Jobs, *j)
		}
	}
	for _, q := range b.run.Meta.Queues {
		qs := b.queue(q)
		lists := map[string][]string{}
		for _, name := range []string{"wait", "paused", "prioritized", "delayed", "active", "completed", "failed"} {
			lists[name] = append([]string{}, qs.lists[name]...)
		}
		jobs := map[string]history.JobHash{}
		for id, h := range qs.hashes {
			jobs[id] = h
		}
		f.Queues[q] = history.QueueScan{Lists: lists, Jobs: jobs}
	}
	b.run.Final = f
	b.run.Sort()
	return b.run
}
