package history

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Canonical outbox statuses.
const (
	StatusPending    = "pending"
	StatusProcessing = "processing"
	StatusPublished  = "published"
	StatusFailed     = "failed"
)

// Canonical job statuses. Statuses after queued belong to workers.
const (
	JobCreated   = "created"
	JobQueued    = "queued"
	JobRunning   = "running"
	JobSucceeded = "succeeded"
)

// Event kinds produced by the workload: valid, or one poison kind per
// permanent failure of the contract.
const (
	KindValid        = "valid"
	KindUnknownType  = "unknown-type"
	KindMissingJob   = "missing-job"
	KindQueueDenied  = "queue-not-allowed"
	KindIllegalJobID = "illegal-job-id"
	// KindAlreadyQueued is valid: its job is already past created, so the
	// dispatcher must close it as published with no add.
	KindAlreadyQueued = "already-queued"
	// KindLongError and KindMultibyteError are queue-not-allowed events
	// whose failure is hard to write (the failure-write scenario): the
	// job's queue name fills its column, in ASCII for the first and in
	// characters of two, three and four bytes for the second, so a reason
	// that quotes it is longer than a narrowed last_error, and a reason
	// cut by bytes ends in half a character (invalid UTF-8).
	KindLongError      = "long-error"
	KindMultibyteError = "multibyte-error"
)

// Tables whose rows the triggers record.
const (
	TableOutbox = "outbox"
	TableJobs   = "jobs"
)

// Meta describes the run: what ran, with which parameters, on what.
type Meta struct {
	Scenario    string            `json:"scenario"`
	Seed        int64             `json:"seed"`
	Params      map[string]string `json:"params,omitempty"`
	Adapter     string            `json:"adapter"`
	Environment string            `json:"environment"`
	Versions    map[string]string `json:"versions,omitempty"`
	Command     string            `json:"command,omitempty"` // reproduces the run
	Prefix      string            `json:"prefix"`
	Queues      []string          `json:"queues"`
	Tuning      Tuning            `json:"tuning"`
	// Waived lists invariants the scenario does not require, with the reason
	// (for example I2 when an outage longer than the retry budget is injected
	// on purpose).
	Waived map[string]string `json:"waived,omitempty"`
	// Exercises lists the invariants the scenario exists to exercise (for
	// example I6 and I7 for an outage): when one of them had nothing to
	// check, the run is unknown, not a pass.
	Exercises []string `json:"exercises,omitempty"`
	// Landing is what must happen for the verdict to count (landing.go).
	Landing     []Requirement `json:"landing,omitempty"`
	Started     time.Time     `json:"started"`
	Healed      time.Time     `json:"healed"`
	Ended       time.Time     `json:"ended"`
	Quiesced    bool          `json:"quiesced"` // drain reached quiet before its deadline
	Consumer    bool          `json:"consumer"` // a consumer took jobs during the run
	RemoveOnEnd bool          `json:"remove_on_complete,omitempty"`
	// Conventions are what the adapter declares about the dispatcher's
	// returns to pending, for what the history alone cannot tell.
	Conventions Conventions `json:"conventions,omitzero"`
	// Ordering is the order the adapter promises (capabilities.ordering):
	// "per-aggregate", or "" for none. I10 is not exercised without it.
	Ordering string `json:"ordering,omitempty"`
	// Durability is what the adapter promises about acknowledged adds
	// (capabilities.durability): "wait", or "" for none. With "wait", a job
	// Redis lost after acknowledging it is no excuse for I3.
	Durability string `json:"durability,omitempty"`
	// Model is what the dispatcher's outbox can express (shape.go); zero
	// for the contract's own shape.
	Model Model `json:"model,omitzero"`
	// Zones is what the harness applied of a scenario's time zones, as it
	// read them back; nil when the scenario sets none.
	Zones *Zones `json:"zones,omitempty"`
	// Commands says that the fault proxy recorded, on every instance's
	// Redis link, the commands that name a job of the run and the
	// commands that failed (Run.Commands). False for an older history:
	// no record then says nothing about what an instance sent.
	Commands bool `json:"commands,omitempty"`
}

// Zones are the time zones a run's store server and dispatcher processes
// ran in: the server's global time_zone as read back after the harness set
// it, the offset from UTC a new session's NOW() showed, the TZ the
// instances were started with and its offset at the run's start (+hh:mm).
type Zones struct {
	Server        string `json:"server"`
	ServerOffset  string `json:"server_offset"`
	Process       string `json:"process"`
	ProcessOffset string `json:"process_offset"`
}

