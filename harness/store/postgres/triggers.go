package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/model"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// writerExpr is the login role of the session that made the change. The
// trigger functions are SECURITY DEFINER, so current_user inside them is
// their owner; session_user is the role the writer connected as.
const writerExpr = "session_user"

// bodyTag dollar-quotes a function body.
const bodyTag = "$oc_history$"

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

// castCol is col cast to typ, or NULL.
func castCol(side, column, typ string) string {
	c := col(side, column)
	if c == "NULL" {
		return c
	}
	return "(" + c + ")::" + typ
}

// timeCol is col as a timestamptz (see asTimestamptz), or NULL.
func timeCol(t modelTable, side, column string) string {
	c := col(side, column)
	if c == "NULL" {
		return c
	}
	return asTimestamptz(c, typeOf(t.columns, column) == timestamptzType)
}

// keyText is the row's key on side as text: a bytea key in lower-case hex.
func keyText(t modelTable, side string) string {
	return model.Postgres.KeyText(col(side, t.key), isBinary(typeOf(t.columns, t.key)))
}

// recordRow is the VALUES list of one table's record for one event.
func recordRow(m schema.Mapping, t modelTable, event string, statusExpr func(side string) string) string {
	cur, old := sides(event)
	newSide := cur
	if event == "DELETE" {
		newSide = ""
	}
	head := []string{literal(t.kind), keyText(t, cur), literal(strings.ToLower(event)), "clock_timestamp()"}
	o := m.Outbox
	switch {
	case t.kind == history.TableOutbox && m.StatusWords():
		head = append(head, castCol(old, o.Status, "text"), castCol(newSide, o.Status, "text"))
	case t.kind == history.TableOutbox && newSide != "":
		head = append(head, "NULL", statusExpr(newSide))
	case t.kind == history.TableJobs:
		head = append(head, castCol(old, m.Jobs.Status, "text"), castCol(newSide, m.Jobs.Status, "text"))
	default:
		head = append(head, "NULL", "NULL")
	}
	if t.kind == history.TableOutbox {
		head = append(head, castCol(cur, o.Attempts, "bigint"), timeCol(t, cur, o.AvailableAt), castCol(cur, o.LockedBy, "text"),
			castCol(cur, o.LockToken, "text"), timeCol(t, cur, o.LockedUntil), castCol(cur, o.LastError, "text"),
			castCol(old, o.LockToken, "text"), castCol(old, o.LastError, "text"))
	} else {
		head = append(head, "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL")
	}
	return strings.Join(append(head, writerExpr, imageExpr(newSide, t.columns), imageExpr(old, t.columns)), ", ")
}

// imageExpr is the row on side as a jsonb object of column to value, or
// NULL without a side. to_jsonb writes bytea as "\\x..." and times in ISO
// form; those columns are overwritten as MySQL's images have them: bytea
// in lower-case hex, times as "2006-01-02 15:04:05.000000" in UTC.
func imageExpr(side string, cols []column) string {
	if side == "" {
		return "NULL"
	}
	var parts []string
	for _, c := range cols {
		v := col(side, c.name)
		switch c.typ {
		case "bytea":
			v = "encode(" + v + ", 'hex')"
		case timestampType, timestamptzType:
			v = utcText(v, c.typ == timestamptzType)
		default:
			continue
		}
		parts = append(parts, literal(c.name), v)
	}
	image := "to_jsonb(" + side + ")"
	if len(parts) > 0 {
		image += " || jsonb_build_object(" + strings.Join(parts, ", ") + ")"
	}
	return image
}

// function is the CREATE FUNCTION statement of t's trigger function: one
// INSERT into oc_history per event, chosen by TG_OP.
func function(m schema.Mapping, t modelTable, statusExpr func(side string) string) (string, error) {
	insert := func(event string) string {
		return "INSERT INTO " + historyRef + " (" + historyColumns + ") VALUES (" + recordRow(m, t, event, statusExpr) + ")"
	}
	body := fmt.Sprintf("\nBEGIN\n  IF TG_OP = 'INSERT' THEN\n    %s;\n  ELSIF TG_OP = 'UPDATE' THEN\n    %s;\n"+
		"  ELSE\n    %s;\n  END IF;\n  RETURN NULL;\nEND\n", insert("INSERT"), insert("UPDATE"), insert("DELETE"))
	if strings.Contains(body, bodyTag) {
		return "", fmt.Errorf("table %s: a predicate holds %s, which the trigger's body cannot: write it otherwise", t.name, bodyTag)
	}
	return fmt.Sprintf("CREATE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %s, pg_temp AS %s%s%s",
		functionRef(t.kind), ident(t.schema), bodyTag, body, bodyTag), nil
}

// trigger is the CREATE TRIGGER statement of t.
func trigger(t modelTable) string {
	return fmt.Sprintf("CREATE TRIGGER %s AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION %s()",
		ident(functionName(t.kind)), t.ref(), functionRef(t.kind))
}

