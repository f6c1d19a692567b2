package draft

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// pgDatabase is a private PostgreSQL database holding the statements of
// ddl (a testdata file) and then rows.
func pgDatabase(t *testing.T, ddl string, rows ...string) (*sql.DB, string) {
	t.Helper()
	db, dsn := localtest.Postgres(t)
	stmts, err := schemaddl.SplitStatements(string(mustRead(t, ddl)))
	require.NoError(t, err)
	for _, s := range append(stmts, rows...) {
		_, err := db.Exec(s)
		require.NoError(t, err, s)
	}
	return db, dsn
}

// catalogRows are rows in every status, with last_error texts of
// retries, releases and recoveries on pending rows that were tried.
var catalogRows = []string{
	`INSERT INTO jobs (id, queue, state) VALUES ('j1','ai-default','new'), ('j2','ai-default','dispatched'), ('j3','ai-bulk','running'), ('j4','ai-bulk','done')`,
	`INSERT INTO outbox (event_type, job_id, payload, status, attempts, last_error) VALUES
	   ('ai.job.enqueue','j1','{"jobId":"j1"}','pending',2,'attempt 2 of 8: connect ECONNREFUSED'),
	   ('ai.job.enqueue','j1','{"jobId":"j1"}','pending',1,'released: lease nearly over'),
	   ('ai.job.enqueue','j1','{"jobId":"j1"}','pending',1,'lease expired, owner w-2'),
	   ('ai.job.enqueue','j2','{"jobId":"j2"}','sending',1,NULL),
	   ('ai.job.enqueue','j3','{"jobId":"j3"}','sent',1,NULL),
	   ('bogus','j4','{"jobId":"j4"}','dead',1,'unknown_event_type: bogus')`,
}

