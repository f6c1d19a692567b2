package observe_test

import (
	"database/sql"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

func exec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	_, err := db.Exec(q, args...)
	require.NoError(t, err, q)
}

func dbNow(t *testing.T, db *sql.DB) time.Time {
	t.Helper()
	var s string
	require.NoError(t, db.QueryRow("SELECT DATE_FORMAT(NOW(6), '%Y-%m-%d %H:%i:%s.%f')").Scan(&s))
	now, err := time.ParseInLocation("2006-01-02 15:04:05.000000", s, time.UTC)
	require.NoError(t, err)
	return now
}

// brief is a transition without its sequence, time and times, for comparing.
type brief struct {
	Table, Row, Op, Old, New string
}

func briefs(ts []history.Transition) []brief {
	var out []brief
	for _, t := range ts {
		out = append(out, brief{t.Table, t.Key, t.Op, t.OldStatus, t.NewStatus})
	}
	return out
}

func TestTriggersRecordReferenceTransitions(t *testing.T) {
	m := schema.Reference()
	db := withSchema(t, m)
	ctx := localtest.Context(t)
	require.NoError(t, observe.InstallTriggers(ctx, db, m))
	require.NoError(t, observe.InstallTriggers(ctx, db, m), "installing twice replaces the triggers")
	before := dbNow(t, db)

	tx, err := db.Begin()
	require.NoError(t, err)
	_, err = tx.Exec("INSERT INTO ai_jobs (id, queue_name, status) VALUES ('j1', 'ai-default', 'created')")
	require.NoError(t, err)
	_, err = tx.Exec(`INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES ('ai.job.enqueue', 'j1', '{"jobId":"j1"}')`)
	require.NoError(t, err)
	require.NoError(t, tx.Commit())
	exec(t, db, `UPDATE outbox_events SET status = 'processing', attempts = attempts + 1, locked_by = 'd1',
		lock_token = 'tok1', locked_until = NOW(6) + INTERVAL 2 SECOND WHERE id = 1`)
	exec(t, db, `UPDATE outbox_events SET status = 'pending', last_error = 'redis down', lock_token = NULL,
		locked_by = NULL, locked_until = NULL, available_at = '2030-01-02 03:04:05.123456' WHERE id = 1`)

	tx, err = db.Begin() // a rolled-back change leaves no transition
	require.NoError(t, err)
	_, err = tx.Exec("UPDATE outbox_events SET status = 'failed' WHERE id = 1")
	require.NoError(t, err)
	require.NoError(t, tx.Rollback())

	exec(t, db, "UPDATE outbox_events SET status = 'weird' WHERE id = 1")
	exec(t, db, "UPDATE ai_jobs SET status = 'queued' WHERE id = 'j1'")
	exec(t, db, "DELETE FROM ai_jobs WHERE id = 'j1'")
	after := dbNow(t, db)

	ts, err := observe.ReadTransitions(ctx, db, m, 0)
	require.NoError(t, err)
	require.Equal(t, []brief{
		{"jobs", "j1", "insert", "", "created"},
		{"outbox", "1", "insert", "", "pending"},
		{"outbox", "1", "update", "pending", "processing"},
		{"outbox", "1", "update", "processing", "pending"},
		{"outbox", "1", "update", "pending", observe.UnmappedPrefix + "weird"},
		{"jobs", "j1", "update", "created", "queued"},
		{"jobs", "j1", "delete", "queued", ""},
	}, briefs(ts))
	for i, tr := range ts {
		require.False(t, tr.At.Before(before), "transition %d at %s, before %s", i, tr.At, before)
		require.False(t, tr.At.After(after), "transition %d at %s, after %s", i, tr.At, after)
		if i > 0 {
			require.Greater(t, tr.Seq, ts[i-1].Seq)
			require.False(t, tr.At.Before(ts[i-1].At), "DB time never goes back")
		}
	}
	claim, release := ts[2], ts[3]
	require.Equal(t, 1, claim.Attempts)
	require.Equal(t, "d1", claim.LockedBy)
	require.Equal(t, "tok1", claim.LockToken)
	require.NotNil(t, claim.LockedUntil)
	require.InDelta(t, 2*time.Second, claim.LockedUntil.Sub(claim.At), float64(10*time.Millisecond))
	require.Equal(t, "tok1", release.OldLockToken)
	require.Empty(t, release.LockToken)
	require.Equal(t, "redis down", release.LastError)
	require.Empty(t, release.OldLastError)
	require.Equal(t, time.Date(2030, 1, 2, 3, 4, 5, 123456000, time.UTC), *release.AvailableAt)
	require.Equal(t, 0, ts[0].Attempts, "jobs rows carry no outbox columns")

	later, err := observe.ReadTransitions(ctx, db, m, ts[4].Seq)
	require.NoError(t, err)
	require.Equal(t, briefs(ts[5:]), briefs(later), "afterSeq skips what was read")

	require.NoError(t, observe.DropTriggers(ctx, db, m))
	exec(t, db, "UPDATE outbox_events SET status = 'published' WHERE id = 1")
	again, err := observe.ReadTransitions(ctx, db, m, 0)
	require.NoError(t, err)
	require.Len(t, again, len(ts), "no transition after DropTriggers; the history stays readable")
}

