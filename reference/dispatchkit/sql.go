package dispatchkit

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// MaxLastError is the width of outbox_events.last_error
// (docs/contract.md §1).
const MaxLastError = 1024

// Querier is what a query needs: a pool or a transaction.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// InTx runs fn in one transaction on db and commits it; any error rolls it
// back. The isolation level is the connection's (the dispatchers set READ
// COMMITTED per connection).
func InTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// InList returns "(?,?,...)" with n placeholders; n must be at least 1.
func InList(n int) string {
	return "(" + strings.TrimSuffix(strings.Repeat("?,", n), ",") + ")"
}

// Args converts values to statement arguments.
func Args[T any](values []T) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

// QueryRows runs query on q and returns its rows, each read by scan. what
// names the query in errors ("select due events").
func QueryRows[T any](ctx context.Context, q Querier, what string, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: scan: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// ScanID reads a row of one BIGINT column.
func ScanID(rows *sql.Rows) (int64, error) {
	var id int64
	err := rows.Scan(&id)
	return id, err
}

// Job is the part of an ai_jobs row a dispatcher reads.
type Job struct{ Queue, Status string }

// LoadJobs reads the ai_jobs rows with the given ids in one statement; an id
// with no row is absent from the map.
func LoadJobs(ctx context.Context, q Querier, ids []string) (map[string]Job, error) {
	jobs := make(map[string]Job, len(ids))
	if len(ids) == 0 {
		return jobs, nil
	}
	type row struct {
		id  string
		job Job
	}
	rows, err := QueryRows(ctx, q, "load jobs", func(r *sql.Rows) (row, error) {
		var v row
		err := r.Scan(&v.id, &v.job.Queue, &v.job.Status)
		return v, err
	}, `SELECT id, queue_name, status FROM ai_jobs WHERE id IN `+InList(len(ids)), Args(ids)...)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		jobs[r.id] = r.job
	}
	return jobs, nil
}

// TruncateError cuts text to fit the contract's last_error (FitError with
// MaxLastError).
func TruncateError(text string) string { return FitError(text, MaxLastError) }

// FitError makes text fit a last_error column of width characters (a
// table's own column may be narrower than the contract's): invalid UTF-8 is
// replaced by U+FFFD, which utf8mb4 takes, and the text is cut on a
// character boundary to width characters and at most MaxLastError bytes.
// Under strict SQL mode a longer text is refused ("Data too long", SQLSTATE
// 22001) and invalid UTF-8 too ("Incorrect string value"): the failure
// write would fail again at every attempt.
func FitError(text string, width int) string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	if width <= 0 || width > MaxLastError {
		width = MaxLastError
	}
	n := 0
	for i := range text {
		if n == width || i > MaxLastError {
			return cutBytes(text[:i])
		}
		n++
	}
	return cutBytes(text)
}

// cutBytes cuts a valid UTF-8 text to MaxLastError bytes on a character
// boundary.
func cutBytes(text string) string {
	if len(text) <= MaxLastError {
		return text
	}
	cut := MaxLastError
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut]
}

// LastErrorWidth reads how many characters outbox_events.last_error holds
// from information_schema (0 when the server does not say, as for a TEXT
// column it may report a byte count: use MaxLastError then).
func LastErrorWidth(ctx context.Context, q Querier) (int, error) {
	widths, err := QueryRows(ctx, q, "read the width of last_error", func(r *sql.Rows) (sql.NullInt64, error) {
		var w sql.NullInt64
		return w, r.Scan(&w)
	}, `SELECT CHARACTER_MAXIMUM_LENGTH FROM information_schema.COLUMNS
	     WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'outbox_events' AND COLUMN_NAME = 'last_error'`)
	if err != nil {
		return 0, err
	}
	if len(widths) == 0 || !widths[0].Valid {
		return 0, nil
	}
	return int(min(widths[0].Int64, MaxLastError)), nil
}

// ErrorWidth is last_error's width in characters, read once from
// information_schema (LastErrorWidth) and kept; MaxLastError, the
// contract's width, while it cannot be read. Safe for concurrent use.
type ErrorWidth struct{ w atomic.Int64 }

// Of returns the width, reading it through q the first time it can.
func (c *ErrorWidth) Of(ctx context.Context, q Querier) int {
	if w := c.w.Load(); w > 0 {
		return int(w)
	}
	w, err := LastErrorWidth(ctx, q)
	if err != nil || w <= 0 {
		return MaxLastError
	}
	c.w.Store(int64(w))
	return w
}

// OutboxByID names the outbox table for statements that address rows by
// primary key (WHERE id IN (...) AND <guard>). The hint keeps the optimizer
// from scanning the status index for the guard instead: that scan would
// lock, or wait on, index entries of rows other instances are finalizing,
// and two finalizes doing it deadlock. By primary key every locking
// statement takes its rows in ascending id order, so they never deadlock.
const OutboxByID = "outbox_events FORCE INDEX (PRIMARY)"
