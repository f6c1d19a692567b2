package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// textOr is the column as text, or the fallback expression when the
// mapping has no such column.
func textOr(column, fallback string) string {
	if column == "" {
		return fallback
	}
	return "(" + ident(column) + ")::text"
}

// attemptsOr is the attempts column as a bigint, 0 when NULL or when the
// mapping has none.
func attemptsOr(column string) string {
	if column == "" {
		return "0"
	}
	return "COALESCE((" + ident(column) + ")::bigint, 0)"
}

// timeOr is the column's utcText, or NULL when the mapping has none.
func timeOr(cols []column, name string) string {
	if name == "" {
		return "NULL"
	}
	return utcText(ident(name), typeOf(cols, name) == timestamptzType)
}

// ScanOutboxRows reads every outbox row for the final scan, as
// observe.ScanOutboxRows does on MySQL: its key as text (Row; ID when it is
// an integer; a bytea key in lower-case hex), its status as the model
// computes it now (StatusExpr, or the mapped status word), and what else
// the mapping names. harness/model's DeriveFinal keys them by event.
func ScanOutboxRows(ctx context.Context, db *sql.DB, m schema.Mapping) ([]history.OutboxRow, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("scan outbox rows: %w", err)
	}
	o := m.Outbox
	_, cols, err := resolve(ctx, db, o.Table)
	if err != nil {
		return nil, fmt.Errorf("scan outbox rows: %w", err)
	}
	st := model.Store{Dialect: model.Postgres, Columns: names(cols)}
	status, err := st.StatusExpr(m, ident)
	if err != nil {
		return nil, fmt.Errorf("scan outbox rows: %w", err)
	}
	key := model.Postgres.KeyText(ident(o.ID), isBinary(typeOf(cols, o.ID)))
	q := fmt.Sprintf("SELECT %s, COALESCE(%s, ''), COALESCE(%s, ''), (%s)::text, %s, %s, %s, %s FROM %s ORDER BY %s",
		key, textOr(o.EventType, "NULL"), textOr(o.AggregateID, "NULL"), status, attemptsOr(o.Attempts),
		textOr(o.LastError, "NULL"), timeOr(cols, o.PublishedAt), timeOr(cols, o.CreatedAt), ident(o.Table), ident(o.ID))
	return scanAll(ctx, db, "outbox rows", q, nil, func(rows *sql.Rows) (history.OutboxRow, error) {
		return scanOutboxRow(rows, m)
	})
}

func scanOutboxRow(rows *sql.Rows, m schema.Mapping) (history.OutboxRow, error) {
	var r history.OutboxRow
	var status string
	var lastErr, published, created sql.NullString
	if err := rows.Scan(&r.Row, &r.Type, &r.JobID, &status, &r.Attempts, &lastErr, &published, &created); err != nil {
		return r, err
	}
	r.ID, _ = strconv.ParseInt(r.Row, 10, 64)
	r.Status, r.LastError = status, lastErr.String
	if m.StatusWords() {
		r.Status = model.Canonical(m.OutboxStatus, status)
	}
	var err error
	if r.PublishedAt, err = parseDBTime(published); err != nil {
		return r, fmt.Errorf("outbox row %s: published_at: %w", r.Row, err)
	}
	c, err := parseDBTime(created)
	if err != nil {
		return r, fmt.Errorf("outbox row %s: created_at: %w", r.Row, err)
	}
	if c != nil {
		r.Created = *c
	}
	return r, nil
}

// ScanJobs reads every jobs row with its canonical status, as the MySQL
// final scan does; none without a jobs table.
func ScanJobs(ctx context.Context, db *sql.DB, m schema.Mapping) ([]history.JobRow, error) {
	if !m.HasJobs() {
		return []history.JobRow{}, nil
	}
	j := m.Jobs
	q := fmt.Sprintf("SELECT (%s)::text, (%s)::text, (%s)::text FROM %s ORDER BY %s",
		ident(j.ID), ident(j.Queue), ident(j.Status), ident(j.Table), ident(j.ID))
	return scanAll(ctx, db, "jobs rows", q, nil, func(rows *sql.Rows) (history.JobRow, error) {
		var r history.JobRow
		var status string
		err := rows.Scan(&r.ID, &r.Queue, &status)
		r.Status = model.Canonical(m.JobStatus, status)
		return r, err
	})
}
