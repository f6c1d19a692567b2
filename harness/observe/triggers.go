package observe

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/history"
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
	"`writer` VARCHAR(255) NULL" +
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"

const historyColumns = "`tbl`, `row_id`, `op`, `at`, `old_status`, `new_status`, `attempts`, `available_at`, " +
	"`locked_by`, `lock_token`, `locked_until`, `last_error`, `old_lock_token`, `old_last_error`, `writer`"

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

// triggers lists the six triggers for m.
func triggers(m schema.Mapping) []trigger {
	var out []trigger
	for _, ev := range []string{"INSERT", "UPDATE", "DELETE"} {
		out = append(out,
			trigger{name: "oc_outbox_" + strings.ToLower(ev), table: m.Outbox.Table, event: ev, body: outboxRow(m.Outbox, ev)},
			trigger{name: "oc_jobs_" + strings.ToLower(ev), table: m.Jobs.Table, event: ev, body: jobsRow(m.Jobs, ev)})
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

func outboxRow(o schema.Outbox, event string) string {
	cur, old := sides(event)
	return strings.Join(append(rowHead(history.TableOutbox, o.ID, o.Status, event),
		col(cur, o.Attempts), col(cur, o.AvailableAt), col(cur, o.LockedBy), col(cur, o.LockToken),
		col(cur, o.LockedUntil), col(cur, o.LastError), col(old, o.LockToken), col(old, o.LastError), writerExpr,
	), ", ")
}

func jobsRow(j schema.Jobs, event string) string {
	return strings.Join(append(rowHead(history.TableJobs, j.ID, j.Status, event),
		"NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", writerExpr,
	), ", ")
}

// rowHead is what every oc_history row starts with: the table, the row's
// id, the event, the time, and the status before and after it (no status
// after a DELETE).
func rowHead(table, id, status, event string) []string {
	cur, old := sides(event)
	newStatus := col(cur, status)
	if event == "DELETE" {
		newStatus = "NULL"
	}
	return []string{quoteString(table), "CAST(" + col(cur, id) + " AS CHAR)", quoteString(strings.ToLower(event)),
		"NOW(6)", col(old, status), newStatus}
}

// InstallTriggers creates oc_history (if missing) and the six triggers on the
// outbox and jobs tables m names, replacing earlier ones of the same names.
// Install before the dispatcher starts: a change made while a trigger is being
// replaced is not recorded.
func InstallTriggers(ctx context.Context, db *sql.DB, m schema.Mapping) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("install triggers: %w", err)
	}
	if strings.EqualFold(m.Outbox.Table, m.Jobs.Table) {
		return fmt.Errorf("install triggers: outbox and jobs are both table %s; they must be two tables", m.Jobs.Table)
	}
	if err := checkColumns(ctx, db, m); err != nil {
		return fmt.Errorf("install triggers: %w", err)
	}
	if _, err := db.ExecContext(ctx, historyDDL); err != nil {
		return fmt.Errorf("install triggers: create %s: %w", HistoryTable, err)
	}
	for _, t := range triggers(m) {
		if _, err := db.ExecContext(ctx, "DROP TRIGGER IF EXISTS "+ident(t.name)); err != nil {
			return fmt.Errorf("install triggers: drop old %s: %w", t.name, err)
		}
		if _, err := db.ExecContext(ctx, t.create()); err != nil {
			return fmt.Errorf("install triggers: create %s on %s (needs the TRIGGER privilege): %w", t.name, t.table, err)
		}
	}
	return nil
}

// DropTriggers removes the six triggers. oc_history and its rows stay, so the
// history can still be read.
func DropTriggers(ctx context.Context, db *sql.DB, m schema.Mapping) error {
	for _, t := range triggers(m) {
		if _, err := db.ExecContext(ctx, "DROP TRIGGER IF EXISTS "+ident(t.name)); err != nil {
			return fmt.Errorf("drop trigger %s: %w", t.name, err)
		}
	}
	return nil
}
