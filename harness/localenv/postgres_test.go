package localenv

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/stretchr/testify/require"
)

func openPG(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func setting(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var v string
	require.NoError(t, db.QueryRow("SELECT current_setting($1)", name).Scan(&v))
	return v
}

func TestPostgresStartConnectClose(t *testing.T) {
	p, err := StartPostgres(testCtx(t), PostgresOptions{Settings: map[string]string{"work_mem": "8MB"}})
	require.NoError(t, err)
	require.NotEmpty(t, p.Version())
	require.NotEqual(t, 5432, p.Port())
	require.Equal(t, "127.0.0.1:"+strconv.Itoa(p.Port()), p.Addr())
	require.Equal(t, "postgres://postgres@"+p.Addr()+"/x?sslmode=disable", p.URL("x"))
	require.Equal(t, "postgres://postgres@"+p.Addr()+"/postgres?sslmode=disable", p.URL(""))
	require.True(t, strings.HasPrefix(p.Dir(), os.TempDir()+"/outboxchaos-postgres-"), p.Dir())
	require.Equal(t, filepath.Join(p.Dir(), "data"), p.DataDir())

	db := openPG(t, p.URL(""))
	for name, want := range map[string]string{
		"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on", "TimeZone": "UTC",
		"listen_addresses": "127.0.0.1", "work_mem": "8MB", "server_encoding": "UTF8",
	} {
		require.Equal(t, want, setting(t, db, name), name)
	}
	st, err := os.Stat(p.DataDir())
	require.NoError(t, err)
	uid := int(st.Sys().(*syscall.Stat_t).Uid)
	if os.Geteuid() == 0 {
		require.Equal(t, DefaultPostgresUser, p.User())
		require.NotZero(t, uid, "the data directory must belong to the postgres user")
		require.Equal(t, uid, processUID(t, p.Pid()), "the server must run as the data directory's owner")
	} else {
		require.Equal(t, os.Geteuid(), uid)
	}
	_ = db.Close()

	require.NoError(t, p.Close())
	require.Empty(t, serverProcessesUnder(p.Dir()), "server processes left after Close")
	require.NoDirExists(t, p.Dir())
	require.NoError(t, p.Close(), "Close is idempotent")
	require.Error(t, p.Start(testCtx(t)), "Start after Close")
}

// processUID reads the real uid of pid from /proc.
func processUID(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			uid, err := strconv.Atoi(strings.Fields(rest)[0])
			require.NoError(t, err)
			return uid
		}
	}
	t.Fatalf("no Uid line in /proc/%d/status", pid)
	return 0
}

// SIGKILL of the server in the middle of a transaction, then a start on the
// same port with the same data: crash recovery runs, the committed rows are
// there and the uncommitted one is not. Kill leaves no server process.
func TestPostgresKillMidTransactionRecovers(t *testing.T) {
	ctx := testCtx(t)
	p := started(t, StartPostgres, PostgresOptions{})
	port := p.Port()
	db := openPG(t, p.URL(""))
	_, err := db.ExecContext(ctx, "CREATE TABLE t (id int PRIMARY KEY)")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	require.NoError(t, err)
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, "INSERT INTO t VALUES (2)")
	require.NoError(t, err)

	forked := serverProcessesUnder(p.Dir())
	require.Greater(t, len(forked), 2, "the postmaster and its auxiliary processes and backends")
	require.Contains(t, forked, p.Pid())
	require.NoError(t, p.Kill())
	require.Zero(t, p.Pid())
	for _, pid := range forked {
		require.False(t, processAlive(pid, 0), "server process %d outlived Kill", pid)
	}
	require.Error(t, pingPostgres(ctx, p.Addr()), "killed server still answers")
	_ = tx.Rollback()
	require.NoError(t, p.Kill(), "Kill of a stopped server is a no-op")

	require.NoError(t, p.Start(ctx))
	require.Equal(t, port, p.Port())
	require.Contains(t, logText(t, p), "automatic recovery in progress")
	require.Equal(t, []int{1}, ids(t, p))

	_, err = openPG(t, p.URL("")).ExecContext(ctx, "INSERT INTO t VALUES (3)")
	require.NoError(t, err)
	require.NoError(t, p.Stop(ctx))
	require.NoError(t, p.Restart(ctx))
	require.Equal(t, port, p.Port())
	require.Equal(t, []int{1, 3}, ids(t, p))
	require.Equal(t, 1, strings.Count(logText(t, p), "automatic recovery in progress"), "a fast shutdown needs no recovery")
}