// Differ tells whether the server's and the processes' offsets differed.
func (z *Zones) Differ() bool {
	return z != nil && z.ServerOffset != "" && z.ProcessOffset != "" && z.ServerOffset != z.ProcessOffset
}

// Conventions are an adapter's declarations about how the dispatcher gives a
// row back to pending, for the cases the history cannot tell apart by
// itself (a release, before the lease ends, while a fault was in effect,
// looks like a retry with no backoff). A checker uses them only to narrow
// what would otherwise be unknown: a declaration never turns a proven
// violation into a pass. The zero value declares nothing.
type Conventions struct {
	// ReleaseErrors are the last_error prefixes the dispatcher writes when it
	// gives a claim back (on SIGTERM, or a claim it will not start in time).
	ReleaseErrors []string `json:"release_errors,omitempty"`
	// ReleaseKeepsError: a release leaves last_error as it was.
	ReleaseKeepsError bool `json:"release_keeps_error,omitempty"`
	// RecoveryErrors are the last_error prefixes of its lease recoveries.
	RecoveryErrors []string `json:"recovery_errors,omitempty"`
	// RecoveryKeepsError: a recovery leaves last_error as it was.
	RecoveryKeepsError bool `json:"recovery_keeps_error,omitempty"`
	// RecoveryBound is how long after a lease runs out the dispatcher
	// promises to recover the claim (zero: not declared).
	RecoveryBound Duration `json:"recovery_bound,omitempty"`
}

// IsZero tells whether nothing is declared (meta.json then leaves the key
// out).
func (c Conventions) IsZero() bool { return !c.Declared() && c.RecoveryBound == 0 }

// Declared tells whether the conventions say anything about returns to
// pending.
func (c Conventions) Declared() bool {
	return len(c.ReleaseErrors) > 0 || c.ReleaseKeepsError || len(c.RecoveryErrors) > 0 || c.RecoveryKeepsError
}

// Tuning is the dispatcher configuration the run used, as the contract's
// variables. Checkers derive their bounds from it.
type Tuning struct {
	PollInterval   Duration `json:"poll_interval"`
	BatchSize      int      `json:"batch_size"`
	Lease          Duration `json:"lease"`
	MaxAttempts    int      `json:"max_attempts"`
	BackoffBase    Duration `json:"backoff_base"`
	BackoffMax     Duration `json:"backoff_max"`
	PublishTimeout Duration `json:"publish_timeout"`
}

// Event is one outbox event the workload committed.
type Event struct {
	ID       int64     `json:"id"`
	Type     string    `json:"type"`
	JobID    string    `json:"job_id"` // aggregate_id: the ai_jobs.id it is about
	Queue    string    `json:"queue"`
	Kind     string    `json:"kind"`
	Produced time.Time `json:"produced"`
	// Aggregate is the ordering key the workload wrote in the payload
	// ("aggregate"), for the ordering scenario only; "" otherwise.
	Aggregate string `json:"aggregate,omitempty"`
	// Held is how long the producer held the event's transaction open
	// after its INSERTs (a commit-order gap); Committing is when it then
	// sent the COMMIT. Both are zero for an event committed at once.
	Held       Duration  `json:"held,omitempty"`
	Committing time.Time `json:"committing,omitzero"`
	// Row is the outbox row's primary key as text when it is not ID (a
	// uuid, or a BINARY(16) key in hex); ID then numbers the events.
	Row string `json:"row,omitempty"`
	// MessageID is the id the sink's message carries when it is not JobID
	// (JobID is always the payload's jobId): the outbox's own id, or what a
	// producer command reported.
	MessageID string `json:"message_id,omitempty"`
}

// Transition is one row change recorded by a trigger.
type Transition struct {
	Seq   int64  `json:"seq"`
	Table string `json:"table"`
	// Key is the changed row's primary key as text: the event id for the
	// outbox table (EventID reads it), the job id for the jobs table.
	Key         string     `json:"row"`
	Op          string     `json:"op"` // insert, update, delete
	At          time.Time  `json:"at"`
	OldStatus   string     `json:"old_status,omitempty"`
	NewStatus   string     `json:"new_status,omitempty"`
	Attempts    int        `json:"attempts,omitempty"`
	AvailableAt *time.Time `json:"available_at,omitempty"`
	LockedBy    string     `json:"locked_by,omitempty"`
	LockToken   string     `json:"lock_token,omitempty"`
	LockedUntil *time.Time `json:"locked_until,omitempty"`
	LastError   string     `json:"last_error,omitempty"`
	// Offset is, for a record of an offsets table (TableCursor), the
	// consumer group's offset it wrote; harness/model reads it.
	Offset int64 `json:"offset,omitempty"`
	// Image and OldImage are the whole row after and before the change, as
	// JSON objects of column to value (no Image for a delete, no OldImage
	// for an insert); nil in an older history.
	Image    json.RawMessage `json:"image,omitempty"`
	OldImage json.RawMessage `json:"old_image,omitempty"`
	// OldLockToken and OldLastError are the row's values before the change,
	// so a checker can tell who wrote over whom and whether an error is new.
	OldLockToken string `json:"old_lock_token,omitempty"`
	OldLastError string `json:"old_last_error,omitempty"`
	// Writer is who made the change, from the MySQL user of the session
	// that wrote it: an instance slot ("d1", "d2"; every instance of a slot,
	// restarts too, connects as the slot's own user) or WriterHarness for
	// the harness's own connections. "" when the run could not give each
	// slot its own user (the instances shared one) or for an older history.
	Writer string `json:"writer,omitempty"`
}

