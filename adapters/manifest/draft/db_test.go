package draft

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/schemaddl"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// roomServiceDatabase is a private database holding room-service's tables
// with rows in every status its dispatcher and workers write, as a team's
// dev database would.
func roomServiceDatabase(t *testing.T) (*sql.DB, string) {
	t.Helper()
	db, dsn := localtest.MySQL(t)
	ddl, err := os.ReadFile(filepath.Join(roomServiceDir, "schema.sql"))
	require.NoError(t, err)
	stmts, err := schemaddl.SplitStatements(string(ddl))
	require.NoError(t, err)
	stmts = append(stmts,
		`INSERT INTO room_tasks (task_id, queue, state) VALUES ('t1','ai-default','new'), ('t2','ai-default','dispatched'), ('t3','ai-bulk','running'), ('t4','ai-bulk','done')`,
		`INSERT INTO room_outbox (event_type, task_id, envelope, status) VALUES
		   ('ai.job.enqueue','t1','{"jobId":"t1"}','pending'), ('ai.job.enqueue','t1','{"jobId":"t1"}','retryable'),
		   ('ai.job.enqueue','t2','{"jobId":"t2"}','delivering'), ('ai.job.enqueue','t3','{"jobId":"t3"}','delivered'),
		   ('bogus','t4','{"jobId":"t4"}','failed')`)
	for _, s := range stmts {
		_, err := db.Exec(s)
		require.NoError(t, err, s)
	}
	return db, dsn
}

