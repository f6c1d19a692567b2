package history

import (
	"slices"
	"time"
)

// Model is what the dispatcher's outbox can say about a message, as the
// adapter's schema describes it (harness/model reads it). Checkers use it to
// tell an invariant the outbox cannot express ("not applicable") from one
// the run did not exercise. The zero value is the contract's own shape: a
// status column with every state, a jobs table, BullMQ, exactly-once effect.
type Model struct {
	// Form is how the outbox says where a message is: FormStatus, or the
	// source of its published state (FormPredicate, FormDeletion,
	// FormCursor).
	Form string `json:"form,omitempty"`
	// Lacks lists what the outbox does not have (Lack* constants), sorted.
	Lacks []string `json:"lacks,omitempty"`
	// Sink is SinkBullMQ, SinkStream or SinkList.
	Sink string `json:"sink,omitempty"`
	// Delivery is DeliveryExactlyOnce or DeliveryAtLeastOnce.
	Delivery string `json:"delivery,omitempty"`
	// Store is the database the outbox lives in: "" for MySQL or MariaDB,
	// "postgres".
	Store string `json:"store,omitempty"`
	// Precision holds the fractional digits of the outbox's lease and
	// backoff columns (ColumnLockedUntil, ColumnAvailableAt) where the
	// server keeps fewer than microseconds, as the run read them from the
	// server's catalog: a value written there is cut (MariaDB) or rounded
	// (MySQL, PostgreSQL) to that many digits. Absent: microseconds.
	Precision map[string]int `json:"precision,omitempty"`
}

// The time columns whose precision Model.Precision records.
const (
	ColumnLockedUntil = "locked_until"
	ColumnAvailableAt = "available_at"
)

// Granularity is the step of column's stored times: 1 s for whole seconds,
// 1 ms for three digits, 0 for microseconds (or a column not recorded). A
// time written there may read back up to one step earlier (cut) or half a
// step later (rounded) than written.
func (m Model) Granularity(column string) time.Duration {
	p, ok := m.Precision[column]
	if !ok || p >= 6 || p < 0 {
		return 0
	}
	g := time.Second
	for range p {
		g /= 10
	}
	return g
}

// Forms of Model.Form.
const (
	FormStatus    = ""
	FormPredicate = "predicate"
	FormDeletion  = "deletion"
	FormCursor    = "cursor"
)

// What an outbox may lack (Model.Lacks).
const (
	LackClaims   = "claims"   // no state says a relay holds the row
	LackLeases   = "leases"   // claims without a lease end
	LackAttempts = "attempts" // no attempts column
	LackBackoff  = "backoff"  // no available_at column
	LackFailed   = "failed"   // nothing says a message failed for good
	LackJobs     = "jobs"     // no jobs table beside the outbox
	LackPoison   = "poison"   // the shape gives no event a way to be poison
)

// Sinks (Model.Sink).
const (
	SinkBullMQ = ""
	SinkStream = "redis-stream"
	SinkList   = "redis-list"
)

// Delivery promises (Model.Delivery).
const (
	DeliveryExactlyOnce = ""
	DeliveryAtLeastOnce = "at-least-once"
)

// Has tells whether the outbox has what lack names (Has(LackLeases) is
// false for an outbox without leases).
func (m Model) Has(lack string) bool { return !slices.Contains(m.Lacks, lack) }

// SinkName is the sink's name for messages ("BullMQ", "Redis stream",
// "Redis list").
func (m Model) SinkName() string {
	switch m.Sink {
	case SinkStream:
		return "Redis stream"
	case SinkList:
		return "Redis list"
	}
	return "BullMQ"
}

// Append is one message a non-BullMQ sink received: an entry of a Redis
// stream, or an element pushed onto a Redis list, seen as it happened.
type Append struct {
	Sink string `json:"sink"` // SinkStream or SinkList
	Key  string `json:"key"`  // the stream or list
	// ID is the stream entry's id; for a list, the position the mover saw
	// it at ("<n>" counting from 1).
	ID string `json:"id"`
	// MessageID is the message id the entry carries (the field or JSON key
	// the adapter names); "" when it carries none.
	MessageID string `json:"message_id,omitempty"`
	// DataJobID is the payload's "jobId", found anywhere in its JSON.
	DataJobID string    `json:"data_job_id,omitempty"`
	At        time.Time `json:"at"`
	// Final marks an append found only by the final scan.
	Final bool `json:"final,omitempty"`
}

// Raw tables of the triggers' records besides TableOutbox and TableJobs:
// harness/model turns their records into outbox transitions, so no stored
// history holds them.
const (
	TableDeadLetter = "deadletter"
	TableCursor     = "cursor"
)
