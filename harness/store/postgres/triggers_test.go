package postgres_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/store/postgres"
)

func TestTriggersRecordReferenceTransitions(t *testing.T) {
	m := reference(t)
	db, dbURL := withSchema(t, m.DDL...)
	ctx := localtest.Context(t)
	require.NoError(t, postgres.InstallTriggers(ctx, db, m))
	require.NoError(t, postgres.InstallTriggers(ctx, db, m), "installing twice replaces the triggers")
	d1, role1 := loginRole(t, db, dbURL, "oc_d1")
	d2, role2 := loginRole(t, db, dbURL, "oc_d2")
	var admin string
	require.NoError(t, db.QueryRow("SELECT session_user").Scan(&admin))
	before := dbNow(t, db)

	tx, err := db.Begin()
	require.NoError(t, err)
	exec(t, tx, "INSERT INTO ai_jobs (id, queue_name, status) VALUES ('j1', 'ai-default', 'created')")
	exec(t, tx, `INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES ('ai.job.enqueue', 'j1', '{"jobId":"j1"}')`)
	require.NoError(t, tx.Commit())
	exec(t, d1, `UPDATE outbox_events SET status = 'processing', attempts = attempts + 1, locked_by = 'd1',
		lock_token = 'tok1', locked_until = clock_timestamp() + interval '2 seconds' WHERE id = 1`)
	exec(t, d2, `UPDATE outbox_events SET status = 'pending', last_error = 'redis down', lock_token = NULL,
		locked_by = NULL, locked_until = NULL, available_at = '2030-01-02 03:04:05.123456+00' WHERE id = 1`)

	tx, err = d1.Begin() // a rolled-back change leaves no transition
	require.NoError(t, err)
	exec(t, tx, "UPDATE outbox_events SET status = 'failed' WHERE id = 1")
	require.NoError(t, tx.Rollback())

	exec(t, d2, "UPDATE outbox_events SET status = 'weird' WHERE id = 1")
	exec(t, d1, "UPDATE ai_jobs SET status = 'queued' WHERE id = 'j1'")
	exec(t, db, "DELETE FROM ai_jobs WHERE id = 'j1'")
	after := dbNow(t, db)

	ts, err := postgres.ReadTransitions(ctx, db, m, 0)
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
	var writers []string
	for i, tr := range ts {
		writers = append(writers, tr.Writer)
		require.Equal(t, time.UTC, tr.At.Location())
		require.False(t, tr.At.Before(before), "transition %d at %s, before %s", i, tr.At, before)
		require.False(t, tr.At.After(after), "transition %d at %s, after %s", i, tr.At, after)
		if i > 0 {
			require.Greater(t, tr.Seq, ts[i-1].Seq)
			require.False(t, tr.At.Before(ts[i-1].At), "the statement clock never goes back")
		}
	}
	require.Equal(t, []string{admin, admin, role1, role2, role2, role1, admin}, writers, "the writer is the role that wrote")
	claim, release := ts[2], ts[3]
	require.Equal(t, 1, claim.Attempts)
	require.Equal(t, "d1", claim.LockedBy)
	require.Equal(t, "tok1", claim.LockToken)
	require.NotNil(t, claim.LockedUntil)
	requireLease(t, 2*time.Second, claim)
	require.Equal(t, "tok1", release.OldLockToken)
	require.Empty(t, release.LockToken)
	require.Equal(t, "redis down", release.LastError)
	require.Empty(t, release.OldLastError)
	require.Equal(t, time.Date(2030, 1, 2, 3, 4, 5, 123456000, time.UTC), *release.AvailableAt)
	require.Nil(t, release.LockedUntil)
	require.Equal(t, 0, ts[0].Attempts, "jobs rows carry no outbox columns")
	require.JSONEq(t, `{"id": "j1", "queue_name": "ai-default", "status": "queued"}`, onlyKeys(t, ts[6].OldImage, "id", "queue_name", "status"))
	require.Nil(t, ts[6].Image, "a delete has no image after it")
	require.Nil(t, ts[1].OldImage, "an insert has no image before it")

	later, err := postgres.ReadTransitions(ctx, db, m, ts[4].Seq)
	require.NoError(t, err)
	require.Equal(t, briefs(ts[5:]), briefs(later), "afterSeq skips what was read")

	require.NoError(t, postgres.DropTriggers(ctx, db, m))
	require.NoError(t, postgres.DropTriggers(ctx, db, m), "dropping twice")
	exec(t, d1, "UPDATE outbox_events SET status = 'published' WHERE id = 1")
	again, err := postgres.ReadTransitions(ctx, db, m, 0)
	require.NoError(t, err)
	require.Len(t, again, len(ts), "no transition after DropTriggers; the history stays readable")
}

