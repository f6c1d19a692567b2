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

// checkColumns verifies that every column the mapping names exists, and that
// copied temporal and counter columns have types oc_history can hold.
func checkColumns(ctx context.Context, db *sql.DB, m schema.Mapping) error {
	o, j := m.Outbox, m.Jobs
	want := []struct {
		table string
		cols  []namedColumn
	}{
		{o.Table, []namedColumn{{o.ID, anyKind}, {o.EventType, anyKind}, {o.AggregateID, anyKind},
			{o.Payload, anyKind}, {o.Status, anyKind}, {o.Attempts, integerKind}, {o.AvailableAt, timeKind},
			{o.LockedBy, anyKind}, {o.LockToken, anyKind}, {o.LockedUntil, timeKind}, {o.LastError, anyKind},
			{o.PublishedAt, timeKind}, {o.CreatedAt, timeKind}}},
		{j.Table, []namedColumn{{j.ID, anyKind}, {j.Queue, anyKind}, {j.Status, anyKind}}},
	}
	for _, w := range want {
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
		return fmt.Errorf("column %s.%s is %s: the attempts column must be an integer type", table, col, typ)
	case kind == timeKind && !timeTypes[typ]:
		return fmt.Errorf("column %s.%s is %s: time columns must be DATETIME or TIMESTAMP (leave it out of the mapping otherwise)", table, col, typ)
	}
	return nil
}
