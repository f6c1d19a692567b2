package observe

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// HistoryTable is the harness-owned table the triggers append to.
const HistoryTable = "oc_history"

const historyDDL = "CREATE TABLE IF NOT EXISTS `" + HistoryTable + "` (" +
	"`seq` BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, " +
	"`tbl` VARCHAR(16) NOT NULL, " +
	"`row_id` TEXT NOT NULL, " +
	"`op` VARCHAR(8) NOT NULL, " +
	"`at` DATETIME(6) NOT NULL, " +
	"`old_status` TEXT NULL, `new_status` TEXT NULL, " +
	"`attempts` BIGINT NULL, `available_at` DATETIME(6) NULL, " +
	"`locked_by` TEXT NULL, `lock_token` TEXT NULL, `locked_until` DATETIME(6) NULL, " +
	"`last_error` TEXT NULL, `old_lock_token` TEXT NULL, `old_last_error` TEXT NULL, " +
	"`writer` VARCHAR(255) NULL, `image` LONGTEXT NULL, `old_image` LONGTEXT NULL" +
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"

const historyColumns = "`tbl`, `row_id`, `op`, `at`, `old_status`, `new_status`, `attempts`, `available_at`, " +
	"`locked_by`, `lock_token`, `locked_until`, `last_error`, `old_lock_token`, `old_last_error`, `writer`, `image`, `old_image`"

// writerExpr is the MySQL user of the session that made the change, without
// its host. USER() is the client's own account even inside a trigger, which
// runs with its definer's rights (CURRENT_USER() would name the definer).
const writerExpr = "SUBSTRING_INDEX(USER(), '@', 1)"

// trigger is one trigger the observer owns.
type trigger struct {
	name  string
	table string // the dispatcher's table
	event string // INSERT, UPDATE, DELETE
	body  string
}

// modelTable is one table the model names, with what its records hold.
type modelTable struct {
	kind    string // history.TableOutbox, TableJobs, TableDeadLetter, TableCursor
	name    string // the dispatcher's table
	key     string // the column recorded as the row's key
	columns []column
}

// tablesOf is the model's tables (model.Tables), to be read from the
// database.
func tablesOf(m schema.Mapping) []modelTable {
	var out []modelTable
	for _, t := range model.Tables(m) {
		out = append(out, modelTable{kind: t.Kind, name: t.Name, key: t.Key})
	}
	return out
}

// triggers lists the insert, update and delete triggers of every table of
// the model. statusExpr renders the outbox's status on a row side.
func triggers(m schema.Mapping, tables []modelTable, statusExpr func(side string) string) []trigger {
	var out []trigger
	for _, ev := range []string{"INSERT", "UPDATE", "DELETE"} {
		for _, t := range tables {
			out = append(out, trigger{name: "oc_" + t.kind + "_" + strings.ToLower(ev), table: t.name, event: ev,
				body: recordRow(m, t, ev, statusExpr)})
		}
	}
	return out
}

func (t trigger) create() string {
	return fmt.Sprintf("CREATE TRIGGER %s AFTER %s ON %s FOR EACH ROW INSERT INTO `%s` (%s) VALUES (%s)",
		ident(t.name), t.event, ident(t.table), HistoryTable, historyColumns, t.body)
}

// sides returns the row reference holding the values after the change (NEW,
// or OLD for a delete) and the one before it ("" for an insert).
func sides(event string) (cur, old string) {
	switch event {
	case "INSERT":
		return "NEW", ""
	case "DELETE":
		return "OLD", "OLD"
	default:
		return "NEW", "OLD"
	}
}

// col is side.column, or NULL when the column or the side is absent.
func col(side, column string) string {
	if side == "" || column == "" {
		return "NULL"
	}
	return side + "." + ident(column)
}

// recordRow is the VALUES list of one table's record for one event.
func recordRow(m schema.Mapping, t modelTable, event string, statusExpr func(side string) string) string {
	cur, old := sides(event)
	newSide := cur
	if event == "DELETE" {
		newSide = ""
	}
	head := []string{quoteString(t.kind), keyExpr(func(c string) string { return col(cur, c) }, t), quoteString(strings.ToLower(event)), "UTC_TIMESTAMP(6)"}
	o := m.Outbox
	switch {
	case t.kind == history.TableOutbox && m.StatusWords():
		head = append(head, col(old, o.Status), col(newSide, o.Status))
	case t.kind == history.TableOutbox && newSide != "":
		head = append(head, "NULL", statusExpr(newSide))
	case t.kind == history.TableJobs:
		head = append(head, col(old, m.Jobs.Status), col(newSide, m.Jobs.Status))
	default:
		head = append(head, "NULL", "NULL")
	}
	if t.kind == history.TableOutbox {
		head = append(head, col(cur, o.Attempts), utc(col(cur, o.AvailableAt)), col(cur, o.LockedBy), col(cur, o.LockToken),
			utc(col(cur, o.LockedUntil)), col(cur, o.LastError), col(old, o.LockToken), col(old, o.LastError))
	} else {
		head = append(head, "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL")
	}
	return strings.Join(append(head, writerExpr, imageExpr(newSide, t.columns), imageExpr(old, t.columns)), ", ")
}

