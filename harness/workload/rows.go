package workload

import (
	"encoding/hex"
	"maps"
	"slices"
	"strconv"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// The outbox row the producer writes depends on the shape (schema.Mapping):
// a status word only in the status-word form; event_type, aggregate_id and
// a jobs row only where the mapping names them; the topic column (the
// event's queue) where it names one; and, for a key the database does not
// assign, the key itself: a uuid drawn from the seeded source, as text, or
// as 16 bytes in a BINARY(16) column. A message_id column other than the
// key gets a uuid of its own.

// outboxRow is one event's outbox columns and values, in a fixed order.
type outboxRow struct {
	cols []string
	vals []any
}

func (r *outboxRow) set(col string, v any) {
	if col != "" {
		r.cols = append(r.cols, col)
		r.vals = append(r.vals, v)
	}
}

// row is what ev writes into the outbox table.
func (p *Producer) row(ev planned) outboxRow {
	o := p.cfg.Schema.Outbox
	var r outboxRow
	switch o.IDType {
	case schema.KeyText:
		r.set(o.ID, uuidText(ev.key))
	case schema.KeyBinary:
		r.set(o.ID, ev.key[:])
	}
	r.set(o.EventType, ev.eventType)
	r.set(o.AggregateID, ev.jobID)
	r.set(o.Payload, ev.payload)
	if p.cfg.Schema.StatusWords() {
		r.set(o.Status, p.words.pending)
	}
	r.set(o.Topic, ev.queue)
	if o.MessageID != "" && o.MessageID != o.ID {
		r.set(o.MessageID, ev.messageID)
	}
	for _, c := range slices.Sorted(maps.Keys(o.Constants)) {
		r.set(c, o.Constants[c])
	}
	return r
}

// drawKey draws ev's key, and its message id, for the shapes that need one
// from the producer: a uuid (version 4 bits set) from the seeded source.
func (p *Producer) drawKey(ev *planned) {
	o := p.cfg.Schema.Outbox
	needKey := o.IDType != schema.KeyAuto
	needMessage := o.MessageID != "" && o.MessageID != o.ID
	if !needKey && !needMessage {
		return
	}
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := p.cfg.Rand.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	ev.key = b
	ev.messageID = uuidText(b)
}

// uuidText is b in the canonical 8-4-4-4-12 form.
func uuidText(b [16]byte) string {
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// rowKey is the outbox row's key as the triggers record it ("" when it is
// the database's id): a text key as is, a binary key in lower-case hex.
func (p *Producer) rowKey(ev planned) string {
	switch p.cfg.Schema.Outbox.IDType {
	case schema.KeyText:
		return uuidText(ev.key)
	case schema.KeyBinary:
		return hex.EncodeToString(ev.key[:])
	}
	return ""
}

// messageIDOf is the message id the sink carries for ev when it is not its
// job id: the outbox's own key (its id as assigned, or the uuid drawn) or
// the message_id column's uuid, for an outbox without a jobs table.
func (p *Producer) messageIDOf(ev planned, id int64) string {
	o := p.cfg.Schema.Outbox
	switch {
	case p.cfg.Schema.HasJobs():
		return ""
	case o.MessageID != "" && o.MessageID != o.ID:
		return ev.messageID
	case o.IDType != schema.KeyAuto:
		return ev.messageID
	}
	return strconv.FormatInt(id, 10)
}

// kindFor is the kind an event drawn as kind gets in this shape: without a
// jobs table there is nothing to be poison about (an unknown type, a
// missing job, a queue outside the allowlist, an illegal jobId all speak of
// jobs rows), and nothing already queued, so every event is valid.
func (p *Producer) kindFor(kind string) string {
	if p.cfg.Schema.HasJobs() && !p.validOnly {
		return kind
	}
	return history.KindValid
}

// lookup is the condition that finds ev's outbox row again (after a lost
// connection, or to read back a batch's ids), its placeholder numbered n:
// its key when the producer chose it, else its aggregate_id, its message
// id, or the payload's jobId.
func (p *Producer) lookup(ev planned, n int) (string, any) {
	o, s := p.cfg.Schema.Outbox, p.sql
	eq := " = " + s.ph(n, 1)
	switch {
	case o.IDType == schema.KeyText:
		return s.q(o.ID) + eq, uuidText(ev.key)
	case o.IDType == schema.KeyBinary:
		return s.q(o.ID) + eq, ev.key[:]
	case o.AggregateID != "":
		return s.q(o.AggregateID) + eq, ev.jobID
	case o.MessageID != "" && o.MessageID != o.ID:
		return s.q(o.MessageID) + eq, ev.messageID
	}
	return s.d.JSONText(s.q(o.Payload), "jobId") + eq, ev.jobID
}
