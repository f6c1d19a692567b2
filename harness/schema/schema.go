// Package schema maps a dispatcher's tables, columns and status words onto the
// contract's reference vocabulary, so that the workload producer, the history
// triggers and every checker work on a foreign schema unchanged.
//
// The reference mapping is the identity over the contract's schema. A foreign
// dispatcher (the room-service guide's pending / delivering / delivered /
// retryable / failed, say) supplies its own DDL and a Mapping; status words
// map many-to-one onto the canonical ones (retryable -> pending).
package schema

import (
	"fmt"
	"sort"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/contract"
)

// Outbox names the outbox table and its columns. Optional columns may be empty
// when the dispatcher lacks them (the observers then record nothing for them).
type Outbox struct {
	Table       string `json:"table" yaml:"table"`
	ID          string `json:"id" yaml:"id"`
	EventType   string `json:"event_type" yaml:"event_type"`
	AggregateID string `json:"aggregate_id" yaml:"aggregate_id"`
	Payload     string `json:"payload" yaml:"payload"`
	Status      string `json:"status" yaml:"status"`
	Attempts    string `json:"attempts,omitempty" yaml:"attempts,omitempty"`
	AvailableAt string `json:"available_at,omitempty" yaml:"available_at,omitempty"`
	LockedBy    string `json:"locked_by,omitempty" yaml:"locked_by,omitempty"`
	LockToken   string `json:"lock_token,omitempty" yaml:"lock_token,omitempty"`
	LockedUntil string `json:"locked_until,omitempty" yaml:"locked_until,omitempty"`
	LastError   string `json:"last_error,omitempty" yaml:"last_error,omitempty"`
	PublishedAt string `json:"published_at,omitempty" yaml:"published_at,omitempty"`
	CreatedAt   string `json:"created_at,omitempty" yaml:"created_at,omitempty"`
	// MessageID is the column whose value the sink's message carries as its
	// id, when that is not the jobs table's id (with a jobs table) or ID.
	MessageID string `json:"message_id,omitempty" yaml:"message_id,omitempty"`
	// Topic is the column naming the queue, stream or list a message goes
	// to, for an outbox without a jobs table.
	Topic string `json:"topic,omitempty" yaml:"topic,omitempty"`
	// IDType is how the primary key is made: KeyAuto (AUTO_INCREMENT, the
	// default), KeyText (a uuid in a string column) or KeyBinary (a uuid in
	// BINARY(16)). The harness's producer writes a uuid for the last two.
	IDType string `json:"id_type,omitempty" yaml:"-"`
	// Constants are values the harness's producer writes into columns it
	// knows nothing else about (a NOT NULL aggregate_type, say).
	Constants map[string]string `json:"constants,omitempty" yaml:"constants,omitempty"`
}

// Primary key kinds (Outbox.IDType).
const (
	KeyAuto   = ""
	KeyText   = "text"
	KeyBinary = "binary"
)

// Jobs names the jobs table and its columns.
type Jobs struct {
	Table  string `json:"table" yaml:"table"`
	ID     string `json:"id" yaml:"id"`
	Queue  string `json:"queue" yaml:"queue"`
	Status string `json:"status" yaml:"status"`
}

// Mapping is a dispatcher's schema: its DDL, its names, and its status words.
// OutboxStatus maps the dispatcher's word to the canonical one (history's
// Status* constants); JobStatus likewise for jobs (created, queued, ...).
type Mapping struct {
	DDL          []string          `json:"ddl" yaml:"-"`
	Outbox       Outbox            `json:"outbox" yaml:"outbox"`
	Jobs         Jobs              `json:"jobs" yaml:"jobs"`
	OutboxStatus map[string]string `json:"outbox_status" yaml:"outbox_status"`
	JobStatus    map[string]string `json:"job_status" yaml:"job_status"`
	// States says where a message is for an outbox without a status column
	// (states.go); zero for the status-word form.
	States States `json:"states,omitzero" yaml:"states,omitempty"`
}

// HasJobs tells whether the outbox has a jobs table beside it.
func (m Mapping) HasJobs() bool { return m.Jobs.Table != "" }

// StatusWords tells whether a status column and its words say where a
// message is (the contract's own form).
func (m Mapping) StatusWords() bool { return m.States.IsZero() }

