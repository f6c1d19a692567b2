package observe

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// columnKind is what a mapped column must hold for the triggers to copy it.
type columnKind int

const (
	anyKind columnKind = iota
	integerKind
	timeKind
)

var integerTypes = map[string]bool{"tinyint": true, "smallint": true, "mediumint": true, "int": true, "bigint": true}
var timeTypes = map[string]bool{"datetime": true, "timestamp": true}

// tableColumns returns the lower-cased column names of table in the current
// database with their data types.
func tableColumns(ctx context.Context, db *sql.DB, table string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`, table)
	if err != nil {
		return nil, fmt.Errorf("read columns of %s: %w", table, err)
	}
	defer rows.Close()
	cols := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, fmt.Errorf("read columns of %s: %w", table, err)
		}
		cols[strings.ToLower(name)] = strings.ToLower(typ)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read columns of %s: %w", table, err)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("table %s not found in the current database: create the dispatcher's schema first", table)
	}
	return cols, nil
}

// namedColumn is a column the mapping names and what it must hold.
type namedColumn struct {
	name string
	kind columnKind
}

// column is one column of a table as the database has it.
type column struct{ name, typ string }

// columnList returns table's columns in their order, names as declared and
// data types lower-cased.
func columnList(ctx context.Context, db *sql.DB, table string) ([]column, error) {
	rows, err := db.QueryContext(ctx, `SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, table)
	if err != nil {
		return nil, fmt.Errorf("read columns of %s: %w", table, err)
	}
	defer rows.Close()
	var out []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.name, &c.typ); err != nil {
			return nil, fmt.Errorf("read columns of %s: %w", table, err)
		}
		c.typ = strings.ToLower(c.typ)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read columns of %s: %w", table, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("table %s not found in the current database: create the dispatcher's schema first", table)
	}
	return out, nil
}

func names(cols []column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name
	}
	return out
}

// typeOf is the type of column name in cols ("" when absent).
func typeOf(cols []column, name string) string {
	for _, c := range cols {
		if strings.EqualFold(c.name, name) {
			return c.typ
		}
	}
	return ""
}

// isBinary tells whether a column type holds bytes, recorded in hex.
func isBinary(typ string) bool {
	switch typ {
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
		return true
	}
	return false
}

// checkColumns verifies that every column the mapping names exists, and that
// copied temporal and counter columns have types oc_history can hold.
func checkColumns(ctx context.Context, db *sql.DB, m schema.Mapping) error {
	o, j := m.Outbox, m.Jobs
	type want struct {
		table string
		cols  []namedColumn
	}
	wants := []want{
		{o.Table, []namedColumn{{o.ID, anyKind}, {o.EventType, anyKind}, {o.AggregateID, anyKind},
			{o.Payload, anyKind}, {o.Status, anyKind}, {o.Attempts, integerKind}, {o.AvailableAt, timeKind},
			{o.LockedBy, anyKind}, {o.LockToken, anyKind}, {o.LockedUntil, timeKind}, {o.LastError, anyKind},
			{o.PublishedAt, timeKind}, {o.CreatedAt, timeKind}, {o.MessageID, anyKind}, {o.Topic, anyKind}}},
	}
	if m.HasJobs() {
		wants = append(wants, want{j.Table, []namedColumn{{j.ID, anyKind}, {j.Queue, anyKind}, {j.Status, anyKind}}})
	}
	if d := m.States.DeadLetter; d != nil {
		wants = append(wants, want{d.Table, []namedColumn{{d.ID, anyKind}}})
	}
	if c := m.States.Cursor; c != nil {
		wants = append(wants, want{c.Table, []namedColumn{{c.Column, integerKind}, {c.GroupColumn, anyKind}}})
	}
	for _, w := range wants {
		have, err := tableColumns(ctx, db, w.table)
		if err != nil {
			return err
		}
		for _, c := range w.cols {
			if c.name == "" {
				continue
			}
			if err := checkColumn(w.table, c.name, c.kind, have); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkColumn(table, col string, kind columnKind, have map[string]string) error {
	typ, ok := have[strings.ToLower(col)]
	if !ok {
		return fmt.Errorf("column %s.%s named by the schema mapping does not exist: fix the mapping or the DDL", table, col)
	}
	switch {
	case kind == integerKind && !integerTypes[typ]:
		return fmt.Errorf("column %s.%s is %s: the attempts and cursor offset columns must be integer types", table, col, typ)
	case kind == timeKind && !timeTypes[typ]:
		return fmt.Errorf("column %s.%s is %s: time columns must be DATETIME or TIMESTAMP (leave it out of the mapping otherwise)", table, col, typ)
	}
	return nil
}