func TestDispatcherRolesCannotTouchTheHistory(t *testing.T) {
	m := reference(t)
	db, dbURL := withSchema(t, m.DDL...)
	ctx := localtest.Context(t)
	// The role is made before the install, with privileges on every table
	// of public (as env.CreateRole gives them): oc_history is not there.
	d1, _ := loginRole(t, db, dbURL, "oc_d1")
	require.NoError(t, postgres.InstallTriggers(ctx, db, m))
	exec(t, d1, `INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES ('ai.job.enqueue', 'j1', '{"jobId":"j1"}')`)
	for _, q := range []string{
		"SELECT count(*) FROM outboxchaos.oc_history",
		"DELETE FROM outboxchaos.oc_history",
		"INSERT INTO outboxchaos.oc_history (tbl, row_id, op, at) VALUES ('outbox', '1', 'delete', now())",
	} {
		_, err := d1.Exec(q)
		require.ErrorContains(t, err, "permission denied for schema outboxchaos", q)
	}
	ts, err := postgres.ReadTransitions(ctx, db, m, 0)
	require.NoError(t, err)
	require.Equal(t, []brief{{"outbox", "1", "insert", "", "pending"}}, briefs(ts))
	var inPublic int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public' AND table_name LIKE 'oc%'").Scan(&inPublic))
	require.Zero(t, inPublic, "the dispatcher's schema holds none of the harness's tables")
}

func TestTimesAreTheStatementClock(t *testing.T) {
	m := reference(t)
	db, dbURL := withSchema(t, m.DDL...)
	ctx := localtest.Context(t)
	require.NoError(t, postgres.InstallTriggers(ctx, db, m))
	exec(t, db, `INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES ('ai.job.enqueue', 'j1', '{"jobId":"j1"}')`)
	d1, _ := loginRole(t, db, dbURL, "oc_d1")

	// One long transaction, in a session whose time zone is not UTC: a
	// claim, then, once the statement clock has moved 100 ms past the
	// transaction's start, a lease renewal computed with now().
	tx, err := d1.Begin()
	require.NoError(t, err)
	exec(t, tx, "SET LOCAL TimeZone = 'Asia/Tokyo'")
	var start time.Time
	require.NoError(t, tx.QueryRow("SELECT now()").Scan(&start))
	exec(t, tx, `UPDATE outbox_events SET status = 'processing', locked_until = clock_timestamp() + interval '2 seconds' WHERE id = 1`)
	waitClock(t, tx, start.Add(100*time.Millisecond))
	exec(t, tx, `UPDATE outbox_events SET locked_until = now() + interval '2 seconds' WHERE id = 1`)
	require.NoError(t, tx.Commit())

	ts, err := postgres.ReadTransitions(ctx, db, m, 0)
	require.NoError(t, err)
	require.Len(t, ts, 3)
	claim, renewal := ts[1], ts[2]
	require.False(t, claim.At.Before(start.UTC()), "recorded on the statement clock, not before the transaction began")
	require.GreaterOrEqual(t, renewal.At.Sub(start), 100*time.Millisecond, "not at the transaction's start")
	requireLease(t, 2*time.Second, claim)
	require.Equal(t, start.Add(2*time.Second).UTC(), *renewal.LockedUntil, "now() is the transaction's start, in any time zone")
	require.Less(t, renewal.LockedUntil.Sub(renewal.At), 1900*time.Millisecond,
		"a lease computed with now() in a long transaction is shorter than it says, and the history shows it")
	var img struct {
		LockedUntil string `json:"locked_until"`
	}
	require.NoError(t, jsonUnmarshal(renewal.Image, &img))
	require.Equal(t, renewal.LockedUntil.Format("2006-01-02 15:04:05.000000"), img.LockedUntil, "images hold times in UTC, as MySQL's")
}

