// Package localtest gives tests private MariaDB, PostgreSQL and Redis
// servers from package localenv.
//
// A test binary shares ONE private MariaDB, started lazily by the first call
// to MySQL or MariaDB; each MySQL call creates a fresh database on it and
// drops it when the test ends. PostgreSQL works the same way: one shared
// private server (PostgresServer), a fresh database per Postgres call.
// Redis gives every test its own redis-server, closed when the test ends.
// Use Main in TestMain so the shared servers are closed when the tests
// finish:
//
//	func TestMain(m *testing.M) { localtest.Main(m) }
//
// MainNoLeaks is Main with a goroutine-leak check (go.uber.org/goleak) after
// the tests: a package whose code starts goroutines uses it, so that a
// goroutine its tests leave running fails the test binary. The few
// third-party goroutines that outlive every Close are ignored, each listed in
// LeakIgnores with the reason.
//
// The tests that run dispatchers and the harness in child processes share
// their checks here too: WaitLog and LogText read an instance's log, and
// RequireNothingLeft proves that no process and no temporary directory
// outlived a run. ServerTempDir is a temporary directory a child harness's
// servers may use as TMPDIR whatever account they run as.
//
// An end-to-end test calls EndToEnd first: it runs in parallel with the
// others, at most $OUTBOXCHAOS_E2E_SLOTS at a time across every test binary
// of one `go test` (flocked slot files). A test whose subtests are runs of
// their own calls EndToEndGroup, and each subtest EndToEnd. Long skips the part of a test that
// only the long suite runs (`make test-long`, $OUTBOXCHAOS_LONG_TESTS=1).
//
// Without Main the shared server still works; it is killed by the kernel
// when the test binary exits (parent-death signal) and its temporary
// directory is removed by the next run's stale-directory sweep, but Main is
// needed to clean up at once. A server that cannot start fails the test with
// the error from localenv (which names the package to install); tests are
// never skipped for lack of a server.
package localtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/localenv"
)

const startTimeout = 2 * time.Minute

var shared struct {
	once  sync.Once
	mu    sync.Mutex
	maria *localenv.MariaDB
	admin *sql.DB
	err   error
}

// Main runs the tests, closes the shared servers and exits with the tests'
// code.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run runs the tests, closes the shared servers and returns the tests' code.
func Run(m interface{ Run() int }) int {
	code := m.Run()
	closeShared()
	return code
}

// closeShared closes the shared MariaDB and its admin pool and the shared
// PostgreSQL, if started.
func closeShared() {
	closeSharedPostgres()
	shared.mu.Lock()
	if shared.admin != nil {
		_ = shared.admin.Close()
	}
	if shared.maria != nil {
		if err := shared.maria.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "localtest: close shared MariaDB: %v\n", err)
		}
	}
	shared.mu.Unlock()
}

// MariaDB returns the test binary's shared private MariaDB, starting it on
// first use. Do not Kill or Stop it in a test: start your own with
// localenv.StartMariaDB for that.
func MariaDB(t testing.TB) *localenv.MariaDB {
	t.Helper()
	shared.once.Do(startShared)
	if shared.err != nil {
		t.Fatalf("localtest: shared MariaDB: %v", shared.err)
	}
	return shared.maria
}

func startShared() {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	m, err := localenv.StartMariaDB(ctx, localenv.MariaDBOptions{})
	if err != nil {
		shared.err = err
		return
	}
	admin, err := sql.Open("mysql", m.DSN(""))
	if err != nil {
		_ = m.Close()
		shared.err = fmt.Errorf("open admin connection: %w", err)
		return
	}
	shared.mu.Lock()
	shared.maria, shared.admin = m, admin
	shared.mu.Unlock()
}

