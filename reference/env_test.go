package reference_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/reference/dispatchtest"
)

// auditDDL records every update of outbox_events, stamped with the updating
// statement's NOW(6), so tests can check each transition and its guard.
var auditDDL = []string{
	`CREATE TABLE audit (
		seq BIGINT AUTO_INCREMENT PRIMARY KEY, event_id BIGINT NOT NULL, at DATETIME(6) NOT NULL,
		old_status VARCHAR(16), new_status VARCHAR(16), attempts INT, available_at DATETIME(6),
		locked_by VARCHAR(128), old_token VARCHAR(64), new_token VARCHAR(64),
		locked_until DATETIME(6), old_error VARCHAR(1024), new_error VARCHAR(1024))`,
	`CREATE TRIGGER outbox_audit AFTER UPDATE ON outbox_events FOR EACH ROW
		INSERT INTO audit (event_id, at, old_status, new_status, attempts, available_at, locked_by,
			old_token, new_token, locked_until, old_error, new_error)
		VALUES (NEW.id, NOW(6), OLD.status, NEW.status, NEW.attempts, NEW.available_at, NEW.locked_by,
			OLD.lock_token, NEW.lock_token, NEW.locked_until, OLD.last_error, NEW.last_error)`,
}

// env is one test's private database (with the schema and the audit
// trigger) and private Redis.
type env struct {
	*dispatchtest.Servers
	t *testing.T
}

func newEnv(t *testing.T) *env {
	t.Helper()
	s := dispatchtest.NewServers(t, auditDDL...)
	return &env{Servers: s, t: t}
}

// dispatcher builds a dispatcher that logs warnings to the test log.
func (e *env) dispatcher(cfg reference.Config, opts ...reference.Option) *reference.Dispatcher {
	e.t.Helper()
	d, err := reference.New(cfg, append([]reference.Option{reference.WithLogger(dispatchtest.Logger(e.t))}, opts...)...)
	require.NoError(e.t, err)
	e.t.Cleanup(func() { _ = d.Close() })
	return d
}

// run starts d.Run in the background; the returned stop cancels it and
// waits for Run to return, failing the test on an error.
func (e *env) run(d *reference.Dispatcher) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			require.NoError(e.t, err)
		case <-time.After(30 * time.Second):
			e.t.Fatal("Run did not return within 30s of the stop")
		}
	}
	e.t.Cleanup(stop)
	return stop
}

// addEvent inserts a job (unless jobStatus is "") and its event in one
// transaction, as a producer does, and returns the event id.
func (e *env) addEvent(eventType, jobID, queue, jobStatus string) int64 {
	e.t.Helper()
	tx, err := e.DB.Begin()
	require.NoError(e.t, err)
	if jobStatus != "" {
		_, err = tx.Exec(`INSERT INTO ai_jobs (id, queue_name, status) VALUES (?, ?, ?)`, jobID, queue, jobStatus)
		require.NoError(e.t, err)
	}
	res, err := tx.Exec(`INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES (?, ?, JSON_OBJECT('jobId', ?))`,
		eventType, jobID, jobID)
	require.NoError(e.t, err)
	require.NoError(e.t, tx.Commit())
	id, err := res.LastInsertId()
	require.NoError(e.t, err)
	return id
}

// addValid inserts a valid event for a new created job in queueA.
func (e *env) addValid(jobID string) int64 {
	return e.addEvent(reference.EventTypeEnqueue, jobID, queueA, "created")
}

// addMany inserts n valid events with jobs job-<prefix>-<i>, in bulk.
func (e *env) addMany(prefix string, n int) {
	e.t.Helper()
	const chunk = 500
	for start := 0; start < n; start += chunk {
		end := min(start+chunk, n)
		var jobs, events []string
		var jobArgs, eventArgs []any
		for i := start; i < end; i++ {
			id := fmt.Sprintf("job-%s-%d", prefix, i)
			jobs = append(jobs, "(?, ?, 'created')")
			jobArgs = append(jobArgs, id, queueA)
			events = append(events, "(?, ?, JSON_OBJECT('jobId', ?))")
			eventArgs = append(eventArgs, reference.EventTypeEnqueue, id, id)
		}
		_, err := e.DB.Exec(`INSERT INTO ai_jobs (id, queue_name, status) VALUES `+strings.Join(jobs, ","), jobArgs...)
		require.NoError(e.t, err)
		_, err = e.DB.Exec(`INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES `+strings.Join(events, ","), eventArgs...)
		require.NoError(e.t, err)
	}
}

