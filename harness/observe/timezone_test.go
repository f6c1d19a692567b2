package observe_test

import (
	"database/sql"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// A server (or session) in +07:00 writes NOW(6) seven hours ahead of UTC
// into DATETIME columns. The history must still read UTC: the record's
// time on the harness's clock, and the lease and backoff ends the same
// span after it as the dispatcher wrote them. A value written as
// application time in another zone (-05:00 wall time into a +07:00
// session) stays twelve hours off, as the dispatcher's own comparisons
// with NOW(6) see it.
func TestTriggersRecordUTCFromASessionInAnotherZone(t *testing.T) {
	m := schema.Reference()
	_, dsn := localtest.MySQLWith(t, m.DDL...)
	db, err := sql.Open("mysql", dsn+"&time_zone="+url.QueryEscape("'+07:00'"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	ctx := localtest.Context(t)
	var zone string
	require.NoError(t, db.QueryRow("SELECT @@session.time_zone").Scan(&zone))
	require.Equal(t, "+07:00", zone)
	require.NoError(t, observe.InstallTriggers(ctx, db, m))

	before := time.Now().UTC()
	exec(t, db, "INSERT INTO ai_jobs (id, queue_name, status) VALUES ('j1', 'ai-default', 'created')")
	exec(t, db, `INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES ('ai.job.enqueue', 'j1', '{"jobId":"j1"}')`)
	exec(t, db, `UPDATE outbox_events SET status = 'processing', attempts = 1, locked_by = 'd1',
		lock_token = 'tok1', locked_until = NOW(6) + INTERVAL 2 SECOND WHERE id = 1`)
	exec(t, db, `UPDATE outbox_events SET status = 'pending', last_error = 'redis down', lock_token = NULL,
		locked_by = NULL, locked_until = NULL, available_at = NOW(6) + INTERVAL 3 SECOND WHERE id = 1`)
	newYork := time.FixedZone("-05:00", -5*3600)
	local := time.Now().In(newYork).Add(2 * time.Second).Format("2006-01-02 15:04:05.000000")
	exec(t, db, `UPDATE outbox_events SET status = 'processing', attempts = 2, locked_by = 'd2',
		lock_token = 'tok2', locked_until = ? WHERE id = 1`, local)
	exec(t, db, "UPDATE outbox_events SET status = 'published', published_at = NOW(6), locked_until = NULL WHERE id = 1")
	after := time.Now().UTC()

	ts, err := observe.ReadTransitions(ctx, db, m, 0)
	require.NoError(t, err)
	require.Len(t, ts, 6)
	const slack = 50 * time.Millisecond // the server's clock is this machine's
	for i, tr := range ts {
		require.False(t, tr.At.Before(before.Add(-slack)), "transition %d at %s, before %s: the +07:00 session shifted it", i, tr.At, before)
		require.False(t, tr.At.After(after.Add(slack)), "transition %d at %s, after %s: the +07:00 session shifted it", i, tr.At, after)
	}
	claim, retry, local12 := ts[2], ts[3], ts[4]
	require.InDelta(t, 2*time.Second, claim.LockedUntil.Sub(claim.At), float64(time.Millisecond))
	require.InDelta(t, 3*time.Second, retry.AvailableAt.Sub(retry.At), float64(time.Millisecond))
	require.InDelta(t, -12*time.Hour+2*time.Second, local12.LockedUntil.Sub(local12.At), float64(time.Second),
		"-05:00 wall time written into a +07:00 session is twelve hours early")

	rows, err := observe.ScanOutboxRows(ctx, db, m)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	require.NotNil(t, rows[0].PublishedAt)
	require.WithinRange(t, *rows[0].PublishedAt, before.Add(-slack), after.Add(slack), "published_at read as UTC")
	require.WithinRange(t, rows[0].Created, before.Add(-slack), after.Add(slack), "created_at read as UTC")
}
