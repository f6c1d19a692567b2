package reference_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
)

// TestInjectedClockDrivesTheSQL: with WithClock every statement uses the
// injected "now" instead of NOW(6): due-ness, the lease end and the backoff.
func TestInjectedClockDrivesTheSQL(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.addValid("job-1")
	var dbNow time.Time
	require.NoError(t, e.DB.QueryRow(`SELECT NOW(6)`).Scan(&dbNow))

	clock := &manualClock{now: dbNow.Add(-time.Hour).Truncate(time.Microsecond)}
	cfg := e.Config("d1")
	e.breakQueue(queueA) // an error reply for the event's queue: a transient failure with backoff
	d := e.dispatcher(cfg, reference.WithClock(clock.Now))

	n, err := d.Poll(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "an hour ago by the injected clock, the event was not due")

	clock.Add(2 * time.Hour)
	claimNow := clock.Now()
	n, err = d.Poll(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)

	steps := e.audit(id)
	require.Len(t, steps, 2)
	var lockedUntil time.Time
	require.NoError(t, e.DB.QueryRow(`SELECT locked_until FROM audit WHERE event_id = ? AND new_status = 'processing'`, id).Scan(&lockedUntil))
	require.Equal(t, claimNow.Add(cfg.Lease).UTC(), lockedUntil.UTC(), "lease end = injected now + lease")

	retry := steps[1]
	require.Equal(t, "pending", retry.NewStatus)
	delay := retry.AvailableAt.Sub(claimNow)
	require.GreaterOrEqual(t, delay, cfg.BackoffBase/2)
	require.LessOrEqual(t, delay, cfg.BackoffBase, "available_at = injected now + backoff")
}