// selectOnlyRole creates a login role that may only SELECT in the test's
// database and returns its URL; it is dropped when the test ends.
func selectOnlyRole(t *testing.T, db *sql.DB, dsn string) string {
	t.Helper()
	role := fmt.Sprintf("ro_%d", os.Getpid())
	for _, s := range []string{
		fmt.Sprintf(`CREATE ROLE %s LOGIN PASSWORD 'ro-pass'`, role),
		fmt.Sprintf(`GRANT USAGE ON SCHEMA public TO %s`, role),
		fmt.Sprintf(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO %s`, role),
	} {
		_, err := db.Exec(s)
		require.NoError(t, err, s)
	}
	t.Cleanup(func() {
		_, _ = db.Exec(`DROP OWNED BY ` + role)
		_, _ = db.Exec(`DROP ROLE IF EXISTS ` + role)
	})
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	u.User = url.UserPassword(role, "ro-pass")
	return u.String()
}

// pgFingerprint is every row of the tables, hashed, and the identity's
// next value.
func pgFingerprint(t *testing.T, db *sql.DB, tables ...string) string {
	t.Helper()
	var out string
	for _, table := range tables {
		var n int
		var sum sql.NullString
		require.NoError(t, db.QueryRow(`SELECT COUNT(*), md5(string_agg(t::text, ',' ORDER BY t::text)) FROM `+table+` t`).Scan(&n, &sum))
		out += fmt.Sprintf("%s %d rows %s; ", table, n, sum.String)
	}
	var last sql.NullInt64
	require.NoError(t, db.QueryRow(`SELECT last_value FROM outbox_id_seq`).Scan(&last))
	return out + fmt.Sprintf("sequence %d", last.Int64)
}

// From a PostgreSQL dev database, read as a role that may only SELECT,
// init drafts store: postgres with the mapping, the status words of the
// CHECK and of the ENUM type, and the conventions the data shows; the
// schema file it reconstructs applies to a fresh database and reads back
// as the same tables; and the database is as it was.
func TestDraftsFromAPostgreSQLCatalogAndNeverWrites(t *testing.T) {
	db, dsn := pgDatabase(t, "testdata/shapes/postgres-catalog.sql", catalogRows...)
	roDSN := selectOnlyRole(t, db, dsn)
	before := pgFingerprint(t, db, "outbox", "jobs")

	out, res, err := write(t, t.TempDir(), Options{DSN: roDSN, Start: "node main.js"})
	require.NoError(t, err)
	require.Equal(t, "outbox", res.Outbox)
	require.Equal(t, "jobs", res.Jobs)
	require.NotContains(t, fmt.Sprint(res), "ro-pass")
	a := loadAdapter(t, out)
	require.Equal(t, "postgres", a.StoreName())
	m := a.Schema()
	require.Equal(t, schema.Outbox{Table: "outbox", ID: "id", EventType: "event_type", AggregateID: "job_id", Payload: "payload", Status: "status",
		Attempts: "attempts", AvailableAt: "available_at", LockedBy: "locked_by", LockedUntil: "locked_until", LastError: "last_error",
		PublishedAt: "published_at", CreatedAt: "created_at"}, m.Outbox)
	require.Equal(t, schema.Jobs{Table: "jobs", ID: "id", Queue: "queue", Status: "state"}, m.Jobs)
	require.Equal(t, map[string]string{"pending": "pending", "sending": "processing", "sent": "published", "dead": "failed"}, m.OutboxStatus)
	require.Equal(t, map[string]string{"new": "created", "dispatched": "queued", "running": "running", "done": "succeeded"}, m.JobStatus)
	require.Equal(t, history.Conventions{ReleaseErrors: []string{"released: "}, RecoveryErrors: []string{"lease expired, owner "}}, a.Conventions())
	draft := string(mustRead(t, out))
	require.NotContains(t, draft, "ro-pass", "no password in the draft")
	require.Contains(t, draft, `store: "postgres"  # the database --dsn names is PostgreSQL`)
	require.Contains(t, draft, `"${OUTBOX_POSTGRES_URL}"`)

	schemaSQL := string(mustRead(t, SchemaPath(out)))
	require.Contains(t, schemaSQL, "reconstructed from its catalog (information_schema, pg_catalog)")
	require.Less(t, strings.Index(schemaSQL, "CREATE TYPE job_state AS ENUM ('new', 'dispatched', 'running', 'done')"), strings.Index(schemaSQL, "CREATE TABLE jobs"))
	require.Less(t, strings.Index(schemaSQL, "CREATE TABLE jobs"), strings.Index(schemaSQL, "CREATE TABLE outbox"), "the jobs table first: the outbox references it")
	require.Contains(t, schemaSQL, "id bigint GENERATED ALWAYS AS IDENTITY NOT NULL")
	require.NotContains(t, schemaSQL, "audit", "only the tables the draft names")
	fresh, _ := localtest.Postgres(t)
	for _, s := range m.DDL {
		_, err := fresh.Exec(s)
		require.NoError(t, err, "the reconstructed DDL applies to a fresh database: %s", s)
	}
	_, err = fresh.Exec(`INSERT INTO jobs (id, queue) VALUES ('x', 'q')`)
	require.NoError(t, err)
	_, err = fresh.Exec(`INSERT INTO outbox (event_type, job_id, payload, status) VALUES ('e', 'x', '{}', 'bogus')`)
	require.Error(t, err, "the CHECK came along")

	again, _, err := write(t, t.TempDir(), Options{DDL: SchemaPath(out)})
	require.NoError(t, err)
	back := loadSchema(t, again)
	require.Equal(t, m.Outbox, back.Outbox, "the schema file reads back as the same tables")
	require.Equal(t, m.OutboxStatus, back.OutboxStatus)
	require.Equal(t, "postgres", loadAdapter(t, again).StoreName())

	require.Equal(t, before, pgFingerprint(t, db, "outbox", "jobs"), "init changed the database it read")
}

// A PostgreSQL outbox without a status column: its states' predicates use
// the statement's clock, and the pending rows they leave show a release.
func TestDraftsStatesFromAPostgreSQLCatalog(t *testing.T) {
	_, dsn := pgDatabase(t, "testdata/shapes/postgres.sql",
		`INSERT INTO outbox (event_type, payload, attempts, last_error, published_at, failed_at) VALUES
		   ('e', '{}', 1, 'shutting down: given back', NULL, NULL),
		   ('e', '{}', 2, 'released: shutting down', now(), NULL),
		   ('e', '{}', 3, 'lease expired, owner w-1', NULL, now())`)
	out, _, err := write(t, t.TempDir(), Options{DSN: dsn})
	require.NoError(t, err)
	a := loadAdapter(t, out)
	require.Equal(t, schema.States{Published: "published_at IS NOT NULL", Failed: "failed_at IS NOT NULL", Claimed: "locked_until > clock_timestamp()"}, a.Schema().States)
	require.Equal(t, history.Conventions{ReleaseErrors: []string{"shutting down: "}}, a.Conventions(),
		"only the pending row's text: the published and the failed rows are no returns to pending")
	schemaSQL := string(mustRead(t, SchemaPath(out)))
	require.Contains(t, schemaSQL, "id bigserial NOT NULL", "a nextval default is a serial column")
}

// The connection init reads PostgreSQL through cannot write, even as the
// superuser: the server refuses a write in the READ ONLY transaction,
// query refuses to send one at all, and a second statement never rides
// along, whatever query mode the DSN asks for.
func TestPostgresReadOnlyConnectionRefusesWrites(t *testing.T) {
	db, dsn := pgDatabase(t, "testdata/shapes/postgres-catalog.sql", catalogRows...)
	before := pgFingerprint(t, db, "outbox", "jobs")
	ctx := context.Background()
	r, err := openReadOnly(ctx, dsn)
	require.NoError(t, err)
	defer r.close()
	words, err := r.distinct(ctx, "outbox", "status")
	require.NoError(t, err)
	require.Equal(t, []string{"dead", "pending", "sending", "sent"}, words)
	_, err = r.tx.ExecContext(ctx, "UPDATE outbox SET status = 'dead'")
	var pe *pgconn.PgError
	require.True(t, errors.As(err, &pe), "the server must refuse the write: %v", err)
	require.Equal(t, "25006", pe.Code, "read_only_sql_transaction")

	for _, q := range []string{"DELETE FROM jobs", "SHOW search_path", "WITH x AS (DELETE FROM jobs RETURNING 1) SELECT 1"} {
		_, err = r.query(ctx, q)
		require.ErrorContains(t, err, "init only reads", q)
	}
	simple, err := openReadOnly(ctx, dsn+"&default_query_exec_mode=simple_protocol")
	require.NoError(t, err)
	defer simple.close()
	_, err = simple.query(ctx, "SELECT 1; DROP TABLE jobs")
	require.Error(t, err, "one statement per query")
	require.Equal(t, before, pgFingerprint(t, db, "outbox", "jobs"))
}

// Bad PostgreSQL DSNs get an error that says what to fix, without the
// password.
func TestRefusesABadPostgresDSN(t *testing.T) {
	dir := t.TempDir()
	for dsn, want := range map[string][]string{
		"postgres://u:secret@127.0.0.1:1/":                     {"names no database", "fix: end it with /DATABASE"},
		"postgres://u:secret@127.0.0.1:1/db?connect_timeout=2": {"database db on 127.0.0.1:1", "fix: check the host, port"},
		"postgres://u:secret@127.0.0.1:99999/db":               {"--dsn", "fix: write it as a PostgreSQL URL"},
	} {
		_, err := Write(context.Background(), Options{DSN: dsn, Out: filepath.Join(dir, "d.yaml")})
		require.Error(t, err, dsn)
		for _, w := range want {
			require.Contains(t, err.Error(), w, dsn)
		}
		require.NotContains(t, err.Error(), "secret", "%s: no password in an error", dsn)
	}
}
