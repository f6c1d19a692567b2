package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/model"
)

// ident quotes a table or column name from the mapping, as written: a
// quoted name is case-sensitive in PostgreSQL.
func ident(name string) string { return model.Postgres.Quote(name) }

// literal is s as a standard SQL string literal (standard_conforming_strings
// on, the default since PostgreSQL 9.1: a backslash is itself).
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// dbTimeLayout is how times are read back (to_char with US: microseconds).
const dbTimeLayout = "2006-01-02 15:04:05.000000"

// Infinite timestamps read as the ends of the range a MySQL DATETIME has, so
// that a lease of 'infinity' is in the future and '-infinity' in the past.
const (
	infinityText    = "9999-12-31 23:59:59.999999"
	minusInfinity   = "0001-01-01 00:00:00.000000"
	timestampType   = "timestamp without time zone"
	timestamptzType = "timestamp with time zone"
)

// utcText is the SQL for the text of the time expr in UTC, in
// dbTimeLayout: a timestamp with time zone is converted to UTC, one without
// is read as UTC already. NULL stays NULL.
func utcText(expr string, tz bool) string {
	local := expr
	if tz {
		local = "(" + expr + " AT TIME ZONE 'UTC')"
	}
	return fmt.Sprintf("(CASE WHEN %s IS NULL THEN NULL WHEN isfinite(%s) THEN to_char(%s, 'YYYY-MM-DD HH24:MI:SS.US') "+
		"WHEN %s > 'epoch' THEN '%s' ELSE '%s' END)", expr, expr, local, expr, infinityText, minusInfinity)
}

// asTimestamptz is the SQL of the time expr as a timestamp with time zone,
// a timestamp without one read as UTC (never in the session's time zone).
func asTimestamptz(expr string, tz bool) string {
	if tz {
		return expr
	}
	return "(" + expr + " AT TIME ZONE 'UTC')"
}

// parseDBTime reads a utcText value as UTC; NULL reads as nil.
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

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// scanAll runs q with args and reads every row with scan; errors say what
// was read ("outbox rows", "transitions"). No rows is an empty slice.
func scanAll[T any](ctx context.Context, db querier, what, q string, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		r, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", what, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	return out, nil
}
