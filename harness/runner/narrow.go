package runner

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/store"
)

// narrowLastError narrows the outbox's last_error column to
// VARCHAR(Scenario.LastErrorWidth) before the triggers are installed and
// any row exists. A mapping without a last_error column has nothing to
// narrow: the run then records no narrowing, and a landing that needs one
// is not met.
func (r *session) narrowLastError(ctx context.Context, storeName string, m schema.Mapping) error {
	w := r.o.Scenario.LastErrorWidth
	if w == 0 || m.Outbox.LastError == "" {
		return nil
	}
	stmt, err := narrowStatement(storeName, m.Outbox.Table, m.Outbox.LastError, w)
	if err != nil {
		return err
	}
	if _, err := r.db.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("narrow %s.%s to VARCHAR(%d) for scenario %s: %w", m.Outbox.Table, m.Outbox.LastError, w, r.o.Scenario.Name, err)
	}
	r.narrowed, r.schemaChangedAt = stmt, time.Now().UTC()
	r.log("setup: %s", stmt)
	return nil
}

// narrowStatement is the ALTER that narrows column of table to
// VARCHAR(width), in the store's dialect; the column stays nullable.
func narrowStatement(storeName, table, column string, width int) (string, error) {
	switch storeName {
	case store.NameMySQL:
		return fmt.Sprintf("ALTER TABLE %s MODIFY %s VARCHAR(%d) NULL", quoteName(table, "`"), quoteName(column, "`"), width), nil
	case store.NamePostgres:
		return fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s TYPE VARCHAR(%d)", quoteName(table, `"`), quoteName(column, `"`), width), nil
	}
	return "", fmt.Errorf("store %s: the runner cannot narrow a column on it", storeName)
}

// quoteName quotes each dotted part of a table or column name.
func quoteName(name, q string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = q + strings.ReplaceAll(p, q, q+q) + q
	}
	return strings.Join(parts, ".")
}

// recordSchemaChanges records the narrowing and the coarsening as faults that
// held for the whole run: what the failure-write and whole-seconds
// landings rest on.
func (r *session) recordSchemaChanges() {
	m := r.o.Adapter.Schema()
	if r.narrowed != "" {
		id := r.rec.StartFault(history.Fault{Kind: history.FaultNarrowColumn, Target: "schema", Start: r.schemaChangedAt, Params: map[string]string{
			"table": m.Outbox.Table, "column": m.Outbox.LastError, "width": strconv.Itoa(r.o.Scenario.LastErrorWidth), "statement": r.narrowed,
		}})
		r.rec.EndFault(id, r.schemaChangedAt)
	}
	if len(r.coarsened) > 0 {
		var cols []string
		for _, c := range timeColumns(m) {
			cols = append(cols, c.name)
		}
		id := r.rec.StartFault(history.Fault{Kind: history.FaultCoarsenColumns, Target: "schema", Start: r.schemaChangedAt, Params: map[string]string{
			"table": m.Outbox.Table, "columns": strings.Join(cols, ","), "statements": strings.Join(r.coarsened, "; "),
		}})
		r.rec.EndFault(id, r.schemaChangedAt)
	}
}

// timeColumn is one of the outbox's lease and backoff columns: its
// canonical name (history.ColumnLockedUntil, ColumnAvailableAt) and the
// dispatcher's.
type timeColumn struct{ canonical, name string }

// timeColumns are the lease and backoff columns the mapping has.
func timeColumns(m schema.Mapping) []timeColumn {
	var out []timeColumn
	if m.Outbox.LockedUntil != "" {
		out = append(out, timeColumn{history.ColumnLockedUntil, m.Outbox.LockedUntil})
	}
	if m.Outbox.AvailableAt != "" {
		out = append(out, timeColumn{history.ColumnAvailableAt, m.Outbox.AvailableAt})
	}
	return out
}

// wholeSeconds alters the outbox's lease and backoff columns to whole
// seconds (Scenario.WholeSeconds), keeping their type, nullability and
// default, before the triggers are installed and any row exists.
func (r *session) wholeSeconds(ctx context.Context, st store.Store, m schema.Mapping) error {
	if !r.o.Scenario.WholeSeconds {
		return nil
	}
	for _, c := range timeColumns(m) {
		stmt, err := st.WholeSeconds(ctx, r.db, m.Outbox.Table, c.name)
		if err != nil {
			return fmt.Errorf("whole seconds for scenario %s: %w", r.o.Scenario.Name, err)
		}
		if _, err := r.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("whole seconds for scenario %s: %s: %w", r.o.Scenario.Name, stmt, err)
		}
		r.coarsened = append(r.coarsened, stmt)
		r.log("setup: %s", stmt)
	}
	r.schemaChangedAt = time.Now().UTC()
	return nil
}

// readPrecision reads how many fractional digits the server keeps in the
// outbox's lease and backoff columns, and keeps those with fewer than six
// for the history (history.Model.Precision): the checkers allow a step of
// the column wherever they compare a time read back from it.
func (r *session) readPrecision(ctx context.Context, st store.Store, m schema.Mapping) error {
	for _, c := range timeColumns(m) {
		p, err := st.TimePrecision(ctx, r.db, m.Outbox.Table, c.name)
		if err != nil {
			return fmt.Errorf("precision of the outbox's %s: %w", c.canonical, err)
		}
		if p < 6 {
			if r.precision == nil {
				r.precision = map[string]int{}
			}
			r.precision[c.canonical] = p
		}
	}
	return nil
}