// Reference is the contract's own schema.
func Reference() Mapping {
	return Mapping{
		DDL: contract.SchemaStatements(),
		Outbox: Outbox{
			Table: "outbox_events", ID: "id", EventType: "event_type", AggregateID: "aggregate_id",
			Payload: "payload", Status: "status", Attempts: "attempts", AvailableAt: "available_at",
			LockedBy: "locked_by", LockToken: "lock_token", LockedUntil: "locked_until",
			LastError: "last_error", PublishedAt: "published_at", CreatedAt: "created_at",
		},
		Jobs: Jobs{Table: "ai_jobs", ID: "id", Queue: "queue_name", Status: "status"},
		OutboxStatus: map[string]string{
			"pending": "pending", "processing": "processing", "published": "published", "failed": "failed",
		},
		JobStatus: map[string]string{
			"created": "created", "queued": "queued", "running": "running", "succeeded": "succeeded",
		},
	}
}

// Word returns the dispatcher's word for a canonical outbox status, preferring
// the first in sorted order when several words map to it. The producer writes
// Word("pending"); the consumer writes JobWord("running") and so on.
func (m Mapping) Word(canonical string) (string, error) { return reverse(m.OutboxStatus, canonical) }

// JobWord returns the dispatcher's word for a canonical job status.
func (m Mapping) JobWord(canonical string) (string, error) { return reverse(m.JobStatus, canonical) }

func reverse(words map[string]string, canonical string) (string, error) {
	var found []string
	for w, c := range words {
		if c == canonical {
			found = append(found, w)
		}
	}
	if len(found) == 0 {
		return "", fmt.Errorf("schema mapping has no status word for %q", canonical)
	}
	sort.Strings(found)
	// Prefer the word equal to the canonical one, then the first in order.
	for _, w := range found {
		if w == canonical {
			return w, nil
		}
	}
	return found[0], nil
}

// Validate checks that the mapping names every required column and says
// where a message is, by status words or by states. It does not look at a
// database.
func (m Mapping) Validate() error {
	if err := m.requireColumns(); err != nil {
		return err
	}
	if m.StatusWords() {
		if err := m.validateWords(); err != nil {
			return err
		}
	} else if err := m.States.validate(m.Outbox); err != nil {
		return err
	}
	if !m.HasJobs() {
		return nil
	}
	for _, c := range []string{"created", "queued"} {
		if _, err := m.JobWord(c); err != nil {
			return fmt.Errorf("job_status: %w (add an entry whose value is %q)", err, c)
		}
	}
	return nil
}

// requireColumns checks the columns every shape needs, and those its form
// and its jobs table need.
func (m Mapping) requireColumns() error {
	req := map[string]string{"outbox.table": m.Outbox.Table, "outbox.id": m.Outbox.ID, "outbox.payload": m.Outbox.Payload}
	if m.StatusWords() {
		req["outbox.status"] = m.Outbox.Status
	}
	if m.HasJobs() || m.Jobs != (Jobs{}) {
		req["outbox.event_type"], req["outbox.aggregate_id"] = m.Outbox.EventType, m.Outbox.AggregateID
		req["jobs.table"], req["jobs.id"], req["jobs.queue"], req["jobs.status"] = m.Jobs.Table, m.Jobs.ID, m.Jobs.Queue, m.Jobs.Status
	}
	var missing []string
	for k, v := range req {
		if strings.TrimSpace(v) == "" {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		return fmt.Errorf("schema mapping: missing %s: name the dispatcher's column for each", strings.Join(missing, ", "))
	}
	switch m.Outbox.IDType {
	case KeyAuto, KeyText, KeyBinary:
	default:
		return fmt.Errorf("schema mapping: outbox id type %q: use %q (AUTO_INCREMENT), %q or %q", m.Outbox.IDType, KeyAuto, KeyText, KeyBinary)
	}
	return nil
}

// validateWords checks the status-word form: every canonical outbox status
// is reached and no word maps elsewhere.
func (m Mapping) validateWords() error {
	for _, c := range []string{"pending", "processing", "published", "failed"} {
		if _, err := m.Word(c); err != nil {
			return fmt.Errorf("outbox_status: %w (add an entry whose value is %q)", err, c)
		}
	}
	for w, c := range m.OutboxStatus {
		switch c {
		case "pending", "processing", "published", "failed":
		default:
			return fmt.Errorf("outbox_status: %q maps to %q; use pending, processing, published or failed", w, c)
		}
	}
	return nil
}