// WriterHarness is Transition.Writer for a change the harness itself made
// (the producer's inserts, the consumer's job-row updates).
const WriterHarness = "harness"

// StreamEntry is one entry of a queue's BullMQ events stream.
type StreamEntry struct {
	Queue string            `json:"queue"`
	ID    string            `json:"id"` // stream id, ms-seq
	At    time.Time         `json:"at"`
	Event string            `json:"event"` // added, duplicated, waiting, ...
	JobID string            `json:"job_id"`
	Name  string            `json:"name,omitempty"`
	Extra map[string]string `json:"extra,omitempty"`
}

// KeyNote is a job hash seen through keyspace notifications: its creation
// ("new"), a later write to it ("hset", "hdel") or its removal ("del"), with
// the hash's data and opts read right after (empty when the hash was gone
// already). After a keyspace gap (a reconnect, or Start after Stop) the
// observer scans the job hashes and records a "scan" note for every one that
// exists: a read, not a write, so every job that outlived the gap has a read
// after it. A "new" notification for a job a restarted Redis loaded back from
// its append-only file (same Stamp as before) is recorded as "reload", also a
// read. I9 compares them.
type KeyNote struct {
	Queue     string `json:"queue"`
	JobID     string `json:"job_id"`
	Event     string `json:"event"` // new, hset, hdel, del, scan, reload
	DataJobID string `json:"data_job_id,omitempty"`
	Data      string `json:"data,omitempty"`
	Opts      string `json:"opts,omitempty"`
	// Stamp is the hash's timestamp field, written once by the add: the
	// same job reloaded by a restarted Redis keeps it, a new job gets its own.
	Stamp string    `json:"stamp,omitempty"`
	At    time.Time `json:"at"`
}

// Take is one job a consumer took from a queue.
type Take struct {
	Queue     string    `json:"queue"`
	JobID     string    `json:"job_id"`
	DataJobID string    `json:"data_job_id"`
	Worker    string    `json:"worker"`
	At        time.Time `json:"at"`
}

// Fault is one fault window. Target is an instance id, or a dependency
// ("mysql", "redis") with an optional link ("mysql/d2").
type Fault struct {
	ID     int               `json:"id"`
	Kind   string            `json:"kind"`
	Target string            `json:"target"`
	Params map[string]string `json:"params,omitempty"`
	Start  time.Time         `json:"start"`
	End    time.Time         `json:"end"` // zero while still active
}

// ProcessEvent is something that happened to a dispatcher instance process.
type ProcessEvent struct {
	Instance string    `json:"instance"`
	Action   string    `json:"action"` // start, exit, kill, stop, cont, term, crashpoint
	At       time.Time `json:"at"`
	PID      int       `json:"pid,omitempty"`
	Detail   string    `json:"detail,omitempty"`
}

// Command is one request an instance sent to Redis through its link, as
// the fault proxy saw it: one that names jobs of the run (Jobs), or one
// that failed. With Store set it is a statement that failed on the
// instance's link to that store instead (named by its SQL verb, Write for
// UPDATE, INSERT, DELETE, REPLACE and COMMIT; no Jobs). Times are on the
// harness clock.
type Command struct {
	Slot    string    `json:"slot"`            // the instance slot whose link carried it ("d1")
	Store   string    `json:"store,omitempty"` // "mysql" for a failed store statement; "" for Redis
	Name    string    `json:"name"`            // EVALSHA, XADD, LPUSH, EXEC, ...
	Jobs    []string  `json:"jobs,omitempty"`
	Write   bool      `json:"write,omitempty"` // a script or a write command
	Sent    time.Time `json:"sent"`
	Outcome string    `json:"outcome"` // the Command* outcomes
	Reply   string    `json:"reply,omitempty"`
	Replied time.Time `json:"replied"`
}

