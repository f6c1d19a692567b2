// Package postgres records the history of a run on a PostgreSQL outbox:
// PL/pgSQL triggers on every table the outbox's model names, a
// harness-owned table they append to, and the final scan of the outbox and
// jobs rows. It is the PostgreSQL half of what harness/observe does on
// MySQL, with the same functions, the same semantics and the same history
// format (history.Transition, history.OutboxRow, history.JobRow), so that
// harness/model's Derive and DeriveFinal and every checker run unchanged.
//
// # Triggers
//
// InstallTriggers creates the schema outboxchaos, the table
// outboxchaos.oc_history, and for each table of the model (the outbox, and
// where the model has them the jobs table, the dead-letter table and the
// offsets table) one trigger function outboxchaos.oc_record_<kind> and one
// trigger of that name, AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW.
// Each record holds: the table's kind, the row's key as text (a bytea key
// in lower-case hex, a uuid as its text), the operation, the time (below),
// the old and new status, and for the outbox the attempts, available_at,
// locked_by, lock_token, locked_until and last_error the row has after the
// change (before it, for a delete) with the old lock_token and last_error,
// the writer (below), and the whole row after and before the change.
//
// Statuses: for the status-word form, the status column's text (an enum's
// label, an integer's digits), mapped through the mapping when read; for
// the states form, the new status is the model's StatusExpr over NEW
// (model.Postgres), computed by the trigger on the row as written, and the
// old status is left NULL for Derive to chain. The jobs table records its
// status words.
//
// Images are to_jsonb(NEW) and to_jsonb(OLD), made to read as MySQL's
// JSON_OBJECT images do: bytea values in lower-case hex (to_jsonb writes
// "\\x..."), timestamp and timestamptz values as "2006-01-02
// 15:04:05.000000" in UTC (to_jsonb writes ISO 8601 with the session's
// offset). Every other value is as to_jsonb writes it: numbers, text, json
// and jsonb nested, uuids as text, booleans as true and false.
//
// The trigger runs inside the writer's transaction: a rolled-back change
// leaves no record and a committed one always does. The install is one
// transaction (PostgreSQL's DDL is transactional): either every trigger is
// in place or nothing changed, and no write is missed while a trigger is
// replaced. It drops the functions of an earlier install first, CASCADE
// taking their triggers along, wherever they were. Install before the
// dispatcher starts: creating a trigger waits for the transactions open on
// its table. DropTriggers drops them the same way; oc_history stays
// readable.
//
// Not recorded, as on MySQL: TRUNCATE (it fires no row trigger), and writes
// made with triggers disabled (ALTER TABLE ... DISABLE TRIGGER, or
// session_replication_role = replica; both need the table's owner or a
// superuser).
//
// # seq
//
// seq is a BIGSERIAL: the trigger takes nextval when it runs, at the write,
// not at commit, as MySQL's AUTO_INCREMENT does. Sequences are not
// transactional: a rolled-back write leaves a hole, and a transaction that
// commits later may hold a lower seq than one already visible.
// ReadTransitions(afterSeq) is exact once writers are quiet (the harness
// reads after drain); an incremental reader must re-read from an older seq
// and drop what it has seen. This is the commit-order gap of every relay
// that reads an outbox by a BIGSERIAL cursor.
//
// # Clocks
//
// PostgreSQL has three clocks a statement can read. now() (and
// CURRENT_TIMESTAMP, transaction_timestamp()) is the start of the
// transaction; statement_timestamp() is the start of the statement;
// clock_timestamp() is the time it is read. A record's time is
// clock_timestamp() in the trigger: the moment the row was written, after
// the statement had taken the row's lock. now() would stamp every record of
// a long transaction with its start, and both now() and
// statement_timestamp() may stamp a write that waited on a row lock before
// the write it waited for, so a claim taken over after a release would
// read as taken while the releaser still held it. The checkers
// (harness/check) read this clock, the statement's own, for every time
// they compare with a lease. A lease the statement computes itself reads a
// little shorter than it is: the trigger's clock runs after the statement's
// own, by the time the statement took to reach the row.
//
// A dispatcher that computes a lease with now() inside a long transaction
// (a claim after other work, a batch claimed by a transaction that runs
// for seconds) writes a lease that began when the transaction did: at the
// write it has less time left than it says, and another instance may take
// the row over sooner than its owner expects. This bug class, "lease
// computed at transaction start", shows in the history as locked_until
// minus the record's time falling short of the lease; MySQL's NOW(6) is
// the statement's start and has no such class.
//
// State predicates run in the trigger as written: now() in a predicate is
// the writing transaction's start, clock_timestamp() the write's own time.
//
// # Time zones
//
// oc_history's times are timestamptz, read back in UTC to the microsecond,
// independent of any session's TimeZone. A mapped column of type timestamp
// without time zone is read as UTC: the value as written, never shifted by
// the writer's or the reader's TimeZone. A dispatcher that writes local
// times into such a column must run with TimeZone UTC (the private servers
// the harness starts do). Time columns must be timestamp or timestamptz;
// attempts and cursor offsets smallint, integer or bigint (domains over
// them too); InstallTriggers refuses other types rather than install a
// trigger that could fail the dispatcher's writes. 'infinity' and
// '-infinity' read as 9999-12-31 23:59:59.999999 and 0001-01-01 UTC, the
// ends of MySQL's DATETIME, so an infinite lease is in the future and a
// '-infinity' one in the past.
//
// # Writers and privileges
//
// The trigger functions are SECURITY DEFINER, owned by the role that
// installs them (the harness's admin, which owns the database), with their
// search_path pinned to pg_catalog, the table's schema and pg_temp. The
// dispatchers' roles need no privilege on oc_history and have none: schema
// outboxchaos grants nothing to anyone, so they can neither read, write,
// nor forge the history, and the grants a dispatcher's role has on every
// table of schema public (env's CreateRole, default privileges included)
// never reach it. A trigger fires whatever the writer's privileges on its
// function's schema. Inside a SECURITY DEFINER function current_user is
// its owner, so the writer is session_user: the role the writing session
// logged in as, one per instance slot, as MySQL's USER() is. A session
// that SET ROLEs is still recorded as its login role.
//
// # Names
//
// Table and column names are quoted exactly as the mapping writes them
// (model.Postgres.Quote), so they are case-sensitive: a table created
// unquoted is lower-case and must be named so. A name that differs from
// the database's in case only is refused with the name the database has.
// Tables are found through the search_path (to_regclass), as the
// dispatcher's unqualified statements find them; the admin and the
// dispatchers must share it (the default, "$user", public, does: a slot's
// role has no schema of its own). A schema-qualified name ("app.outbox")
// is refused: put the schema in the search_path instead.
//
// Before creating anything, InstallTriggers checks that every mapped
// column exists under its exact name with a usable type, that each state
// predicate runs over the outbox's rows with only the row's columns in
// scope (as in the trigger), reporting a bad one by its key
// (states.claimed, ...), and that the status expression and OpenWhere run.
//
// # Final scan
//
// ScanOutboxRows reads every outbox row (its key as text, ID when it is an
// integer, its status as the model computes it now or its mapped status
// word, the mapped type, job, attempts, last error and times in UTC);
// ScanJobs reads every jobs row with its canonical status.
package postgres
