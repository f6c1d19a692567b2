package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// ReadTransitions returns the recorded transitions with seq > afterSeq, in
// seq order, as the triggers recorded them and as observe.ReadTransitions
// returns MySQL's: status words mapped to canonical ones (the status-word
// form and the jobs table), a state predicate's status as the trigger
// computed it, records of every table of the model (harness/model's Derive
// makes canonical outbox transitions of them), times in UTC to the
// microsecond, row images as JSON. Writer holds the login role that made
// each change; observe.AttributeWriters turns it into a slot. See the
// package doc for what seq order means while writers are still running.
func ReadTransitions(ctx context.Context, db *sql.DB, m schema.Mapping, afterSeq int64) ([]history.Transition, error) {
	q := "SELECT seq, tbl, row_id, op, " + utcText("at", true) + ", old_status, new_status, attempts, " +
		utcText("available_at", true) + ", locked_by, lock_token, " + utcText("locked_until", true) +
		", last_error, old_lock_token, old_last_error, writer, image::text, old_image::text FROM " + historyRef +
		" WHERE seq > $1 ORDER BY seq"
	return scanAll(ctx, db, "transitions", q, []any{afterSeq}, func(rows *sql.Rows) (history.Transition, error) {
		return scanTransition(rows, m)
	})
}

func scanTransition(rows *sql.Rows, m schema.Mapping) (history.Transition, error) {
	var t history.Transition
	var at, avail, until, oldSt, newSt, by, tok, lastErr, oldTok, oldErr, writer, image, oldImage sql.NullString
	var attempts sql.NullInt64
	if err := rows.Scan(&t.Seq, &t.Table, &t.Key, &t.Op, &at, &oldSt, &newSt, &attempts,
		&avail, &by, &tok, &until, &lastErr, &oldTok, &oldErr, &writer, &image, &oldImage); err != nil {
		return t, err
	}
	t.OldStatus, t.NewStatus = oldSt.String, newSt.String
	switch {
	case t.Table == history.TableJobs:
		t.OldStatus, t.NewStatus = model.Canonical(m.JobStatus, oldSt.String), model.Canonical(m.JobStatus, newSt.String)
	case t.Table == history.TableOutbox && m.StatusWords():
		t.OldStatus, t.NewStatus = model.Canonical(m.OutboxStatus, oldSt.String), model.Canonical(m.OutboxStatus, newSt.String)
	}
	if image.Valid {
		t.Image = json.RawMessage(image.String)
	}
	if oldImage.Valid {
		t.OldImage = json.RawMessage(oldImage.String)
	}
	t.Attempts = int(attempts.Int64)
	t.LockedBy, t.LockToken, t.LastError = by.String, tok.String, lastErr.String
	t.OldLockToken, t.OldLastError = oldTok.String, oldErr.String
	t.Writer = writer.String // the login role; observe.AttributeWriters names it
	atp, err := parseDBTime(at)
	if err != nil || atp == nil {
		return t, fmt.Errorf("seq %d: at: %v", t.Seq, err)
	}
	t.At = *atp
	if t.AvailableAt, err = parseDBTime(avail); err != nil {
		return t, fmt.Errorf("seq %d: available_at: %w", t.Seq, err)
	}
	if t.LockedUntil, err = parseDBTime(until); err != nil {
		return t, fmt.Errorf("seq %d: locked_until: %w", t.Seq, err)
	}
	return t, nil
}
