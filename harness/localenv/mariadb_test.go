package localenv

import (
	"context"
	"database/sql"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// started starts a server with start (StartMariaDB, StartRedis) and opts,
// and closes it when the test ends.
func started[O any, S interface{ Close() error }](t *testing.T, start func(context.Context, O) (S, error), opts O) S {
	t.Helper()
	srv, err := start(testCtx(t), opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	return srv
}

func openDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestMariaDBStartPingClose(t *testing.T) {
	m, err := StartMariaDB(testCtx(t), MariaDBOptions{})
	require.NoError(t, err)
	require.Contains(t, m.Version(), "MariaDB")
	require.NotZero(t, m.Port())
	require.NotEqual(t, 3306, m.Port())
	require.Equal(t, "127.0.0.1:"+strconv.Itoa(m.Port()), m.Addr())
	require.Equal(t, "root@tcp("+m.Addr()+")/x?parseTime=true&loc=UTC&multiStatements=true", m.DSN("x"))
	require.True(t, strings.HasPrefix(m.Dir(), os.TempDir()+"/outboxchaos-"), m.Dir())

	db := openDB(t, m.DSN(""))
	var one int
	require.NoError(t, db.QueryRow("SELECT 1").Scan(&one))
	require.Equal(t, 1, one)
	_ = db.Close()

	pid := m.Pid()
	require.NotZero(t, pid)
	require.NoError(t, m.Close())
	require.False(t, processAlive(pid, 0), "server still running after Close")
	require.NoDirExists(t, m.Dir())
	require.NoError(t, m.Close(), "Close is idempotent")
	require.Error(t, m.Start(testCtx(t)), "Start after Close")
}

func TestMariaDBKillAndStopKeepData(t *testing.T) {
	ctx := testCtx(t)
	m := started(t, StartMariaDB, MariaDBOptions{})
	port := m.Port()
	db := openDB(t, m.DSN(""))
	_, err := db.Exec("CREATE DATABASE k; CREATE TABLE k.t (id INT PRIMARY KEY); INSERT INTO k.t VALUES (1)")
	require.NoError(t, err)

	require.NoError(t, m.Kill())
	require.Zero(t, m.Pid())
	require.Error(t, pingMariaDB(ctx, m.Addr()), "killed server still answers")
	require.NoError(t, m.Kill(), "Kill of a stopped server is a no-op")

	require.NoError(t, m.Start(ctx))
	require.Equal(t, port, m.Port())
	requireCount(t, m, 1)

	_, err = openDB(t, m.DSN("k")).Exec("INSERT INTO t VALUES (2)")
	require.NoError(t, err)
	require.NoError(t, m.Stop(ctx))
	require.NoError(t, m.Start(ctx))
	requireCount(t, m, 2)

	require.NoError(t, m.Restart(ctx))
	require.Equal(t, port, m.Port())
	requireCount(t, m, 2)
}

func requireCount(t *testing.T, m *MariaDB, want int) {
	t.Helper()
	db := openDB(t, m.DSN("k"))
	var n int
	require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM t").Scan(&n))
	require.Equal(t, want, n)
	require.NoError(t, db.Close())
}

func TestMariaDBRootNeedsNoPasswordButGrantsAreOn(t *testing.T) {
	m := started(t, StartMariaDB, MariaDBOptions{Durable: true})
	db := openDB(t, m.DSN(""))
	_, err := db.Exec("CREATE USER 'app'@'%' IDENTIFIED BY 'secret'")
	require.NoError(t, err, "grant tables must be loaded")
	bad := openDB(t, strings.Replace(m.DSN(""), "root@", "app:wrong@", 1))
	require.Error(t, bad.Ping(), "a wrong password must be refused")
	var flush string
	require.NoError(t, db.QueryRow("SELECT @@innodb_flush_log_at_trx_commit").Scan(&flush))
	require.Equal(t, "1", flush)
}

func TestMariaDBOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		opts MariaDBOptions
		want string
	}{
		{MariaDBOptions{Port: 3306}, "reserved for shared servers"},
		{MariaDBOptions{Port: -1}, "out of range"},
		{MariaDBOptions{ExtraArgs: []string{"--port=1234"}}, "managed by localenv"},
		{MariaDBOptions{ExtraArgs: []string{"--skip_grant_tables"}}, "managed by localenv"},
		{MariaDBOptions{ExtraArgs: []string{"max-connections=5"}}, "--name or --name=value"},
	} {
		_, err := StartMariaDB(context.Background(), tc.opts)
		require.ErrorContains(t, err, tc.want)
	}
	require.NoError(t, MariaDBOptions{ExtraArgs: []string{"--max-connections=20"}}.Validate())
}

func TestMariaDBBadExtraArgShowsErrorLog(t *testing.T) {
	_, err := StartMariaDB(testCtx(t), MariaDBOptions{ExtraArgs: []string{"--no-such-option-here=1"}})
	require.Error(t, err)
	require.Contains(t, err.Error(), "no-such-option-here", "error must include the server log tail")
}
