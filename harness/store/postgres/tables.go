package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// modelTable is one table the model names, with what its records hold.
type modelTable struct {
	kind    string // history.TableOutbox, TableJobs, TableDeadLetter, TableCursor
	name    string // the dispatcher's table, as the mapping names it
	key     string // the column recorded as the row's key
	schema  string // the schema the search_path finds it in
	columns []column
}

// ref is the table's schema-qualified name.
func (t modelTable) ref() string { return ident(t.schema) + "." + ident(t.name) }

// tablesOf is the model's tables (model.Tables), to be read from the
// database.
func tablesOf(m schema.Mapping) []modelTable {
	var out []modelTable
	for _, t := range model.Tables(m) {
		out = append(out, modelTable{kind: t.Kind, name: t.Name, key: t.Key})
	}
	return out
}

// column is one column of a table as the database has it: its name and
// its type (a domain's base type) as format_type writes it ("bigint",
// "timestamp with time zone", "bytea", ...).
type column struct{ name, typ string }

func names(cols []column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name
	}
	return out
}

// find returns the column named exactly name.
func find(cols []column, name string) (column, bool) {
	for _, c := range cols {
		if c.name == name {
			return c, true
		}
	}
	return column{}, false
}

// typeOf is the type of column name in cols ("" when absent).
func typeOf(cols []column, name string) string {
	c, _ := find(cols, name)
	return c.typ
}

func isBinary(typ string) bool { return typ == "bytea" }

// resolve finds table through the search_path, as the dispatcher's
// unqualified statements do, and reads its schema and columns.
func resolve(ctx context.Context, db querier, table string) (string, []column, error) {
	if strings.Contains(table, ".") {
		return "", nil, fmt.Errorf("table %q names a schema: name the table alone; the PostgreSQL store finds tables "+
			"through the search_path (set it for the database, or options=-csearch_path=<schema> in the DSN)", table)
	}
	var nsp, kind string
	err := db.QueryRowContext(ctx, `SELECT n.nspname, c.relkind FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)`, ident(table)).Scan(&nsp, &kind)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, notFound(ctx, db, table)
	}
	if err != nil {
		return "", nil, fmt.Errorf("find table %s: %w", table, err)
	}
	if kind != "r" && kind != "p" {
		return "", nil, fmt.Errorf("%s is not a table (relkind %s): name the table the dispatcher writes", table, kind)
	}
	cols, err := columnList(ctx, db, table)
	return nsp, cols, err
}

// notFound says why table is not there: a name whose case differs from
// the database's, or a table that is not created yet.
func notFound(ctx context.Context, db querier, table string) error {
	var other, path string
	err := db.QueryRowContext(ctx, `SELECT COALESCE((SELECT c.relname FROM pg_catalog.pg_class c
		WHERE lower(c.relname) = lower($1) AND c.relkind IN ('r', 'p') AND pg_catalog.pg_table_is_visible(c.oid) LIMIT 1), ''),
		current_setting('search_path')`, table).Scan(&other, &path)
	switch {
	case err != nil:
		return fmt.Errorf("find table %s: %w", table, err)
	case other != "":
		return fmt.Errorf("table %s not found, but %s is: PostgreSQL names are case-sensitive as the harness quotes them; "+
			"write %s in the mapping", table, other, other)
	}
	return fmt.Errorf("table %s not found in the search_path (%s): create the dispatcher's schema first", table, path)
}

// columnList returns table's columns in their order.
func columnList(ctx context.Context, db querier, table string) ([]column, error) {
	q := `SELECT a.attname, pg_catalog.format_type(CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE a.atttypid END, NULL)
		FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
		WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`
	cols, err := scanAll(ctx, db, "columns of "+table, q, []any{ident(table)}, func(rows *sql.Rows) (column, error) {
		var c column
		err := rows.Scan(&c.name, &c.typ)
		return c, err
	})
	if err == nil && len(cols) == 0 {
		return nil, fmt.Errorf("table %s has no columns", table)
	}
	return cols, err
}

