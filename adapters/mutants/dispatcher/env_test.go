package dispatcher

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/reference/failpoint"
)

func TestMain(m *testing.M) { localtest.Main(m) }

const (
	queueA = "ai-default"
	queueB = "ai-bulk"
)

// auditDDL records every update of an outbox row, so a test can prove a
// write happened (or did not) after the fact.
var auditDDL = []string{
	`CREATE TABLE audit (
		seq BIGINT AUTO_INCREMENT PRIMARY KEY, event_id BIGINT NOT NULL,
		old_status VARCHAR(16), new_status VARCHAR(16), old_token VARCHAR(64), new_token VARCHAR(64),
		locked_by VARCHAR(128), attempts INT)`,
	`CREATE TRIGGER audit_outbox AFTER UPDATE ON outbox_events FOR EACH ROW
		INSERT INTO audit (event_id, old_status, new_status, old_token, new_token, locked_by, attempts)
		VALUES (NEW.id, OLD.status, NEW.status, OLD.lock_token, NEW.lock_token, NEW.locked_by, NEW.attempts)`,
}

// env is one test's private database and Redis.
type env struct {
	t        *testing.T
	db       *sql.DB // READ COMMITTED pool, as the dispatcher opens it
	dsn      string
	redisURL string
	rdb      *redis.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	raw, dsn := localtest.MySQL(t)
	for _, stmt := range append(reference.SchemaStatements(), auditDDL...) {
		_, err := raw.Exec(stmt)
		require.NoError(t, err, stmt)
	}
	db, err := reference.OpenMySQL(dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	r := localtest.Redis(t)
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	return &env{t: t, db: db, dsn: dsn, redisURL: r.URL(0), rdb: rdb}
}

// config is a fast tuning with bug (or "" for the base).
func (e *env) config(instance, bug string) Config {
	c := reference.DefaultConfig()
	c.MySQLDSN, c.RedisURL = e.dsn, e.redisURL
	c.Queues = []string{queueA, queueB}
	c.InstanceID = instance
	c.PollInterval = 10 * time.Millisecond
	c.Lease = 2 * time.Second
	c.RecoveryMargin = 100 * time.Millisecond
	c.MaxAttempts = 5
	c.BackoffBase = 100 * time.Millisecond
	c.BackoffMax = time.Second
	c.PublishTimeout = 500 * time.Millisecond
	c.ShutdownTimeout = 5 * time.Second
	return Config{Config: c, Bug: bug}
}

// dispatcher builds a dispatcher on the env's connections, logging
// warnings to the test log.
func (e *env) dispatcher(cfg Config, opts ...Option) *Dispatcher {
	e.t.Helper()
	logger := slog.New(slog.NewTextHandler(testWriter{e.t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	base := []Option{WithDB(e.db), WithRedis(e.rdb), WithLogger(logger)}
	d, err := New(cfg, append(base, opts...)...)
	require.NoError(e.t, err)
	return d
}

// downRedis is a client of a port nobody listens on: every add fails.
func (e *env) downRedis() Option {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 200 * time.Millisecond, MaxRetries: -1})
	e.t.Cleanup(func() { _ = rdb.Close() })
	return WithRedis(rdb)
}

// addEvent writes an event and, unless jobStatus is "", its ai_jobs row.
func (e *env) addEvent(typ, job, queue, jobStatus string) int64 {
	e.t.Helper()
	if jobStatus != "" {
		_, err := e.db.Exec(`INSERT INTO ai_jobs (id, queue_name, status) VALUES (?, ?, ?)`, job, queue, jobStatus)
		require.NoError(e.t, err)
	}
	res, err := e.db.Exec(`INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES (?, ?, JSON_OBJECT('jobId', ?))`, typ, job, job)
	require.NoError(e.t, err)
	id, err := res.LastInsertId()
	require.NoError(e.t, err)
	return id
}

func (e *env) addValid(job string) int64 {
	return e.addEvent(reference.EventTypeEnqueue, job, queueA, "created")
}

// row is the part of an outbox row the tests read.
type row struct {
	Status, LockedBy, Token, LastError string
	Attempts                           int
	DueInMicros                        int64 // available_at - NOW(6)
}

func (e *env) row(id int64) row {
	e.t.Helper()
	var r row
	err := e.db.QueryRow(`SELECT status, COALESCE(locked_by, ''), COALESCE(lock_token, ''), COALESCE(last_error, ''),
		attempts, TIMESTAMPDIFF(MICROSECOND, NOW(6), available_at) FROM outbox_events WHERE id = ?`, id).
		Scan(&r.Status, &r.LockedBy, &r.Token, &r.LastError, &r.Attempts, &r.DueInMicros)
	require.NoError(e.t, err)
	return r
}

func (e *env) jobStatus(job string) string {
	e.t.Helper()
	var s string
	require.NoError(e.t, e.db.QueryRow(`SELECT status FROM ai_jobs WHERE id = ?`, job).Scan(&s))
	return s
}

func (e *env) count(query string, args ...any) int {
	e.t.Helper()
	var n int
	require.NoError(e.t, e.db.QueryRow(query, args...).Scan(&n), query)
	return n
}

// transitions lists an event's audited status changes as "old->new".
func (e *env) transitions(id int64) []string {
	e.t.Helper()
	rows, err := e.db.Query(`SELECT old_status, new_status FROM audit WHERE event_id = ? ORDER BY seq`, id)
	require.NoError(e.t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var o, n string
		require.NoError(e.t, rows.Scan(&o, &n))
		out = append(out, o+"->"+n)
	}
	require.NoError(e.t, rows.Err())
	return out
}

// rewind puts an event and its job back as a crash between the add and the
// finalize followed by a lease recovery leaves them.
func (e *env) rewind(id int64, job string) {
	e.t.Helper()
	_, err := e.db.Exec(`UPDATE outbox_events SET status = 'pending', locked_by = NULL, lock_token = NULL, locked_until = NULL WHERE id = ?`, id)
	require.NoError(e.t, err)
	_, err = e.db.Exec(`UPDATE ai_jobs SET status = 'created' WHERE id = ?`, job)
	require.NoError(e.t, err)
}

// expire moves an event's lease end a second into the past.
func (e *env) expire(id int64) {
	e.t.Helper()
	_, err := e.db.Exec(`UPDATE outbox_events SET locked_until = NOW(6) - INTERVAL 1 SECOND WHERE id = ?`, id)
	require.NoError(e.t, err)
}

func (e *env) list(key string) []string {
	e.t.Helper()
	v, err := e.rdb.LRange(context.Background(), key, 0, -1).Result()
	require.NoError(e.t, err)
	return v
}

func (e *env) hash(key string) map[string]string {
	e.t.Helper()
	v, err := e.rdb.HGetAll(context.Background(), key).Result()
	require.NoError(e.t, err)
	return v
}

// streamEvents lists the "event" field of a queue's events stream.
func (e *env) streamEvents(queue string) []string {
	e.t.Helper()
	entries, err := e.rdb.XRange(context.Background(), "bull:"+queue+":events", "-", "+").Result()
	require.NoError(e.t, err)
	var out []string
	for _, x := range entries {
		out = append(out, fmt.Sprint(x.Values["event"]))
	}
	return out
}

func (e *env) poll(d *Dispatcher) int {
	e.t.Helper()
	n, err := d.Poll(context.Background())
	require.NoError(e.t, err)
	return n
}

// run starts d.Run; the returned stop cancels it and waits for it.
func (e *env) run(d *Dispatcher) func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			require.NoError(e.t, <-done)
		})
	}
	e.t.Cleanup(stop)
	return stop
}

// waitFor polls cond every 20 ms until it holds, or fails the test after a
// minute.
func (e *env) waitFor(what string, cond func() bool) { e.waitEvery(what, 20*time.Millisecond, cond) }

// waitEvery is waitFor with another poll interval.
func (e *env) waitEvery(what string, every time.Duration, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		require.True(e.t, time.Now().Before(deadline), "timed out waiting for: %s", what)
		time.Sleep(every)
	}
}

// crashLog is a failpoint runtime that records the crash lines instead of
// dying, and runs onCrash at each.
type crashLog struct {
	buf     bytes.Buffer
	onCrash func()
}

func (c *crashLog) set(t *testing.T, spec string) Option {
	s, err := failpoint.Parse(spec, 1)
	require.NoError(t, err)
	return WithFailpoints(s.WithRuntime(failpoint.Runtime{Stderr: &c.buf, Kill: func() {
		if c.onCrash != nil {
			c.onCrash()
		}
	}}))
}

// points lists the failpoints passed, in order.
func (c *crashLog) points() []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(c.buf.String()), "\n") {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(line, "failpoint "), ": crash"))
	}
	return out
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