// roomMapping is a foreign schema shaped like the room-service guide's.
func roomMapping() schema.Mapping {
	return schema.Mapping{
		DDL: []string{
			`CREATE TABLE room_jobs (job_key VARCHAR(64) NOT NULL PRIMARY KEY, target_queue VARCHAR(64) NOT NULL,
				state VARCHAR(16) NOT NULL)`,
			`CREATE TABLE room_outbox (event_id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, topic VARCHAR(64) NOT NULL,
				room_job VARCHAR(64) NOT NULL, body TEXT NOT NULL, state VARCHAR(16) NOT NULL,
				retry_count INT NOT NULL DEFAULT 0, next_retry_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
				lock_owner VARCHAR(64) NULL, lock_until DATETIME(6) NULL, error_message TEXT NULL)`,
		},
		Outbox: schema.Outbox{Table: "room_outbox", ID: "event_id", EventType: "topic", AggregateID: "room_job",
			Payload: "body", Status: "state", Attempts: "retry_count", AvailableAt: "next_retry_at",
			LockedBy: "lock_owner", LockedUntil: "lock_until", LastError: "error_message"},
		Jobs: schema.Jobs{Table: "room_jobs", ID: "job_key", Queue: "target_queue", Status: "state"},
		OutboxStatus: map[string]string{"pending": "pending", "delivering": "processing", "delivered": "published",
			"retryable": "pending", "failed": "failed"},
		JobStatus: map[string]string{"new": "created", "sent": "queued", "working": "running", "done": "succeeded"},
	}
}

func TestTriggersMapAForeignSchema(t *testing.T) {
	m := roomMapping()
	require.NoError(t, m.Validate())
	db := withSchema(t, m)
	ctx := localtest.Context(t)
	require.NoError(t, observe.InstallTriggers(ctx, db, m))

	rec := history.NewRecorder(history.Meta{})
	p, err := workload.NewProducer(workload.ProducerConfig{DB: db, Schema: m, Queues: []string{"rooms"},
		Mix: workload.Mix{Valid: 1}, Rand: rand.New(rand.NewPCG(1, 1)), Recorder: rec, RunID: "room"})
	require.NoError(t, err)
	require.NoError(t, p.Produce(ctx, 1))
	ev := rec.Snapshot().Events[0]

	exec(t, db, "UPDATE room_outbox SET state = 'delivering', retry_count = 1, lock_owner = 'w1', lock_until = NOW(6) WHERE event_id = ?", ev.ID)
	exec(t, db, "UPDATE room_outbox SET state = 'retryable', error_message = 'timeout', lock_owner = NULL WHERE event_id = ?", ev.ID)
	exec(t, db, "UPDATE room_outbox SET state = 'delivering', retry_count = 2, lock_owner = 'w2' WHERE event_id = ?", ev.ID)
	exec(t, db, "UPDATE room_outbox SET state = 'delivered' WHERE event_id = ?", ev.ID)
	exec(t, db, "UPDATE room_jobs SET state = 'sent' WHERE job_key = ?", ev.JobID)

	ts, err := observe.ReadTransitions(ctx, db, m, 0)
	require.NoError(t, err)
	row := "1"
	require.Equal(t, []brief{
		{"jobs", ev.JobID, "insert", "", "created"},
		{"outbox", row, "insert", "", "pending"},
		{"outbox", row, "update", "pending", "processing"},
		{"outbox", row, "update", "processing", "pending"},
		{"outbox", row, "update", "pending", "processing"},
		{"outbox", row, "update", "processing", "published"},
		{"jobs", ev.JobID, "update", "created", "queued"},
	}, briefs(ts))
	require.Equal(t, "timeout", ts[3].LastError)
	require.Equal(t, 2, ts[4].Attempts)
	require.Equal(t, "w2", ts[4].LockedBy)
	require.Empty(t, ts[4].LockToken, "the mapping names no lock token column")
	require.NotNil(t, ts[2].LockedUntil)
	require.NotNil(t, ts[2].AvailableAt)
}

func TestInstallTriggersRejectsBadMappings(t *testing.T) {
	m := roomMapping()
	db := withSchema(t, m)
	ctx := localtest.Context(t)

	for _, tc := range []struct {
		name  string
		spoil func(*schema.Mapping)
		want  string
	}{
		{"missing column", func(m *schema.Mapping) { m.Outbox.LockToken = "lock_token" },
			"column room_outbox.lock_token named by the schema mapping does not exist"},
		{"not a time", func(m *schema.Mapping) { m.Outbox.LockedUntil = "error_message" }, "must be DATETIME or TIMESTAMP"},
		{"no table", func(m *schema.Mapping) { m.Jobs.Table = "nowhere" }, "table nowhere not found"},
		{"invalid", func(m *schema.Mapping) { m.Outbox.Payload = "" }, "outbox.payload"},
	} {
		bad := roomMapping()
		tc.spoil(&bad)
		require.ErrorContains(t, observe.InstallTriggers(ctx, db, bad), tc.want, tc.name)
	}
}