// eventRow is an outbox_events row as the tests read it.
type eventRow struct {
	Status      string
	Attempts    int
	AvailableAt time.Time
	LockedBy    sql.NullString
	LockToken   sql.NullString
	LockedUntil sql.NullTime
	LastError   sql.NullString
	PublishedAt sql.NullTime
}

func (e *env) event(id int64) eventRow {
	e.t.Helper()
	var r eventRow
	err := e.DB.QueryRow(`SELECT status, attempts, available_at, locked_by, lock_token, locked_until, last_error, published_at
		FROM outbox_events WHERE id = ?`, id).
		Scan(&r.Status, &r.Attempts, &r.AvailableAt, &r.LockedBy, &r.LockToken, &r.LockedUntil, &r.LastError, &r.PublishedAt)
	require.NoError(e.t, err)
	return r
}

// waitFor polls cond every 10ms until it holds, failing after 30s.
func (e *env) waitFor(what string, cond func() bool) {
	e.t.Helper()
	require.Eventually(e.t, cond, 30*time.Second, 10*time.Millisecond, "waiting for %s", what)
}

// auditRow is one recorded transition.
type auditRow struct {
	At          time.Time
	OldStatus   string
	NewStatus   string
	Attempts    int
	AvailableAt time.Time
	LockedBy    sql.NullString
	OldToken    sql.NullString
	NewToken    sql.NullString
	OldError    sql.NullString
	NewError    sql.NullString
}

func (e *env) audit(eventID int64) []auditRow {
	e.t.Helper()
	rows, err := e.DB.Query(`SELECT at, old_status, new_status, attempts, available_at, locked_by, old_token, new_token, old_error, new_error
		FROM audit WHERE event_id = ? ORDER BY seq`, eventID)
	require.NoError(e.t, err)
	defer rows.Close()
	var out []auditRow
	for rows.Next() {
		var a auditRow
		require.NoError(e.t, rows.Scan(&a.At, &a.OldStatus, &a.NewStatus, &a.Attempts, &a.AvailableAt, &a.LockedBy,
			&a.OldToken, &a.NewToken, &a.OldError, &a.NewError))
		out = append(out, a)
	}
	require.NoError(e.t, rows.Err())
	return out
}

// Redis side, with the default prefix.

func jobKey(queue, id string) string { return "bull:" + queue + ":" + id }

func (e *env) jobExists(queue, id string) bool {
	e.t.Helper()
	n, err := e.Redis.Exists(context.Background(), jobKey(queue, id)).Result()
	require.NoError(e.t, err)
	return n == 1
}

// addCalls is BullMQ's id counter: it grows on every add call, duplicates
// included, so it counts the adds that reached Redis.
func (e *env) addCalls(queue string) int {
	e.t.Helper()
	n, err := e.Redis.Get(context.Background(), "bull:"+queue+":id").Int()
	if err == redis.Nil {
		return 0
	}
	require.NoError(e.t, err)
	return n
}

// waitList returns the ids on the queue's wait list.
func (e *env) waitList(queue string) []string {
	e.t.Helper()
	ids, err := e.Redis.LRange(context.Background(), "bull:"+queue+":wait", 0, -1).Result()
	require.NoError(e.t, err)
	return ids
}

// streamAdded counts 'added' entries for jobID on the queue's events stream.
func (e *env) streamAdded(queue, jobID string) int {
	e.t.Helper()
	entries, err := e.Redis.XRange(context.Background(), "bull:"+queue+":events", "-", "+").Result()
	require.NoError(e.t, err)
	n := 0
	for _, en := range entries {
		if en.Values["event"] == "added" && en.Values["jobId"] == jobID {
			n++
		}
	}
	return n
}

// The queues of the fast tuning (env.Config).
const (
	queueA = dispatchtest.QueueA
	queueB = dispatchtest.QueueB
)
