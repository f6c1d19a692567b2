package workload

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Event types the producer writes.
const (
	// EnqueueEventType is the only type a dispatcher dispatches.
	EnqueueEventType = "ai.job.enqueue"
	// UnknownEventType is what an unknown-type event carries.
	UnknownEventType = "ai.job.unsupported"
)

// Queue names of the events whose failure is hard to write: 64 characters
// each, the width of the contract's jobId and event_type columns (half of
// queue_name's), outside any allowlist. MultibyteQueue mixes characters of
// two, three and four bytes (é, €, 🚫), so a cut made by bytes lands inside a
// character two times in three.
var (
	LongQueue      = "ai-refused-" + strings.Repeat("x", 64-len("ai-refused-"))
	MultibyteQueue = "ai-refusé-" + strings.Repeat("é€🚫", 18)
)

// planned is one event before it is written.
type planned struct {
	kind      string
	eventType string
	jobID     string // aggregate_id, and the jobs row id when hasJob
	queue     string // the jobs row's queue; empty when there is no row
	hasJob    bool
	jobStatus string // the dispatcher's word for the row's status
	payload   string
	aggregate string // the ordering key in the payload; "" without Aggregates
	// key and messageID are the uuid the producer drew for a shape whose
	// key or message id it writes (rows.go); zero otherwise.
	key       [16]byte
	messageID string
	num       int64 // its number in the run, from 1
}

// JobIDPrefix starts every legal job id of a run: "j-<RunID>-", then the
// event's number. The fault proxy's command log finds a run's jobs by it.
func JobIDPrefix(runID string) string { return "j-" + runID + "-" }

// plan draws the next event from the seeded source. Every random choice is
// made here, in a fixed order, so the same seed gives the same sequence.
func (p *Producer) plan() planned {
	p.seq++
	n := p.seq
	ev := planned{
		kind:      p.kindFor(p.cfg.Mix.draw(p.cfg.Rand)),
		eventType: EnqueueEventType,
		jobID:     fmt.Sprintf("%s%d", JobIDPrefix(p.cfg.RunID), n),
		hasJob:    p.cfg.Schema.HasJobs(),
		jobStatus: p.words.created,
		num:       n,
	}
	ev.queue = p.cfg.Queues[p.cfg.Rand.IntN(len(p.cfg.Queues))]
	switch ev.kind {
	case history.KindUnknownType:
		ev.eventType = UnknownEventType
	case history.KindMissingJob:
		ev.hasJob = false
		ev.queue = ""
	case history.KindQueueDenied:
		ev.queue = p.cfg.DeniedQueue
	case history.KindIllegalJobID:
		ev.jobID = p.illegalID(n, p.cfg.Rand.IntN(2) == 0)
	case history.KindAlreadyQueued:
		ev.jobStatus = p.words.queued
	case history.KindLongError:
		ev.queue = LongQueue
	case history.KindMultibyteError:
		ev.queue = MultibyteQueue
	}
	ev.payload = jobPayload(ev.jobID)
	if k := p.cfg.Aggregates; k > 0 {
		p.assignAggregate(&ev, (n-1)%int64(k))
	}
	p.drawKey(&ev)
	return ev
}

// assignAggregate puts ev in aggregate k: the payload names it, and its
// queue is the aggregate's (one queue per aggregate, so the creation order
// of its jobs is the order of one events stream). The queue drawn before
// is drawn all the same, so a seed draws the same sequence either way.
func (p *Producer) assignAggregate(ev *planned, k int64) {
	ev.aggregate = fmt.Sprintf("a-%s-%d", p.cfg.RunID, k)
	if ev.queue != "" && ev.queue != p.cfg.DeniedQueue && ev.queue != LongQueue && ev.queue != MultibyteQueue {
		ev.queue = p.cfg.Queues[k%int64(len(p.cfg.Queues))]
	}
	q, _ := json.Marshal(ev.jobID)
	a, _ := json.Marshal(ev.aggregate)
	ev.payload = `{"jobId":` + string(q) + `,"aggregate":` + string(a) + `}`
}

// illegalID returns an id BullMQ refuses as a custom jobId: all digits, or
// holding a ':'. Both stay unique per run id.
func (p *Producer) illegalID(n int64, digits bool) string {
	if !digits {
		return fmt.Sprintf("j:%s:%d", p.cfg.RunID, n)
	}
	h := fnv.New32a()
	h.Write([]byte(p.cfg.RunID))
	return fmt.Sprintf("%d%010d", h.Sum32(), n)
}

func jobPayload(jobID string) string {
	q, _ := json.Marshal(jobID) // a Go string always encodes
	return `{"jobId":` + string(q) + `}`
}

// event is ev as recorded, with the id the database gave its row (for a
// key the producer chose, the event's number in the run).
func (p *Producer) event(ev planned, id int64) history.Event {
	return history.Event{ID: id, Type: ev.eventType, JobID: ev.jobID, Queue: ev.queue, Kind: ev.kind, Aggregate: ev.aggregate,
		Row: p.rowKey(ev), MessageID: p.messageIDOf(ev, id)}
}