// selectOnlyUser creates a user that may only SELECT on the test's
// database and returns its DSN.
func selectOnlyUser(t *testing.T, db *sql.DB, dsn string) string {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	require.NoError(t, err)
	user := fmt.Sprintf("ro_%d", os.Getpid())
	for _, s := range []string{
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY 'ro-pass'", user),
		fmt.Sprintf("GRANT SELECT ON `%s`.* TO '%s'@'%%'", cfg.DBName, user),
	} {
		_, err := db.Exec(s)
		require.NoError(t, err, s)
	}
	t.Cleanup(func() { _, _ = db.Exec(fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", user)) })
	cfg.User, cfg.Passwd = user, "ro-pass"
	return cfg.FormatDSN()
}

// fingerprint is every row of both tables, checksummed, and their counts.
func fingerprint(t *testing.T, db *sql.DB) string {
	t.Helper()
	var out string
	for _, table := range []string{"room_outbox", "room_tasks"} {
		var name string
		var sum, n int64
		require.NoError(t, db.QueryRow("CHECKSUM TABLE "+table+" EXTENDED").Scan(&name, &sum))
		require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM "+table).Scan(&n))
		out += fmt.Sprintf("%s %d rows checksum %d; ", table, n, sum)
	}
	var maxID int64
	require.NoError(t, db.QueryRow("SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'room_outbox'").Scan(&maxID))
	return out + fmt.Sprintf("next id %d", maxID)
}

// From room-service's dev database, read as a user that may only SELECT,
// init proposes exactly the hand-written manifest's mapping, status words
// included; the CREATE TABLE file it writes applies to a fresh database;
// and the database is as it was, row for row.
func TestDraftsRoomServiceFromItsDatabaseAndNeverWrites(t *testing.T) {
	db, dsn := roomServiceDatabase(t)
	roDSN := selectOnlyUser(t, db, dsn)
	before := fingerprint(t, db)

	out, res, err := write(t, t.TempDir(), Options{DSN: roDSN})
	require.NoError(t, err)
	require.Equal(t, []string{SchemaPath(out), out}, res.Wrote)
	require.NotContains(t, fmt.Sprint(res), "ro-pass")

	want := loadSchema(t, filepath.Join(roomServiceDir, "manifest.yaml"))
	got := loadSchema(t, out)
	require.Equal(t, want.Outbox, got.Outbox)
	require.Equal(t, want.Jobs, got.Jobs)
	require.Equal(t, want.OutboxStatus, got.OutboxStatus)
	require.Equal(t, want.JobStatus, got.JobStatus)
	draft, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NotContains(t, string(draft), "ro-pass", "no password in the draft")

	fresh, _ := localtest.MySQL(t)
	for _, s := range got.DDL {
		_, err := fresh.Exec(s)
		require.NoError(t, err, "the written DDL applies to a fresh database: %s", s)
	}
	require.NotContains(t, string(mustRead(t, filepath.Join(filepath.Dir(out), "draft.schema.sql"))), "AUTO_INCREMENT=")

	require.Equal(t, before, fingerprint(t, db), "init changed the database it read")
}

// With --ddl and --dsn both, the tables come from the file (the draft names
// it) and the status words from the database as well.
func TestTakesTheTablesFromTheFileAndTheWordsFromTheDatabase(t *testing.T) {
	db, dsn := roomServiceDatabase(t)
	before := fingerprint(t, db)
	out, res, err := write(t, t.TempDir(), Options{DSN: dsn, DDL: filepath.Join(roomServiceDir, "schema.sql")})
	require.NoError(t, err)
	require.Contains(t, res.Source, "(status words also from database ")
	want := loadSchema(t, filepath.Join(roomServiceDir, "manifest.yaml"))
	got := loadSchema(t, out)
	require.Equal(t, want, got, "the whole mapping, the DDL file's statements included")
	_, err = os.Stat(filepath.Join(filepath.Dir(out), "draft.schema.sql"))
	require.True(t, errors.Is(err, os.ErrNotExist), "no schema file is written when --ddl names one")
	require.Equal(t, before, fingerprint(t, db))
}

// The session init reads through cannot write, even as root: the server
// refuses a write in the READ ONLY transaction, and query refuses to send
// one at all.
func TestReadOnlyConnectionRefusesWrites(t *testing.T) {
	db, dsn := roomServiceDatabase(t)
	before := fingerprint(t, db)
	ctx := context.Background()
	r, err := openReadOnly(ctx, dsn)
	require.NoError(t, err)
	defer r.close()

	_, err = r.tx.ExecContext(ctx, "UPDATE room_outbox SET status = 'failed'")
	var me *mysql.MySQLError
	require.ErrorAs(t, err, &me, "the server must refuse the write")
	require.Equal(t, uint16(1792), me.Number, "ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION: %v", err)

	_, err = r.query(ctx, "DELETE FROM room_tasks")
	require.ErrorContains(t, err, "init only reads")
	multi, err := openReadOnly(ctx, dsn+"&multiStatements=true")
	require.NoError(t, err)
	defer multi.close()
	_, err = multi.query(ctx, "SELECT 1; DROP TABLE room_tasks")
	require.Error(t, err, "init turns multiStatements off: a statement cannot carry a second one")

	words, err := r.distinct(ctx, "room_outbox", "status")
	require.NoError(t, err)
	require.Equal(t, []string{"delivered", "delivering", "failed", "pending", "retryable"}, words)
	require.Equal(t, before, fingerprint(t, db))
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// The other vocabulary, read back from MariaDB: SHOW CREATE TABLE spells
// JSON as LONGTEXT with a json_valid CHECK, lower-cases the CHECK's IN and
// adds the foreign key's index, and the draft is the same as from the file.
func TestReadsAnotherVocabularyFromTheDatabase(t *testing.T) {
	db, dsn := localtest.MySQL(t)
	ddl, err := os.ReadFile("testdata/init-messages.sql")
	require.NoError(t, err)
	stmts, err := schemaddl.SplitStatements(string(ddl))
	require.NoError(t, err)
	for _, s := range stmts {
		_, err := db.Exec(s)
		require.NoError(t, err, s)
	}
	fromDB, _, err := write(t, t.TempDir(), Options{DSN: dsn})
	require.NoError(t, err)
	fromFile, _, err := write(t, t.TempDir(), Options{DDL: "testdata/init-messages.sql"})
	require.NoError(t, err)
	a, b := loadSchema(t, fromDB), loadSchema(t, fromFile)
	require.Equal(t, b.Outbox, a.Outbox)
	require.Equal(t, b.Jobs, a.Jobs)
	require.Equal(t, b.OutboxStatus, a.OutboxStatus, "the CHECK's words, read from the server's own spelling")
	require.Equal(t, b.JobStatus, a.JobStatus)
	schemaSQL := string(mustRead(t, filepath.Join(filepath.Dir(fromDB), "draft.schema.sql")))
	require.Less(t, strings.Index(schemaSQL, "CREATE TABLE `deliveries`"), strings.Index(schemaSQL, "CREATE TABLE `outgoing_messages`"),
		"the jobs table comes first: the outbox's foreign key references it")
	require.NotContains(t, schemaSQL, "audit_log")
}
