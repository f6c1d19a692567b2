package examples_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

var testQueues = []string{"ai-default", "ai-bulk"}

// directRun is a dispatcher started through its adapter and the supervisor
// against a private MariaDB and Redis, with no fault proxy and no runner.
type directRun struct {
	t      *testing.T
	a      supervisor.Adapter
	m      schema.Mapping
	db     *sql.DB
	rdb    *redis.Client
	rec    *history.Recorder
	sup    *supervisor.Supervisor
	env    map[string]string
	logDir string
}

func newDirectRun(t *testing.T, a supervisor.Adapter) *directRun {
	db, dsn := localtest.MySQL(t)
	rs := localtest.Redis(t)
	m := a.Schema()
	for _, stmt := range m.DDL {
		_, err := db.ExecContext(testCtx(t), stmt)
		require.NoError(t, err, "apply %s schema", a.Name())
	}
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	work := t.TempDir()
	require.NoError(t, a.Prepare(testCtx(t), filepath.Join(work, "work")))
	r := &directRun{t: t, a: a, m: m, db: db, rdb: rdb, rec: history.NewRecorder(history.Meta{}),
		env: contractEnv(t, dsn, rs.URL(0)), logDir: filepath.Join(work, "logs")}
	r.sup = supervisor.New(a, r.rec, r.logDir)
	t.Cleanup(func() { require.NoError(t, r.sup.Close()) })
	return r
}

// contractEnv is the environment of docs/contract.md §3, pointing straight
// at the servers.
func contractEnv(t *testing.T, dsn, redisURL string) map[string]string {
	cfg, err := mysql.ParseDSN(dsn)
	require.NoError(t, err)
	u := url.URL{Scheme: "mysql", Host: cfg.Addr, Path: "/" + cfg.DBName, User: url.User(cfg.User)}
	return map[string]string{
		"OUTBOX_MYSQL_DSN": dsn, "OUTBOX_MYSQL_URL": u.String(), "OUTBOX_REDIS_URL": redisURL,
		"OUTBOX_QUEUES": strings.Join(testQueues, ","), "OUTBOX_BULL_PREFIX": "bull",
		"OUTBOX_POLL_INTERVAL": "50ms", "OUTBOX_BATCH_SIZE": "20", "OUTBOX_LEASE": "3s",
		"OUTBOX_MAX_ATTEMPTS": "5", "OUTBOX_BACKOFF_BASE": "100ms", "OUTBOX_BACKOFF_MAX": "1s",
		"OUTBOX_PUBLISH_TIMEOUT": "1s",
	}
}

func (r *directRun) start(slots ...string) {
	for _, s := range slots {
		_, err := r.sup.Start(testCtx(r.t), s, r.env)
		require.NoError(r.t, err)
	}
}

// produce commits n events of every kind.
func (r *directRun) produce(n int) {
	p, err := workload.NewProducer(workload.ProducerConfig{
		DB: r.db, Schema: r.m, Queues: testQueues,
		Mix:  workload.Mix{Valid: 70, UnknownType: 6, MissingJob: 6, QueueDenied: 6, IllegalJobID: 6, AlreadyQueued: 6},
		Rand: rand.New(rand.NewPCG(7, 7)), Recorder: r.rec, RunID: "direct",
	})
	require.NoError(r.t, err)
	require.NoError(r.t, p.Produce(testCtx(r.t), n))
}

// waitFinal polls until no event is pending or processing.
func (r *directRun) waitFinal(within time.Duration) {
	var open []any
	for w, c := range r.m.OutboxStatus {
		if c == history.StatusPending || c == history.StatusProcessing {
			open = append(open, w)
		}
	}
	q := fmt.Sprintf("SELECT COUNT(*) FROM `%s` WHERE `%s` IN (?%s)", r.m.Outbox.Table, r.m.Outbox.Status,
		strings.Repeat(",?", len(open)-1))
	deadline := time.Now().Add(within)
	for {
		var n int
		require.NoError(r.t, r.db.QueryRowContext(testCtx(r.t), q, open...).Scan(&n))
		if n == 0 {
			return
		}
		require.True(r.t, time.Now().Before(deadline), "%d events still open after %s; logs:\n%s", n, within, r.logs())
		time.Sleep(100 * time.Millisecond)
	}
}

