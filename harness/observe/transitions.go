package observe

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// UnmappedPrefix marks a status word the mapping does not know
// (model.UnmappedPrefix).
const UnmappedPrefix = model.UnmappedPrefix

// dbTimeLayout is how times are read back (DATE_FORMAT with %f).
const dbTimeLayout = "2006-01-02 15:04:05.000000"

// timeText selects a DATETIME expression as fixed text, independent of the
// driver's parseTime and loc settings.
func timeText(expr string) string {
	return "DATE_FORMAT(" + expr + ", '%Y-%m-%d %H:%i:%s.%f')"
}

// parseDBTime reads a timeText value as UTC; NULL reads as nil.
func parseDBTime(s sql.NullString) (*time.Time, error) {
	if !s.Valid {
		return nil, nil
	}
	t, err := time.ParseInLocation(dbTimeLayout, s.String, time.UTC)
	if err != nil {
		return nil, fmt.Errorf("database time %q: %w", s.String, err)
	}
	return &t, nil
}

// ReadTransitions returns the recorded transitions with seq > afterSeq, in seq
// order, as the triggers recorded them: status words mapped to canonical
// ones, a state predicate's status as the trigger computed it, records of
// every table of the model (harness/model's Derive makes canonical outbox
// transitions of them). Writer holds the MySQL
// user that made each change; AttributeWriters turns it into a slot. See the package doc for
// what seq order means while writers are still running.
func ReadTransitions(ctx context.Context, db *sql.DB, m schema.Mapping, afterSeq int64) ([]history.Transition, error) {
	q := "SELECT `seq`, `tbl`, `row_id`, `op`, " + timeText("`at`") + ", `old_status`, `new_status`, `attempts`, " +
		timeText("`available_at`") + ", `locked_by`, `lock_token`, " + timeText("`locked_until`") +
		", `last_error`, `old_lock_token`, `old_last_error`, `writer`, `image`, `old_image` FROM `" + HistoryTable + "` WHERE `seq` > ? ORDER BY `seq`"
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
	t.Writer = writer.String // the MySQL user; AttributeWriters names it
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

// AttributeWriters replaces each transition's Writer, a MySQL user as read,
// by who that user is: users maps a slot's own user to the slot and the
// harness's user to history.WriterHarness. A user users does not name, and
// every writer when users is empty (the instances shared the harness's
// user, so a user tells nothing), becomes "".
func AttributeWriters(ts []history.Transition, users map[string]string) {
	for i := range ts {
		ts[i].Writer = users[ts[i].Writer]
	}
}