// utc is a DATETIME or TIMESTAMP value as the writing session sees it (a
// trigger runs in the writer's session), converted from that session's
// time zone to UTC, so a server or session running in another zone than
// UTC does not shift the history; NULL stays NULL. CONVERT_TZ returns a
// value outside the TIMESTAMP range unconverted.
func utc(expr string) string {
	if expr == "NULL" {
		return expr
	}
	return "CONVERT_TZ(" + expr + ", @@session.time_zone, '+00:00')"
}

// keyExpr is the row's key as text, ref rendering the key column: a
// binary key in lower-case hex.
func keyExpr(ref func(string) string, t modelTable) string {
	if isBinary(typeOf(t.columns, t.key)) {
		return "LOWER(HEX(" + ref(t.key) + "))"
	}
	return "CAST(" + ref(t.key) + " AS CHAR)"
}

// imageExpr is the row on side as a JSON object of column to value (binary
// values in hex), or NULL without a side.
func imageExpr(side string, cols []column) string {
	if side == "" || len(cols) == 0 {
		return "NULL"
	}
	parts := make([]string, 0, 2*len(cols))
	for _, c := range cols {
		v := col(side, c.name)
		if isBinary(c.typ) {
			v = "LOWER(HEX(" + v + "))"
		}
		parts = append(parts, quoteString(c.name), v)
	}
	return "JSON_OBJECT(" + strings.Join(parts, ", ") + ")"
}

// InstallTriggers creates oc_history (if missing) and the triggers on every
// table of m's model (tablesOf), replacing earlier ones of the same names.
// It checks that the state predicates run on the outbox table first, so a
// bad predicate is a setup error naming it, never a failed dispatcher write.
// Install before the dispatcher starts: a change made while a trigger is
// being replaced is not recorded.
func InstallTriggers(ctx context.Context, db *sql.DB, m schema.Mapping) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("install triggers: %w", err)
	}
	ts, err := modelTriggers(ctx, db, m)
	if err != nil {
		return fmt.Errorf("install triggers: %w", err)
	}
	if _, err := db.ExecContext(ctx, historyDDL); err != nil {
		return fmt.Errorf("install triggers: create %s: %w", HistoryTable, err)
	}
	for _, t := range ts {
		if _, err := db.ExecContext(ctx, "DROP TRIGGER IF EXISTS "+ident(t.name)); err != nil {
			return fmt.Errorf("install triggers: drop old %s: %w", t.name, err)
		}
		if _, err := db.ExecContext(ctx, t.create()); err != nil {
			return fmt.Errorf("install triggers: create %s on %s (needs the TRIGGER privilege): %w", t.name, t.table, err)
		}
	}
	return nil
}

// modelTriggers reads the model's tables from the database, checks the
// mapping against them and returns the triggers to install.
func modelTriggers(ctx context.Context, db *sql.DB, m schema.Mapping) ([]trigger, error) {
	tables := tablesOf(m)
	for i, t := range tables {
		for _, u := range tables[:i] {
			if strings.EqualFold(t.name, u.name) {
				return nil, fmt.Errorf("%s and %s are both table %s; they must be different tables", u.kind, t.kind, t.name)
			}
		}
	}
	if err := checkColumns(ctx, db, m); err != nil {
		return nil, err
	}
	for i := range tables {
		cols, err := columnList(ctx, db, tables[i].name)
		if err != nil {
			return nil, err
		}
		tables[i].columns = cols
	}
	st := model.Store{Dialect: model.MySQL, Columns: names(tables[0].columns)}
	if err := checkPredicates(ctx, db, m, st); err != nil {
		return nil, err
	}
	statusExpr := func(side string) string {
		e, _ := st.StatusExpr(m, func(c string) string { return col(side, c) })
		return e
	}
	return triggers(m, tables, statusExpr), nil
}

// checkPredicates runs the status expression and the open-rows condition
// over the outbox table once, so a predicate the database cannot run is
// reported with the key that holds it.
func checkPredicates(ctx context.Context, db *sql.DB, m schema.Mapping, st model.Store) error {
	expr, err := st.StatusExpr(m, ident)
	if err != nil {
		return err
	}
	where, args, err := st.OpenWhere(m, 1)
	if err != nil {
		return err
	}
	q := fmt.Sprintf("SELECT COUNT(%s) FROM %s WHERE %s", expr, ident(m.Outbox.Table), where)
	var n int
	if err := db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return fmt.Errorf("the states of the schema mapping do not run on table %s (%s): %w: fix the predicates", m.Outbox.Table, q, err)
	}
	return nil
}

// DropTriggers removes the model's triggers. oc_history and its rows stay,
// so the history can still be read.
func DropTriggers(ctx context.Context, db *sql.DB, m schema.Mapping) error {
	for _, t := range triggers(m, tablesOf(m), func(string) string { return "NULL" }) {
		if _, err := db.ExecContext(ctx, "DROP TRIGGER IF EXISTS "+ident(t.name)); err != nil {
			return fmt.Errorf("drop trigger %s: %w", t.name, err)
		}
	}
	return nil
}
