package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// Derive turns the triggers' raw records (every table's, with the status
// the trigger computed) into the canonical outbox and jobs transitions the
// checkers read, as doc.go describes. events are the run's events: their
// Row keys name outbox rows whose key is not the event id, and their commit
// times say what a cursor could have seen.
func Derive(m schema.Mapping, events []history.Event, raw []history.Transition) ([]history.Transition, error) {
	d := newDeriver(m, events)
	for _, t := range raw {
		if err := d.add(t); err != nil {
			return nil, err
		}
	}
	d.deadLetterFailures()
	out := d.out
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, nil
}

type deriver struct {
	m       schema.Mapping
	events  map[int64]history.Event
	byRow   map[string]string // an event's Row -> its id as text
	ids     []int64           // event ids, ascending
	status  map[string]string // outbox key -> status its last write left
	inserts map[string]time.Time
	dead    map[string]history.Transition // outbox key -> its dead-letter insert
	deleted map[string]bool
	offset  int64 // the cursor's highest offset so far
	out     []history.Transition
}

func newDeriver(m schema.Mapping, events []history.Event) *deriver {
	d := &deriver{m: m, events: map[int64]history.Event{}, byRow: map[string]string{}, status: map[string]string{},
		inserts: map[string]time.Time{}, dead: map[string]history.Transition{}, deleted: map[string]bool{}}
	for _, e := range events {
		d.events[e.ID] = e
		d.ids = append(d.ids, e.ID)
		if e.Row != "" {
			d.byRow[e.Row] = strconv.FormatInt(e.ID, 10)
		}
	}
	sort.Slice(d.ids, func(i, j int) bool { return d.ids[i] < d.ids[j] })
	return d
}

// key is the outbox key raw names, as the event id when an event has it
// as its Row.
func (d *deriver) key(raw string) string {
	if id, ok := d.byRow[raw]; ok {
		return id
	}
	return raw
}

func (d *deriver) add(t history.Transition) error {
	switch t.Table {
	case history.TableJobs:
		d.out = append(d.out, t)
	case history.TableOutbox:
		t.Key = d.key(t.Key)
		d.outbox(t)
	case history.TableDeadLetter:
		if t.Op == "insert" {
			k := d.key(t.Key)
			if _, ok := d.dead[k]; !ok {
				d.dead[k] = t
			}
		}
	case history.TableCursor:
		return d.cursor(t)
	default:
		return fmt.Errorf("derive: seq %d: a record of table %q, which no model names", t.Seq, t.Table)
	}
	return nil
}

// outbox appends one outbox transition, its statuses read through the
// model.
func (d *deriver) outbox(t history.Transition) {
	if d.m.StatusWords() {
		d.out = append(d.out, t)
		return
	}
	switch t.Op {
	case "insert":
		t.OldStatus = ""
		d.inserts[t.Key] = t.At
	case "delete":
		t.OldStatus = d.last(t.Key)
		t.NewStatus = d.deletedAs(t.Key)
		d.deleted[t.Key] = true
	default:
		t.OldStatus = d.last(t.Key)
	}
	if t.NewStatus != "" {
		d.status[t.Key] = t.NewStatus
	}
	d.out = append(d.out, t)
}

// last is the status key's last write left; pending before any.
func (d *deriver) last(key string) string {
	if s, ok := d.status[key]; ok {
		return s
	}
	return history.StatusPending
}

// deletedAs is what deleting key's row means: failed when it went to the
// dead-letter table, else what the model says a deletion is ("" when it
// says nothing: a relay clearing rows it had published otherwise).
func (d *deriver) deletedAs(key string) string {
	if _, ok := d.dead[key]; ok {
		return history.StatusFailed
	}
	switch d.m.States.Deleted {
	case schema.DeletedPublished:
		return history.StatusPublished
	case schema.DeletedFailed:
		return history.StatusFailed
	}
	return ""
}

// deadLetterFailures finalizes into failed every row that went to the
// dead-letter table and was never deleted: the dead-letter insert is the
// failure.
func (d *deriver) deadLetterFailures() {
	for key, t := range d.dead {
		if d.deleted[key] {
			continue
		}
		old := d.last(key)
		if old == history.StatusFailed {
			continue
		}
		d.out = append(d.out, history.Transition{Seq: t.Seq, Table: history.TableOutbox, Key: key, Op: "update", At: t.At,
			OldStatus: old, NewStatus: history.StatusFailed, Writer: t.Writer, Image: t.Image})
		d.status[key] = history.StatusFailed
	}
}

// cursor reads one offsets-table write: a move of the group's cursor
// publishes every event it passes that had committed by then.
func (d *deriver) cursor(t history.Transition) error {
	c := d.m.States.Cursor
	if c == nil || t.Op == "delete" || (c.GroupColumn != "" && t.Key != c.Group) {
		return nil
	}
	to, err := imageInt(t.Image, c.Column)
	if err != nil {
		return fmt.Errorf("derive: seq %d: offsets table %s: %w", t.Seq, c.Table, err)
	}
	t.Offset = to
	d.out = append(d.out, t) // kept: a checker asks when the cursor passed an id
	from := d.offset
	if to <= from {
		return nil
	}
	d.offset = to
	i := sort.Search(len(d.ids), func(i int) bool { return d.ids[i] > from })
	for ; i < len(d.ids) && d.ids[i] <= to; i++ {
		key := strconv.FormatInt(d.ids[i], 10)
		if !d.committedBy(d.ids[i], t.At) || d.last(key) == history.StatusPublished {
			continue
		}
		d.out = append(d.out, history.Transition{Seq: t.Seq, Table: history.TableOutbox, Key: key, Op: "update", At: t.At,
			OldStatus: d.last(key), NewStatus: history.StatusPublished, Writer: t.Writer})
		d.status[key] = history.StatusPublished
	}
	return nil
}

// committedBy tells whether event id's transaction may have committed by
// at: a held transaction from the moment its COMMIT was sent, any other
// from its INSERT (the database assigns the id there) or, with no insert
// recorded, from the moment the producer recorded it.
func (d *deriver) committedBy(id int64, at time.Time) bool {
	e := d.events[id]
	switch {
	case !e.Committing.IsZero():
		return !at.Before(e.Committing)
	case !d.inserts[strconv.FormatInt(id, 10)].IsZero():
		return !at.Before(d.inserts[strconv.FormatInt(id, 10)])
	}
	return !at.Before(e.Produced)
}

// imageInt reads column col of a row image as an integer.
func imageInt(image json.RawMessage, col string) (int64, error) {
	var row map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(image))
	dec.UseNumber()
	if err := dec.Decode(&row); err != nil {
		return 0, fmt.Errorf("row image: %w", err)
	}
	v, ok := row[col]
	for k, kv := range row {
		if !ok && strings.EqualFold(k, col) {
			v, ok = kv, true
		}
	}
	if !ok {
		return 0, fmt.Errorf("row image has no column %s", col)
	}
	var n json.Number
	if err := json.Unmarshal(v, &n); err != nil {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return 0, fmt.Errorf("column %s is %s, not an integer", col, v)
		}
		n = json.Number(s)
	}
	return n.Int64()
}
