// Package dispatchtest is the test environment that the tests of the
// module's own dispatchers share (package reference, its command, and the
// mutant base with its adapter): a private database holding the contract's
// schema, a private Redis, a fast tuning and a logger into the test log. It
// builds on package localtest; use localtest.Main in TestMain.
package dispatchtest

import (
	"database/sql"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/contract"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/reference"
)

// Queue names the tests use; the fast tuning allows both.
const (
	QueueA = "ai-default"
	QueueB = "ai-bulk"
)

// Servers is one test's private database, with the contract's schema, and
// its private Redis.
type Servers struct {
	t        testing.TB
	DB       *sql.DB // a plain pool on the database (the driver's default isolation)
	DSN      string
	Redis    *redis.Client
	RedisURL string
}

// NewServers starts (or reuses) the private servers, creates the schema and
// then runs extraDDL (audit tables and triggers, say). Everything is closed
// and dropped when the test ends.
func NewServers(t testing.TB, extraDDL ...string) *Servers {
	t.Helper()
	db, dsn := localtest.MySQL(t)
	for _, stmt := range append(contract.SchemaStatements(), extraDDL...) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("dispatchtest: %s: %v", stmt, err)
		}
	}
	r := localtest.Redis(t)
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	return &Servers{t: t, DB: db, DSN: dsn, Redis: rdb, RedisURL: r.URL(0)}
}

// Config is the reference's default configuration on these servers with a
// fast tuning (10 ms polls, 2 s lease, 5 attempts, 100 ms..1 s backoff), for
// the given instance, on QueueA and QueueB.
func (s *Servers) Config(instance string) reference.Config {
	c := reference.DefaultConfig()
	c.MySQLDSN, c.RedisURL = s.DSN, s.RedisURL
	c.Queues = []string{QueueA, QueueB}
	c.InstanceID = instance
	c.PollInterval = 10 * time.Millisecond
	c.Lease = 2 * time.Second
	c.RecoveryMargin = 100 * time.Millisecond
	c.MaxAttempts = 5
	c.BackoffBase = 100 * time.Millisecond
	c.BackoffMax = time.Second
	c.PublishTimeout = 500 * time.Millisecond
	c.ShutdownTimeout = 5 * time.Second
	return c
}

// Logger logs warnings and errors into the test's log.
func Logger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// JobStatus reads the status of ai_jobs row id.
func (s *Servers) JobStatus(id string) string {
	s.t.Helper()
	var status string
	if err := s.DB.QueryRow(`SELECT status FROM ai_jobs WHERE id = ?`, id).Scan(&status); err != nil {
		s.t.Fatalf("dispatchtest: status of job %s: %v", id, err)
	}
	return status
}

// Count runs a query that returns one number (a COUNT(*), say).
func (s *Servers) Count(query string, args ...any) int {
	s.t.Helper()
	var n int
	if err := s.DB.QueryRow(query, args...).Scan(&n); err != nil {
		s.t.Fatalf("dispatchtest: %s: %v", query, err)
	}
	return n
}
