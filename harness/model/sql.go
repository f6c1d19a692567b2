package model

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// Store is what SQL generation needs of the store the outbox lives in: its
// dialect and the outbox table's columns as the database has them.
type Store struct {
	Dialect Dialect
	Columns []string // the outbox table's columns
}

// StatusExpr is the SQL expression that a row's canonical status is, with
// col rendering each column reference (NEW.`x` in a trigger, `x` in a
// query). For the status-word form it is the status column itself (its
// word, mapped when read); for states it is a CASE over the predicates,
// published first, then failed, then claimed, else pending, with the
// canonical word as its value. A state whose source is not a predicate
// (a deletion, a cursor, a dead-letter table) is left to Derive.
func (s Store) StatusExpr(m schema.Mapping, col func(string) string) (string, error) {
	if m.StatusWords() {
		return col(m.Outbox.Status), nil
	}
	var b strings.Builder
	for _, w := range []struct{ pred, status string }{
		{m.States.Published, history.StatusPublished},
		{m.States.Failed, history.StatusFailed},
		{m.States.Claimed, history.StatusProcessing},
	} {
		if w.pred == "" {
			continue
		}
		p, err := Rewrite(w.pred, s.Columns, s.Dialect, col)
		if err != nil {
			return "", fmt.Errorf("states.%s: %w", stateKey(w.status), err)
		}
		fmt.Fprintf(&b, " WHEN (%s) THEN '%s'", p, w.status)
	}
	if b.Len() == 0 {
		return "'" + history.StatusPending + "'", nil // no predicate: a cursor alone says published
	}
	return fmt.Sprintf("CASE%s ELSE '%s' END", b.String(), history.StatusPending), nil
}

// stateKey is the manifest key of the predicate giving status.
func stateKey(status string) string {
	if status == history.StatusProcessing {
		return "claimed"
	}
	return status
}

// OpenWhere is a WHERE condition (over the outbox table's own columns,
// unqualified, and args for its placeholders, ? in MySQL and $n in
// PostgreSQL numbered from first) that holds for a row whose message is
// not settled yet: neither published nor failed.
func (s Store) OpenWhere(m schema.Mapping, first int) (string, []any, error) {
	q, id := s.Dialect.Quote, s.Dialect.Quote(m.Outbox.ID)
	if m.StatusWords() {
		var words []any
		for w, c := range m.OutboxStatus {
			if c == history.StatusPending || c == history.StatusProcessing {
				words = append(words, w)
			}
		}
		return fmt.Sprintf("%s IN (%s)", q(m.Outbox.Status), s.placeholders(first, len(words))), words, nil
	}
	st := m.States
	var conds []string
	var args []any
	for _, p := range []string{st.Published, st.Failed} {
		if p == "" {
			continue
		}
		r, err := Rewrite(p, s.Columns, s.Dialect, func(c string) string { return q(c) })
		if err != nil {
			return "", nil, err
		}
		conds = append(conds, "NOT COALESCE(("+r+"), FALSE)")
	}
	if d := st.DeadLetter; d != nil {
		conds = append(conds, fmt.Sprintf("NOT EXISTS (SELECT 1 FROM %s dl WHERE dl.%s = %s.%s)", q(d.Table), q(d.ID), q(m.Outbox.Table), id))
	}
	if c := st.Cursor; c != nil {
		cond := fmt.Sprintf("%s > COALESCE((SELECT MAX(%s) FROM %s", id, q(c.Column), q(c.Table))
		if c.GroupColumn != "" {
			cond += fmt.Sprintf(" WHERE %s = %s", q(c.GroupColumn), s.placeholders(first, 1))
			args = append(args, c.Group)
		}
		conds = append(conds, cond+"), 0)")
	}
	if len(conds) == 0 {
		return "TRUE", nil, nil // deleted on publish and never failed: every row left is open
	}
	return strings.Join(conds, " AND "), args, nil
}

// Placeholders is n placeholders from number first.
func (s Store) Placeholders(first, n int) string { return s.placeholders(first, n) }

// placeholders is n placeholders from number first.
func (s Store) placeholders(first, n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = "?"
		if s.Dialect.Numbered {
			ps[i] = fmt.Sprintf("$%d", first+i)
		}
	}
	return strings.Join(ps, ", ")
}

// ClaimedWhere is a WHERE condition (unqualified columns, placeholders from
// first) that holds for a row a relay holds now; ok is false when the
// outbox has no claims.
func (s Store) ClaimedWhere(m schema.Mapping, first int) (cond string, args []any, ok bool, err error) {
	if m.StatusWords() {
		for w, c := range m.OutboxStatus {
			if c == history.StatusProcessing {
				args = append(args, w)
			}
		}
		return fmt.Sprintf("%s IN (%s)", s.Dialect.Quote(m.Outbox.Status), s.placeholders(first, len(args))), args, true, nil
	}
	if m.States.Claimed == "" {
		return "", nil, false, nil
	}
	r, err := Rewrite(m.States.Claimed, s.Columns, s.Dialect, s.Dialect.Quote)
	return "COALESCE((" + r + "), FALSE)", nil, true, err
}

// JobExpr is the SQL for an outbox row's job (history.Event.JobID): its
// aggregate_id where the mapping names one, else the payload's jobId.
func (s Store) JobExpr(m schema.Mapping) string {
	if m.Outbox.AggregateID != "" {
		return s.Dialect.Quote(m.Outbox.AggregateID)
	}
	return s.Dialect.JSONText(s.Dialect.Quote(m.Outbox.Payload), "jobId")
}

// MessageExpr is the SQL for the id an outbox row's message carries in the
// sink when the outbox has no jobs table: its message_id column as text,
// else its key as text (a binary key in hex: MessageKey turns a uuid into
// it). As text, because the ids compared with it are any the sink holds: a
// PostgreSQL uuid column compared with a BullMQ counter id or a payload's
// jobId would fail the whole statement ("invalid input syntax for type
// uuid").
func (s Store) MessageExpr(m schema.Mapping) string {
	if m.Outbox.MessageID != "" && m.Outbox.MessageID != m.Outbox.ID {
		return s.Dialect.KeyText(s.Dialect.Quote(m.Outbox.MessageID), false)
	}
	return s.KeyExpr(m)
}

// MessageKey is a message id as MessageExpr reads it: a uuid in lower-case
// hex, without its dashes, for a binary key.
func MessageKey(m schema.Mapping, id string) string {
	if m.Outbox.IDType == schema.KeyBinary && (m.Outbox.MessageID == "" || m.Outbox.MessageID == m.Outbox.ID) {
		return strings.ToLower(strings.ReplaceAll(id, "-", ""))
	}
	return id
}

// KeyExpr is the SQL for an outbox row's key as text, as the triggers
// record it (history.Event.Row for a key the producer chose).
func (s Store) KeyExpr(m schema.Mapping) string {
	return s.Dialect.KeyText(s.Dialect.Quote(m.Outbox.ID), m.Outbox.IDType == schema.KeyBinary)
}