// Outcomes of a Command.
const (
	CommandAnswered = "answered" // Redis answered, not with an error
	CommandError    = "error"    // an error reply, Redis's own or a fault's
	CommandDropped  = "dropped"  // a lost-reply fault dropped the reply
	CommandClosed   = "closed"   // the connection ended before the reply
	CommandUnread   = "unread"   // the proxy could not read the replies
)

// Failed tells whether the command's client got no good answer: an error
// reply, a reply dropped, or none before the connection ended.
func (c Command) Failed() bool {
	return c.Outcome == CommandError || c.Outcome == CommandDropped || c.Outcome == CommandClosed
}

// GapCommands is the source of a gap in Run.Commands: the proxy lost
// records, so their absence proves nothing.
const GapCommands = "commands"

// Gap is something an observer missed. Any gap makes dependent checks unknown.
type Gap struct {
	Source string    `json:"source"` // stream:<queue>, keyspace, triggers
	At     time.Time `json:"at"`
	Detail string    `json:"detail"`
	// Kept, when Redis lost a stream's or a list archive's newest data, is
	// what the source still held: a stream's last id, or the id of the last
	// list append its archive still holds (an append with a later id is
	// gone); "" otherwise.
	Kept string `json:"kept,omitempty"`
}

// Final is the end state, scanned after heal and drain.
type Final struct {
	At     time.Time            `json:"at"`
	Outbox []OutboxRow          `json:"outbox"`
	Jobs   []JobRow             `json:"jobs"`
	Queues map[string]QueueScan `json:"queues"`
	// Appends are every message the stream or list sinks held at the end.
	Appends []Append `json:"appends,omitempty"`
}

// EventID is the outbox event a transition of the outbox table changed, and
// false for another table or a key that is not an id.
func (t Transition) EventID() (int64, bool) {
	if t.Table != TableOutbox {
		return 0, false
	}
	id, err := strconv.ParseInt(strings.TrimSpace(t.Key), 10, 64)
	return id, err == nil
}

// OutboxRow is an outbox row as it ended.
type OutboxRow struct {
	ID int64 `json:"id"`
	// Row is the row's primary key as text when it is not ID (see
	// Event.Row).
	Row         string     `json:"row,omitempty"`
	Type        string     `json:"type"`
	JobID       string     `json:"job_id"`
	Status      string     `json:"status"`
	Attempts    int        `json:"attempts"`
	LastError   string     `json:"last_error,omitempty"`
	PublishedAt *time.Time `json:"published_at,omitempty"`
	Created     time.Time  `json:"created"`
}

// JobRow is an ai_jobs row as it ended.
type JobRow struct {
	ID     string `json:"id"`
	Queue  string `json:"queue"`
	Status string `json:"status"`
}

// QueueScan is one queue's lists, sets and job hashes at the end.
type QueueScan struct {
	Lists map[string][]string `json:"lists"` // wait, paused, active, prioritized, delayed, completed, failed
	Jobs  map[string]JobHash  `json:"jobs"`  // by BullMQ job id
}

// JobHash is a job hash as found in Redis.
type JobHash struct {
	Name      string `json:"name"`
	Data      string `json:"data"`
	Opts      string `json:"opts"`
	DataJobID string `json:"data_job_id,omitempty"`
	Timestamp string `json:"timestamp,omitempty"`
}

// Run is the whole recorded run.
type Run struct {
	Meta        Meta           `json:"meta"`
	Events      []Event        `json:"events"`
	Transitions []Transition   `json:"transitions"`
	Stream      []StreamEntry  `json:"stream"`
	Keys        []KeyNote      `json:"keys"`
	Takes       []Take         `json:"takes"`
	Faults      []Fault        `json:"faults"`
	Processes   []ProcessEvent `json:"processes"`
	Gaps        []Gap          `json:"gaps"`
	Appends     []Append       `json:"appends,omitempty"`
	Commands    []Command      `json:"commands,omitempty"`
	Final       Final          `json:"final"`
}

// Recorder collects a run from concurrent observers. The zero value is not
// usable; use NewRecorder.
type Recorder struct {
	mu  sync.Mutex
	run Run
}

// NewRecorder starts a recording with the given meta.
func NewRecorder(meta Meta) *Recorder {
	return &Recorder{run: Run{Meta: meta}}
}

// Update runs f with the run under the recorder's lock.
func (r *Recorder) Update(f func(*Run)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.run)
}

// EventCount is how many events were recorded so far.
func (r *Recorder) EventCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.run.Events)
}

