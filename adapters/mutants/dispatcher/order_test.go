package dispatcher

import (
	"context"
	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
)

// addInAggregate writes a valid event whose payload names aggregate agg.
func (e *env) addInAggregate(job, agg string) int64 {
	e.t.Helper()
	_, err := e.db.Exec(`INSERT INTO ai_jobs (id, queue_name, status) VALUES (?, ?, 'created')`, job, queueA)
	require.NoError(e.t, err)
	res, err := e.db.Exec(`INSERT INTO outbox_events (event_type, aggregate_id, payload) VALUES (?, ?, JSON_OBJECT('jobId', ?, 'aggregate', ?))`,
		reference.EventTypeEnqueue, job, job, agg)
	require.NoError(e.t, err)
	id, err := res.LastInsertId()
	require.NoError(e.t, err)
	return id
}

// claimedIDs is what one claim of d takes (released again by the test).
func claimedIDs(t *testing.T, d *Dispatcher) []int64 {
	t.Helper()
	b, err := d.claim(context.Background())
	require.NoError(t, err)
	return b.ids()
}

// The base claims only the head of an aggregate: the first event, even
// while it waits out a backoff, holds the second; events of other
// aggregates, and events naming none, are not held. order-after-backoff
// lets the second overtake the first in backoff.
func TestOrderGuardHoldsLaterEventsOfAnAggregate(t *testing.T) {
	for _, c := range []struct {
		bug       string
		overtakes bool
	}{{"", false}, {names.BugOrderAfterBackoff, true}} {
		e := newEnv(t)
		first := e.addInAggregate("job-a1", "agg-a")
		second := e.addInAggregate("job-a2", "agg-a")
		other := e.addInAggregate("job-b1", "agg-b")
		plain := e.addValid("job-plain")
		d := e.dispatcher(e.config("d1", c.bug))
		require.ElementsMatch(t, []int64{first, other, plain}, claimedIDs(t, d), "bug %q: the heads and the event without an aggregate", c.bug)

		// The first fails and backs off; the others are done.
		_, err := e.db.Exec(`UPDATE outbox_events SET status = 'pending', lock_token = NULL, locked_by = NULL, locked_until = NULL,
			available_at = NOW(6) + INTERVAL 1 HOUR WHERE id = ?`, first)
		require.NoError(t, err)
		_, err = e.db.Exec(`UPDATE outbox_events SET status = 'published' WHERE id IN (?, ?)`, other, plain)
		require.NoError(t, err)
		got := claimedIDs(t, d)
		if c.overtakes {
			require.Equal(t, []int64{second}, got, "order-after-backoff: the second overtakes the first in backoff")
		} else {
			require.Empty(t, got, "base: the first in backoff holds the second")
		}
	}
}

// app-clock-lease writes locked_until from the instance's clock. The
// dispatcher's MySQL session runs an hour ahead (SET timestamp through the
// DSN: the database clock of that session is an hour after the
// application's), so the base's lease end is an hour out on the true
// clock, the bug's only a lease out: an hour before the claim on the
// session's database clock.
func TestAppClockLeaseTakesTheInstanceClock(t *testing.T) {
	for _, c := range []struct {
		bug  string
		from time.Duration // where the lease end lies, from the true time
	}{{"", time.Hour}, {names.BugAppClockLease, 0}} {
		e := newEnv(t)
		id := e.addValid("job-a")
		ahead, err := reference.OpenMySQL(e.DSN + "&timestamp=" + strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
		require.NoError(t, err)
		t.Cleanup(func() { _ = ahead.Close() })
		d := e.dispatcher(e.config("d1", c.bug), WithDB(ahead))
		require.Equal(t, []int64{id}, claimedIDs(t, d))
		var micros int64
		require.NoError(t, e.db.QueryRow(`SELECT TIMESTAMPDIFF(MICROSECOND, NOW(6), locked_until) FROM outbox_events WHERE id = ?`, id).Scan(&micros))
		off := time.Duration(micros)*time.Microsecond - d.cfg.Lease
		require.InDelta(t, c.from.Seconds(), off.Seconds(), 5, "bug %q: lease end %s from the true time, want about %s", c.bug, off, c.from)
	}
}
