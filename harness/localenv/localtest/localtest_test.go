package localtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { Main(m) }

func databaseExists(t *testing.T, name string) bool {
	t.Helper()
	var n int
	err := shared.admin.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name).Scan(&n)
	require.NoError(t, err)
	return n == 1
}

func currentDatabase(t *testing.T, db *sql.DB) string {
	t.Helper()
	var name string
	require.NoError(t, db.QueryRow("SELECT DATABASE()").Scan(&name))
	return name
}

func TestMySQLGivesFreshDatabasesDroppedAtCleanup(t *testing.T) {
	var first, second string
	t.Run("first", func(t *testing.T) {
		db, dsn := MySQL(t)
		first = currentDatabase(t, db)
		require.True(t, strings.HasPrefix(first, "t_"), first)
		require.Contains(t, dsn, "/"+first+"?")
		_, err := db.Exec("CREATE TABLE x (id INT PRIMARY KEY); INSERT INTO x VALUES (1)")
		require.NoError(t, err, "multi statements and table creation must work")
		var now interface{}
		require.NoError(t, db.QueryRow("SELECT NOW(6)").Scan(&now))
		require.IsType(t, now, now) // parseTime: scanned without error
	})
	t.Run("second", func(t *testing.T) {
		db, _ := MySQL(t)
		second = currentDatabase(t, db)
		var n int
		require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()").Scan(&n))
		require.Zero(t, n, "a new database must be empty")
	})
	require.NotEqual(t, first, second)
	require.False(t, databaseExists(t, first), "database not dropped at cleanup")
	require.False(t, databaseExists(t, second), "database not dropped at cleanup")
}

func TestMariaDBIsShared(t *testing.T) {
	a := MariaDB(t)
	b := MariaDB(t)
	require.Same(t, a, b)
	require.Contains(t, a.Version(), "MariaDB")
}

func TestDatabaseNameIsValidAndBounded(t *testing.T) {
	long := strings.Repeat("TestSomething/With Spaces-and.dots", 5)
	a, b := databaseName(long), databaseName(long)
	require.NotEqual(t, a, b)
	require.LessOrEqual(t, len(a), 64)
	require.Regexp(t, `^t_[a-z0-9_]+$`, a)
}

func TestRedisIsPrivatePerTest(t *testing.T) {
	var first int
	t.Run("a", func(t *testing.T) {
		r := Redis(t)
		first = r.Port()
		require.NotEmpty(t, r.Version())
	})
	t.Run("b", func(t *testing.T) {
		r := Redis(t)
		require.NotEqual(t, first, r.Port())
	})
	_ = context.Background()
}

// The leftover check sees a process that names the directory and a file
// left in it, and passes once both are gone.
func TestRequireNothingLeftSeesProcessesAndFiles(t *testing.T) {
	tmp := t.TempDir()
	cmd := exec.Command("sleep", "30")
	cmd.Args[0] = filepath.Join(tmp, "sleep") // its command line names tmp
	require.NoError(t, cmd.Start())
	require.Len(t, ProcessesMentioning(tmp), 1)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	require.Empty(t, ProcessesMentioning(tmp))

	require.NoError(t, os.WriteFile(filepath.Join(tmp, "outboxchaos-x"), nil, 0o600))
	fake := &recordingTB{TB: t}
	func() {
		defer func() { require.Equal(t, errFatal, recover()) }()
		RequireNothingLeft(fake, tmp, "outboxchaos-")
	}()
	require.Contains(t, fake.fatal, "outboxchaos-x")
	RequireNothingLeft(t, tmp, "other-")
}

var errFatal = errors.New("Fatalf called")

// recordingTB keeps a Fatalf's message and stops the checker with a panic
// the test recovers, instead of failing the test.
type recordingTB struct {
	testing.TB
	fatal string
}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	panic(errFatal)
}

func pgDatabaseExists(t *testing.T, name string) bool {
	t.Helper()
	db, err := sql.Open("pgx", PostgresServer(t).URL(""))
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n))
	return n == 1
}

func TestPostgresGivesFreshDatabasesDroppedAtCleanup(t *testing.T) {
	var first, second string
	t.Run("first", func(t *testing.T) {
		db, url := Postgres(t)
		require.NoError(t, db.QueryRow("SELECT current_database()").Scan(&first))
		require.True(t, strings.HasPrefix(first, "t_"), first)
		require.Contains(t, url, "/"+first+"?")
		_, err := db.Exec("CREATE TABLE x (id int PRIMARY KEY); INSERT INTO x VALUES (1)")
		require.NoError(t, err)
	})
	t.Run("second", func(t *testing.T) {
		db, _ := Postgres(t)
		require.NoError(t, db.QueryRow("SELECT current_database()").Scan(&second))
		var n int
		require.NoError(t, db.QueryRow("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&n))
		require.Zero(t, n, "a new database must be empty")
	})
	require.NotEqual(t, first, second)
	require.Same(t, PostgresServer(t), PostgresServer(t))
	require.False(t, pgDatabaseExists(t, first), "database not dropped at cleanup")
	require.False(t, pgDatabaseExists(t, second), "database not dropped at cleanup")
}

func TestServerTempDirLetsEveryAccountIn(t *testing.T) {
	dir := ServerTempDir(t)
	for d := dir; d != "/"; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		require.NoError(t, err)
		require.NotZero(t, st.Mode().Perm()&0o001, "%s is closed to other accounts", d)
	}
}