// requireLease checks that tr's lease, computed by its statement, reads
// as lease at most: the trigger's clock runs after the statement's own
// clock_timestamp(), by the time the statement took to reach the row.
func requireLease(t *testing.T, lease time.Duration, tr history.Transition) {
	t.Helper()
	require.NotNil(t, tr.LockedUntil)
	left := tr.LockedUntil.Sub(tr.At)
	require.LessOrEqual(t, left, lease)
	require.Greater(t, left, lease-300*time.Millisecond)
}

// waitClock polls the statement clock in tx until it passes at: time has
// to pass inside the transaction, which no signal can stand in for.
func waitClock(t *testing.T, tx *sql.Tx, at time.Time) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var passed bool
		require.NoError(t, tx.QueryRow("SELECT clock_timestamp() > $1", at).Scan(&passed))
		if passed {
			return
		}
		require.True(t, time.Now().Before(deadline), "the statement clock did not pass %s", at)
	}
}

func TestAWriteThatWaitedOnALockIsStampedAfterTheWriteItWaitedFor(t *testing.T) {
	m := reference(t)
	db, dbURL := withSchema(t, m.DDL...)
	ctx := localtest.Context(t)
	require.NoError(t, postgres.InstallTriggers(ctx, db, m))
	exec(t, db, `INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES ('ai.job.enqueue', 'j1', '{"jobId":"j1"}')`)
	d1, _ := loginRole(t, db, dbURL, "oc_d1")
	d2, role2 := loginRole(t, db, dbURL, "oc_d2")

	// d1 claims and holds the row; d2's claim starts and waits on the lock;
	// d1 releases and commits; d2's claim then writes.
	tx, err := d1.Begin()
	require.NoError(t, err)
	exec(t, tx, "UPDATE outbox_events SET status = 'processing', locked_by = 'd1' WHERE id = 1")
	done := make(chan error, 1)
	go func() {
		_, err := d2.ExecContext(ctx, "UPDATE outbox_events SET status = 'processing', locked_by = 'd2' WHERE id = 1 AND status = 'pending'")
		done <- err
	}()
	require.Eventually(t, func() bool {
		var waiting bool
		require.NoError(t, db.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock')`, role2).Scan(&waiting))
		return waiting
	}, 10*time.Second, 5*time.Millisecond, "d2's claim waits on d1's lock")
	exec(t, tx, "UPDATE outbox_events SET status = 'pending', locked_by = NULL WHERE id = 1")
	require.NoError(t, tx.Commit())
	require.NoError(t, <-done)

	ts, err := postgres.ReadTransitions(ctx, db, m, 0)
	require.NoError(t, err)
	require.Equal(t, []brief{
		{"outbox", "1", "insert", "", "pending"},
		{"outbox", "1", "update", "pending", "processing"},
		{"outbox", "1", "update", "processing", "pending"},
		{"outbox", "1", "update", "pending", "processing"},
	}, briefs(ts))
	release, takeover := ts[2], ts[3]
	require.Equal(t, "d2", takeover.LockedBy)
	require.True(t, takeover.At.After(release.At), "the takeover at %s is stamped after the release at %s", takeover.At, release.At)
}