// dropFunctions drops every kind's trigger function, and with it
// (CASCADE) its trigger, wherever it is.
func dropFunctions() []string {
	var out []string
	for _, k := range kinds {
		out = append(out, "DROP FUNCTION IF EXISTS "+functionRef(k)+"() CASCADE")
	}
	return out
}

// InstallTriggers creates the schema outboxchaos with oc_history (if
// missing) and a trigger on every table of m's model (tablesOf), replacing
// those of an earlier install, in one transaction: either all of them are
// in place or none is changed. It checks the mapped columns and that the
// state predicates run first, so a bad mapping is a setup error naming what
// to fix, never a failed dispatcher write. Install before the dispatcher
// starts: creating a trigger waits for the transactions open on its table.
func InstallTriggers(ctx context.Context, db *sql.DB, m schema.Mapping) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("install triggers: %w", err)
	}
	stmts, err := installStatements(ctx, db, m)
	if err != nil {
		return fmt.Errorf("install triggers: %w", err)
	}
	if err := inTx(ctx, db, stmts); err != nil {
		return fmt.Errorf("install triggers: %w", err)
	}
	return nil
}

// installStatements reads the model's tables, checks the mapping against
// them and returns the statements that install the history.
func installStatements(ctx context.Context, db *sql.DB, m schema.Mapping) ([]string, error) {
	tables, err := modelTables(ctx, db, m)
	if err != nil {
		return nil, err
	}
	st := model.Store{Dialect: model.Postgres, Columns: names(tables[0].columns)}
	if err := checkPredicates(ctx, db, m, st, tables[0]); err != nil {
		return nil, err
	}
	statusExpr := func(side string) string {
		e, _ := st.StatusExpr(m, func(c string) string { return col(side, c) })
		return e
	}
	stmts := append(append([]string{}, historyDDL...), dropFunctions()...)
	for _, t := range tables {
		f, err := function(m, t, statusExpr)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, f, trigger(t))
	}
	return stmts, nil
}

// checkPredicates runs each state predicate over the outbox's rows as the
// trigger sees them (the row's columns alone), then the status expression
// and the open-rows condition, so that a predicate PostgreSQL cannot run
// is reported with the key that holds it.
func checkPredicates(ctx context.Context, db *sql.DB, m schema.Mapping, st model.Store, outbox modelTable) error {
	row := func(c string) string { return "oc_row." + ident(c) }
	for _, p := range []struct{ key, pred string }{
		{"states.published", m.States.Published}, {"states.failed", m.States.Failed}, {"states.claimed", m.States.Claimed},
	} {
		if p.pred == "" {
			continue
		}
		r, err := model.Rewrite(p.pred, st.Columns, st.Dialect, row)
		if err != nil {
			return fmt.Errorf("%s: %w", p.key, err)
		}
		q := fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM %s) AS oc_row WHERE (%s)", outbox.ref(), r)
		if err := count(ctx, db, q); err != nil {
			return fmt.Errorf("%s: the predicate %q does not run on PostgreSQL over table %s: %w: write it in PostgreSQL's "+
				"SQL over the row's own columns (now(), clock_timestamp(), interval '5 seconds')", p.key, p.pred, m.Outbox.Table, err)
		}
	}
	expr, err := st.StatusExpr(m, row)
	if err != nil {
		return err
	}
	q := fmt.Sprintf("SELECT count(%s) FROM (SELECT * FROM %s) AS oc_row", expr, outbox.ref())
	if err := count(ctx, db, q); err != nil {
		return fmt.Errorf("the status of the schema mapping does not run on table %s (%s): %w: fix the mapping", m.Outbox.Table, q, err)
	}
	where, args, err := st.OpenWhere(m, 1)
	if err != nil {
		return err
	}
	q = fmt.Sprintf("SELECT count(*) FROM %s WHERE %s", ident(m.Outbox.Table), where)
	if err := count(ctx, db, q, args...); err != nil {
		return fmt.Errorf("the open rows of the schema mapping cannot be found on table %s (%s): %w: fix the mapping", m.Outbox.Table, q, err)
	}
	return nil
}

func count(ctx context.Context, db *sql.DB, q string, args ...any) error {
	var n int64
	return db.QueryRowContext(ctx, q, args...).Scan(&n)
}

// inTx runs stmts in one transaction.
func inTx(ctx context.Context, db *sql.DB, stmts []string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w%s", firstLine(s), err, privilegeHint(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// firstLine is a statement's head, for an error.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "(\n"); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// privilegeHint says what a permission error needs.
func privilegeHint(err error) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42501" {
		return ""
	}
	return " (the installing role must be allowed to create a schema in the database and hold the TRIGGER privilege " +
		"on the tables: use the database's owner)"
}

// DropTriggers removes the history's triggers and their functions, those
// of any earlier install too, so it needs nothing of m (taken to match
// observe.DropTriggers). oc_history and its rows stay, so the history can
// still be read.
func DropTriggers(ctx context.Context, db *sql.DB, m schema.Mapping) error {
	if err := inTx(ctx, db, dropFunctions()); err != nil {
		return fmt.Errorf("drop triggers: %w", err)
	}
	return nil
}
