package postgres

import (
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// HistorySchema is the harness's own schema, holding oc_history and the
// trigger functions; the dispatcher's roles have no privilege on it.
const HistorySchema = "outboxchaos"

// HistoryTable is the harness-owned table the triggers append to.
const HistoryTable = "oc_history"

// historyRef is oc_history's qualified name.
var historyRef = ident(HistorySchema) + "." + ident(HistoryTable)

// historyDDL creates the schema and oc_history. seq is a sequence's
// nextval, taken by the trigger: allocated at the write, not at commit.
var historyDDL = []string{
	"CREATE SCHEMA IF NOT EXISTS " + ident(HistorySchema),
	"REVOKE ALL ON SCHEMA " + ident(HistorySchema) + " FROM PUBLIC",
	"CREATE TABLE IF NOT EXISTS " + historyRef + " (" +
		"seq BIGSERIAL PRIMARY KEY, tbl text NOT NULL, row_id text NOT NULL, op text NOT NULL, at timestamptz NOT NULL, " +
		"old_status text, new_status text, attempts bigint, available_at timestamptz, " +
		"locked_by text, lock_token text, locked_until timestamptz, " +
		"last_error text, old_lock_token text, old_last_error text, writer text, image jsonb, old_image jsonb)",
	"REVOKE ALL ON " + historyRef + " FROM PUBLIC",
}

const historyColumns = "tbl, row_id, op, at, old_status, new_status, attempts, available_at, " +
	"locked_by, lock_token, locked_until, last_error, old_lock_token, old_last_error, writer, image, old_image"

// kinds are the model tables' kinds, one trigger function each.
var kinds = []string{history.TableOutbox, history.TableJobs, history.TableDeadLetter, history.TableCursor}

// functionName is the trigger function (and the trigger) of a table kind.
func functionName(kind string) string { return "oc_record_" + kind }

// functionRef is its qualified name.
func functionRef(kind string) string { return ident(HistorySchema) + "." + ident(functionName(kind)) }
