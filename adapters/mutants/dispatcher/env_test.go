package dispatcher

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/reference/dispatchtest"
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
	*dispatchtest.Servers
	t  *testing.T
	db *sql.DB // READ COMMITTED pool, as the dispatcher opens it
}

func newEnv(t *testing.T) *env {
	t.Helper()
	s := dispatchtest.NewServers(t, auditDDL...)
	db, err := reference.OpenMySQL(s.DSN)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return &env{Servers: s, t: t, db: db}
}

// config is the fast test tuning with bug (or "" for the base).
func (e *env) config(instance, bug string) Config {
	return Config{Config: e.Config(instance), Bug: bug}
}

// dispatcher builds a dispatcher on the env's connections, logging
// warnings to the test log.
func (e *env) dispatcher(cfg Config, opts ...Option) *Dispatcher {
	e.t.Helper()
	base := []Option{WithDB(e.db), WithRedis(e.Redis), WithLogger(dispatchtest.Logger(e.t))}
	d, err := New(cfg, append(base, opts...)...)
	require.NoError(e.t, err)
	return d
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
	v, err := e.Redis.LRange(context.Background(), key, 0, -1).Result()
	require.NoError(e.t, err)
	return v
}

func (e *env) hash(key string) map[string]string {
	e.t.Helper()
	v, err := e.Redis.HGetAll(context.Background(), key).Result()
	require.NoError(e.t, err)
	return v
}

// streamEvents lists the "event" field of a queue's events stream.
func (e *env) streamEvents(queue string) []string {
	e.t.Helper()
	entries, err := e.Redis.XRange(context.Background(), "bull:"+queue+":events", "-", "+").Result()
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

// The queues of the fast tuning (env.Config).
const (
	queueA = dispatchtest.QueueA
	queueB = dispatchtest.QueueB
)