func ids(t *testing.T, p *Postgres) []int {
	t.Helper()
	db := openPG(t, p.URL(""))
	rows, err := db.Query("SELECT id FROM t ORDER BY id")
	require.NoError(t, err)
	defer rows.Close()
	var out []int
	for rows.Next() {
		var id int
		require.NoError(t, rows.Scan(&id))
		out = append(out, id)
	}
	require.NoError(t, rows.Err())
	require.NoError(t, db.Close())
	return out
}

func logText(t *testing.T, p *Postgres) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p.Dir(), "postgres.log"))
	require.NoError(t, err)
	return string(b)
}

// The superuser needs no password; every other role must give its own.
func TestPostgresRolesNeedTheirPassword(t *testing.T) {
	p := started(t, StartPostgres, PostgresOptions{})
	_, err := openPG(t, p.URL("")).Exec("CREATE ROLE app LOGIN PASSWORD 'Secret+1'")
	require.NoError(t, err)
	as := func(pass string) error {
		u, err := url.Parse(p.URL(""))
		require.NoError(t, err)
		u.User = url.UserPassword("app", pass)
		return openPG(t, u.String()).Ping()
	}
	require.ErrorContains(t, as("wrong"), "password authentication failed")
	require.NoError(t, as("Secret+1"))
}

func TestPostgresOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		opts PostgresOptions
		want string
	}{
		{PostgresOptions{Port: 5432}, "well-known PostgreSQL port"},
		{PostgresOptions{Port: 70000}, "out of range"},
		{PostgresOptions{Settings: map[string]string{"port": "1"}}, "managed by localenv"},
		{PostgresOptions{Settings: map[string]string{"unix_socket_directories": "/tmp"}}, "managed by localenv"},
		{PostgresOptions{Settings: map[string]string{"Work-Mem": "1MB"}}, "lower case"},
		{PostgresOptions{Settings: map[string]string{"work_mem": "1MB\nfsync=off"}}, "one line"},
	} {
		_, err := StartPostgres(context.Background(), tc.opts)
		require.ErrorContains(t, err, tc.want)
	}
	require.NoError(t, PostgresOptions{Settings: map[string]string{"log_min_messages": "warning"}}.Validate())
}

func TestPostgresAccount(t *testing.T) {
	if os.Geteuid() != 0 {
		_, err := StartPostgres(context.Background(), PostgresOptions{User: "outboxchaos-nobody"})
		require.ErrorContains(t, err, "only root can run the server as another user")
		return
	}
	_, err := StartPostgres(context.Background(), PostgresOptions{User: "outboxchaos-nobody"})
	require.ErrorContains(t, err, `there is no user "outboxchaos-nobody"`)
	require.ErrorContains(t, err, "apt-get install postgresql")
	_, err = StartPostgres(context.Background(), PostgresOptions{User: "root"})
	require.ErrorContains(t, err, "uid 0")
}

// A directory the server's account cannot enter is named, with the fix.
func TestPostgresUnreachableTempDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only a server run as another user can be shut out of TMPDIR")
	}
	closed := t.TempDir() // its parent is 0700, root's
	t.Setenv("TMPDIR", closed)
	_, err := StartPostgres(testCtx(t), PostgresOptions{})
	require.ErrorContains(t, err, "cannot enter "+filepath.Dir(closed))
	require.ErrorContains(t, err, "chmod o+x")
	left, _ := filepath.Glob(filepath.Join(closed, dirPrefix+"*"))
	require.Empty(t, left)
}

func TestPostgresBadSettingShowsItsLog(t *testing.T) {
	_, err := StartPostgres(testCtx(t), PostgresOptions{Settings: map[string]string{"no_such_setting_here": "1"}})
	require.ErrorContains(t, err, "no_such_setting_here", "the error must include the server log tail")
}
