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
	r.narrowed, r.narrowedAt = stmt, time.Now().UTC()
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

// recordNarrowed records the narrowing as a fault that held for the whole
// run: what the failure-write landing rests on.
func (r *session) recordNarrowed() {
	if r.narrowed == "" {
		return
	}
	m := r.o.Adapter.Schema()
	id := r.rec.StartFault(history.Fault{Kind: history.FaultNarrowColumn, Target: "schema", Start: r.narrowedAt, Params: map[string]string{
		"table": m.Outbox.Table, "column": m.Outbox.LastError, "width": strconv.Itoa(r.o.Scenario.LastErrorWidth), "statement": r.narrowed,
	}})
	r.rec.EndFault(id, r.narrowedAt)
}
