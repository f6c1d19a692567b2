package model

import (
	"sort"
	"strconv"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// DeriveFinal reads the final scan's outbox rows into canonical rows by
// event id. rows carry their key as text in Row and the status the store
// computed (StatusExpr, mapped); derived are Derive's transitions. A row
// keyed by an event's Row gets the event's id (Row stays, to show the real
// key); a row whose key is its id drops Row. An event whose row was deleted
// reads as its deletion's status; under a cursor, an event the cursor
// published reads as published.
func DeriveFinal(m schema.Mapping, events []history.Event, derived []history.Transition, rows []history.OutboxRow) []history.OutboxRow {
	byRow := map[string]int64{}
	byID := map[int64]history.Event{}
	for _, e := range events {
		byID[e.ID] = e
		if e.Row != "" {
			byRow[e.Row] = e.ID
		}
	}
	last := lastStatus(derived)
	seen := map[int64]bool{}
	out := make([]history.OutboxRow, 0, len(rows))
	for _, r := range rows {
		if id, ok := byRow[r.Row]; ok {
			r.ID = id
		} else if id, err := strconv.ParseInt(r.Row, 10, 64); err == nil && id == r.ID {
			r.Row = ""
		}
		if m.States.Cursor != nil && last[r.ID].NewStatus == history.StatusPublished && !isSettled(r.Status) {
			r.Status = history.StatusPublished
		}
		seen[r.ID] = true
		out = append(out, r)
	}
	for id, t := range last {
		if seen[id] || t.Op != "delete" || t.NewStatus == "" {
			continue
		}
		e := byID[id]
		out = append(out, history.OutboxRow{ID: id, Row: e.Row, Type: e.Type, JobID: e.JobID, Status: t.NewStatus,
			Attempts: t.Attempts, LastError: t.LastError})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func isSettled(status string) bool {
	return status == history.StatusPublished || status == history.StatusFailed
}

// lastStatus is each event's last derived outbox transition that set a
// status (or deleted its row).
func lastStatus(ts []history.Transition) map[int64]history.Transition {
	out := map[int64]history.Transition{}
	for _, t := range ts {
		id, ok := t.EventID()
		if !ok || (t.NewStatus == "" && t.Op != "delete") {
			continue
		}
		out[id] = t
	}
	return out
}