// AddEvent records a produced event.
func (r *Recorder) AddEvent(e Event) { r.Update(func(run *Run) { run.Events = append(run.Events, e) }) }

// AddStream records a stream entry.
func (r *Recorder) AddStream(e StreamEntry) {
	r.Update(func(run *Run) { run.Stream = append(run.Stream, e) })
}

// StreamSince returns the stream entries recorded after the first from, in
// the order they were recorded, and the count to pass next time.
func (r *Recorder) StreamSince(from int) ([]StreamEntry, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if from > len(r.run.Stream) {
		from = len(r.run.Stream)
	}
	return append([]StreamEntry(nil), r.run.Stream[from:]...), len(r.run.Stream)
}

// AddKey records a new job key.
func (r *Recorder) AddKey(k KeyNote) { r.Update(func(run *Run) { run.Keys = append(run.Keys, k) }) }

// AddAppend records a message a stream or list sink received.
func (r *Recorder) AddAppend(a Append) {
	r.Update(func(run *Run) { run.Appends = append(run.Appends, a) })
}

// AddCommand records a command the fault proxy saw.
func (r *Recorder) AddCommand(c Command) {
	r.Update(func(run *Run) { run.Commands = append(run.Commands, c) })
}

// AddTake records a job a consumer took.
func (r *Recorder) AddTake(t Take) { r.Update(func(run *Run) { run.Takes = append(run.Takes, t) }) }

// AddProcess records a process event.
func (r *Recorder) AddProcess(p ProcessEvent) {
	r.Update(func(run *Run) { run.Processes = append(run.Processes, p) })
}

// AddGap records an observer gap.
func (r *Recorder) AddGap(g Gap) { r.Update(func(run *Run) { run.Gaps = append(run.Gaps, g) }) }

// StartFault records the start of a fault window and returns its id.
func (r *Recorder) StartFault(f Fault) int {
	var id int
	r.Update(func(run *Run) {
		id = len(run.Faults) + 1
		f.ID = id
		run.Faults = append(run.Faults, f)
	})
	return id
}

// EndFault closes the fault window id at t.
func (r *Recorder) EndFault(id int, t time.Time) {
	r.Update(func(run *Run) {
		if id >= 1 && id <= len(run.Faults) && run.Faults[id-1].End.IsZero() {
			run.Faults[id-1].End = t
		}
	})
}

// Snapshot returns a copy of the run so far, with every slice in time order.
func (r *Recorder) Snapshot() Run {
	r.mu.Lock()
	defer r.mu.Unlock()
	run := r.run
	run.Events = append([]Event(nil), r.run.Events...)
	run.Transitions = append([]Transition(nil), r.run.Transitions...)
	run.Stream = append([]StreamEntry(nil), r.run.Stream...)
	run.Keys = append([]KeyNote(nil), r.run.Keys...)
	run.Takes = append([]Take(nil), r.run.Takes...)
	run.Faults = append([]Fault(nil), r.run.Faults...)
	run.Processes = append([]ProcessEvent(nil), r.run.Processes...)
	run.Gaps = append([]Gap(nil), r.run.Gaps...)
	run.Appends = append([]Append(nil), r.run.Appends...)
	run.Commands = append([]Command(nil), r.run.Commands...)
	run.Sort()
	return run
}

// Sort puts every slice of the run in time order (transitions by sequence).
func (run *Run) Sort() {
	sort.SliceStable(run.Events, func(i, j int) bool { return run.Events[i].ID < run.Events[j].ID })
	sort.SliceStable(run.Transitions, func(i, j int) bool { return run.Transitions[i].Seq < run.Transitions[j].Seq })
	sort.SliceStable(run.Stream, func(i, j int) bool { return run.Stream[i].At.Before(run.Stream[j].At) })
	sort.SliceStable(run.Keys, func(i, j int) bool { return run.Keys[i].At.Before(run.Keys[j].At) })
	sort.SliceStable(run.Takes, func(i, j int) bool { return run.Takes[i].At.Before(run.Takes[j].At) })
	sort.SliceStable(run.Processes, func(i, j int) bool { return run.Processes[i].At.Before(run.Processes[j].At) })
	sort.SliceStable(run.Gaps, func(i, j int) bool { return run.Gaps[i].At.Before(run.Gaps[j].At) })
	sort.SliceStable(run.Appends, func(i, j int) bool { return run.Appends[i].At.Before(run.Appends[j].At) })
	sort.SliceStable(run.Commands, func(i, j int) bool { return run.Commands[i].Sent.Before(run.Commands[j].Sent) })
}