// MySQL creates a fresh empty database on the shared MariaDB and returns a
// connection pool to it and its DSN; the database is dropped and the pool
// closed when the test ends.
func MySQL(t testing.TB) (*sql.DB, string) {
	t.Helper()
	m := MariaDB(t)
	name := databaseName(t.Name())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := shared.admin.ExecContext(ctx, "CREATE DATABASE `"+name+"`"); err != nil {
		t.Fatalf("localtest: create database %s: %v", name, err)
	}
	dsn := m.DSN(name)
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatalf("localtest: open %s: %v", dsn, err)
	}
	t.Cleanup(func() {
		_ = db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := shared.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			t.Errorf("localtest: drop database %s: %v", name, err)
		}
	})
	return db, dsn
}

// MySQLVia opens a pool of one connection to dsn's database at addr (a
// fault proxy's link in front of the server), closed at t.Cleanup. Its
// timeouts (10 s to connect, 2 s per read) turn a link that holds or drops
// traffic into an error rather than a hung test.
func MySQLVia(t testing.TB, dsn, addr string) *sql.DB {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("localtest: parse %s: %v", dsn, err)
	}
	cfg.Addr, cfg.ReadTimeout, cfg.Timeout = addr, 2*time.Second, 10*time.Second
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatalf("localtest: open %s: %v", cfg.FormatDSN(), err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// MySQLWith is MySQL with ddl (a schema's statements, or any setup) run on
// the fresh database first.
func MySQLWith(t testing.TB, ddl ...string) (*sql.DB, string) {
	t.Helper()
	db, dsn := MySQL(t)
	for _, stmt := range ddl {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("localtest: %s: %v", stmt, err)
		}
	}
	return db, dsn
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9_]+`)

// databaseName derives a unique database name (at most 64 characters) from
// the test name.
func databaseName(testName string) string {
	base := unsafeChars.ReplaceAllString(strings.ToLower(testName), "_")
	if len(base) > 40 {
		base = base[:40]
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "t_" + strings.Trim(base, "_") + "_" + hex.EncodeToString(b[:])
}

// Redis starts a private redis-server (without persistence) for this test
// and closes it when the test ends. Use localenv.StartRedis directly for
// persistence.
func Redis(t testing.TB) *localenv.Redis { return RedisWith(t, localenv.RedisOptions{}) }

// RedisWith is Redis started with opts (its append-only file, say).
func RedisWith(t testing.TB, opts localenv.RedisOptions) *localenv.Redis {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	r, err := localenv.StartRedis(ctx, opts)
	if err != nil {
		t.Fatalf("localtest: %v", err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("localtest: %v", err)
		}
	})
	return r
}

// RedisClient is Redis with a client on it, closed at t.Cleanup.
func RedisClient(t testing.TB) (*localenv.Redis, *redis.Client) {
	t.Helper()
	return RedisClientWith(t, localenv.RedisOptions{})
}

// RedisClientWith is RedisClient on a Redis started with opts.
func RedisClientWith(t testing.TB, opts localenv.RedisOptions) (*localenv.Redis, *redis.Client) {
	t.Helper()
	r := RedisWith(t, opts)
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	return r, rdb
}

// Eventually polls cond every 20 ms until it holds, and fails the test
// naming what it waited for after 30 s (generous for a loaded machine).
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	EventuallyWithin(t, 30*time.Second, what, cond)
}

// EventuallyWithin is Eventually with patience d.
func EventuallyWithin(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// LogText is the text of an instance's log at path, "" while the
// supervisor has not created it yet.
func LogText(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatalf("read log: %v", err)
	}
	return string(b)
}

// WaitLog waits up to a minute until the log at path contains s, and
// returns the log's text.
func WaitLog(t testing.TB, path, s string) string {
	t.Helper()
	var text string
	EventuallyWithin(t, time.Minute, fmt.Sprintf("%q in %s", s, path), func() bool {
		text = LogText(t, path)
		return strings.Contains(text, s)
	})
	return text
}

// Context is a context for one test's server calls: two minutes at most,
// cancelled at t.Cleanup.
func Context(t testing.TB) context.Context { return ContextWithin(t, 2*time.Minute) }

// ContextWithin is Context with d at most.
func ContextWithin(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