// requireDispatched checks every event's end against its kind: valid ones
// published with their job queued and exactly the contract's BullMQ job,
// poison ones failed with their reason and no job, already-queued ones
// published with no job.
func (r *directRun) requireDispatched() {
	t := r.t
	queued, err := r.m.JobWord(history.JobQueued)
	require.NoError(t, err)
	events := r.rec.Snapshot().Events
	require.NotEmpty(t, events)
	for _, e := range events {
		status, lastErr := r.outboxRow(e.ID)
		key := "bull:" + e.Queue + ":" + e.JobID
		data, err := r.rdb.HGet(testCtx(t), key, "data").Result()
		switch e.Kind {
		case history.KindValid:
			require.Equal(t, history.StatusPublished, r.m.OutboxStatus[status], "event %d (%s)", e.ID, lastErr)
			require.Equal(t, queued, r.jobStatus(e.JobID), "job of event %d", e.ID)
			require.NoError(t, err, "BullMQ job %s", key)
			var d map[string]any
			require.NoError(t, json.Unmarshal([]byte(data), &d))
			require.Equal(t, map[string]any{"jobId": e.JobID}, d)
		case history.KindAlreadyQueued:
			require.Equal(t, history.StatusPublished, r.m.OutboxStatus[status], "event %d (%s)", e.ID, lastErr)
			require.ErrorIs(t, err, redis.Nil, "no second add for a job already dispatched: %s", key)
		default:
			require.Equal(t, history.StatusFailed, r.m.OutboxStatus[status], "poison event %d (%s)", e.ID, e.Kind)
			require.Contains(t, lastErr, poisonReason[e.Kind], "poison event %d", e.ID)
			require.ErrorIs(t, err, redis.Nil, "no job for poison event %d", e.ID)
		}
	}
}

var poisonReason = map[string]string{
	history.KindUnknownType: "unknown_event_type", history.KindMissingJob: "job_not_found",
	history.KindQueueDenied: "queue_not_allowed", history.KindIllegalJobID: "illegal_job_id",
}

func (r *directRun) outboxRow(id int64) (status, lastErr string) {
	o := r.m.Outbox
	var le sql.NullString
	q := fmt.Sprintf("SELECT `%s`, `%s` FROM `%s` WHERE `%s` = ?", o.Status, o.LastError, o.Table, o.ID)
	require.NoError(r.t, r.db.QueryRowContext(testCtx(r.t), q, id).Scan(&status, &le))
	return status, le.String
}

func (r *directRun) jobStatus(id string) string {
	j := r.m.Jobs
	var s string
	q := fmt.Sprintf("SELECT `%s` FROM `%s` WHERE `%s` = ?", j.Status, j.Table, j.ID)
	require.NoError(r.t, r.db.QueryRowContext(testCtx(r.t), q, id).Scan(&s))
	return s
}

// termAll stops every instance with SIGTERM and requires exit code 0.
func (r *directRun) termAll() {
	for _, slot := range r.sup.Alive() {
		code, err := r.sup.Term(slot, time.Minute)
		require.NoError(r.t, err, "term %s; logs:\n%s", slot, r.logs())
		require.Equal(r.t, 0, code, "graceful stop of %s; logs:\n%s", slot, r.logs())
	}
}

func (r *directRun) logs() string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(r.logDir, "*.log"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 20 {
			lines = lines[len(lines)-20:]
		}
		fmt.Fprintf(&b, "== %s\n%s\n", filepath.Base(f), strings.Join(lines, "\n"))
	}
	return b.String()
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