// columnKind is what a mapped column must hold for the triggers to copy it.
type columnKind int

const (
	anyKind columnKind = iota
	integerKind
	timeKind
)

var integerTypes = map[string]bool{"smallint": true, "integer": true, "bigint": true}

// namedColumn is a column the mapping names and what it must hold.
type namedColumn struct {
	name string
	kind columnKind
}

// wanted lists, per kind of model table, the columns the mapping names.
func wanted(m schema.Mapping, kind string) []namedColumn {
	o, j := m.Outbox, m.Jobs
	switch kind {
	case history.TableOutbox:
		return []namedColumn{{o.ID, anyKind}, {o.EventType, anyKind}, {o.AggregateID, anyKind},
			{o.Payload, anyKind}, {o.Status, anyKind}, {o.Attempts, integerKind}, {o.AvailableAt, timeKind},
			{o.LockedBy, anyKind}, {o.LockToken, anyKind}, {o.LockedUntil, timeKind}, {o.LastError, anyKind},
			{o.PublishedAt, timeKind}, {o.CreatedAt, timeKind}, {o.MessageID, anyKind}, {o.Topic, anyKind}}
	case history.TableJobs:
		return []namedColumn{{j.ID, anyKind}, {j.Queue, anyKind}, {j.Status, anyKind}}
	case history.TableDeadLetter:
		return []namedColumn{{m.States.DeadLetter.ID, anyKind}}
	case history.TableCursor:
		c := m.States.Cursor
		return []namedColumn{{c.Column, integerKind}, {c.GroupColumn, anyKind}}
	}
	return nil
}

// checkColumns verifies that every column the mapping names on t exists
// under that exact name, and that copied counters and times have types
// oc_history can hold.
func checkColumns(m schema.Mapping, t modelTable) error {
	for _, w := range wanted(m, t.kind) {
		if w.name == "" {
			continue
		}
		if err := checkColumn(t, w); err != nil {
			return err
		}
	}
	return nil
}

func checkColumn(t modelTable, w namedColumn) error {
	c, ok := find(t.columns, w.name)
	if !ok {
		for _, other := range t.columns {
			if strings.EqualFold(other.name, w.name) {
				return fmt.Errorf("column %s.%s named by the schema mapping does not exist, but %s does: PostgreSQL names "+
					"are case-sensitive as the harness quotes them; write %s in the mapping", t.name, w.name, other.name, other.name)
			}
		}
		return fmt.Errorf("column %s.%s named by the schema mapping does not exist: fix the mapping or the DDL", t.name, w.name)
	}
	switch {
	case w.kind == integerKind && !integerTypes[c.typ]:
		return fmt.Errorf("column %s.%s is %s: the attempts and cursor offset columns must be smallint, integer or bigint", t.name, w.name, c.typ)
	case w.kind == timeKind && c.typ != timestampType && c.typ != timestamptzType:
		return fmt.Errorf("column %s.%s is %s: time columns must be timestamp or timestamptz (leave it out of the mapping otherwise)", t.name, w.name, c.typ)
	}
	return nil
}

// modelTables resolves every table of m's model and checks the mapping's
// columns against them.
func modelTables(ctx context.Context, db querier, m schema.Mapping) ([]modelTable, error) {
	tables := tablesOf(m)
	for i := range tables {
		t := &tables[i]
		nsp, cols, err := resolve(ctx, db, t.name)
		if err != nil {
			return nil, err
		}
		t.schema, t.columns = nsp, cols
		for _, u := range tables[:i] {
			if u.schema == t.schema && u.name == t.name {
				return nil, fmt.Errorf("%s and %s are both table %s; they must be different tables", u.kind, t.kind, t.name)
			}
		}
		if err := checkColumns(m, *t); err != nil {
			return nil, err
		}
	}
	return tables, nil
}
