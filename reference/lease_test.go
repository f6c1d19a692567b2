package reference_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/reference/failpoint"
)

// TestLeaseRecoveryReturnsOnlyExpiredClaims: a claim whose owner vanished is
// returned to pending only after its lease plus the margin, on the database
// clock, with attempts and last_error kept; a row finalized or re-claimed
// meanwhile is left alone.
func TestLeaseRecoveryReturnsOnlyExpiredClaims(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	lost, finalized, reclaimed := e.addValid("job-lost"), e.addValid("job-fin"), e.addValid("job-re")
	_, err := e.DB.Exec(`UPDATE outbox_events SET last_error = 'an earlier failure' WHERE id = ?`, lost)
	require.NoError(t, err)
	availableBefore := e.event(lost).AvailableAt

	cfg := e.Config("owner")
	cfg.Lease = time.Second
	cfg.RecoveryMargin = 300 * time.Millisecond
	owner := e.dispatcher(cfg)
	b, err := owner.Claim(ctx)
	require.NoError(t, err)
	require.Len(t, b.Events, 3)

	other := e.dispatcher(func() reference.Config { c := cfg; c.InstanceID = "other"; return c }())
	n, err := other.RecoverExpired(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "a live lease is never recovered")

	// Meanwhile one row was finalized (its lease long gone) and one was
	// re-claimed by someone else.
	_, err = e.DB.Exec(`UPDATE outbox_events SET status = 'published', locked_until = NOW(6) - INTERVAL 1 HOUR WHERE id = ?`, finalized)
	require.NoError(t, err)
	_, err = e.DB.Exec(`UPDATE outbox_events SET locked_by = 'third', lock_token = 'third-token', locked_until = NOW(6) + INTERVAL 1 HOUR WHERE id = ?`, reclaimed)
	require.NoError(t, err)

	var recovered int64
	e.waitFor("the lost claim to be recovered", func() bool {
		n, err := other.RecoverExpired(ctx)
		require.NoError(t, err)
		recovered += n
		return recovered > 0
	})
	require.EqualValues(t, 1, recovered, "only the expired claim")
	require.Equal(t, 1, other.Stats().Recovered)

	row := e.event(lost)
	require.Equal(t, "pending", row.Status)
	require.False(t, row.LockedBy.Valid || row.LockToken.Valid || row.LockedUntil.Valid, "the lock is cleared")
	require.Equal(t, 1, row.Attempts, "attempts count claims; recovery keeps them")
	require.Equal(t, "an earlier failure", row.LastError.String, "recovery is not a transient failure")
	require.Equal(t, availableBefore, row.AvailableAt, "no backoff on recovery")

	steps := e.audit(lost)
	claim, recovery := steps[len(steps)-2], steps[len(steps)-1]
	require.Equal(t, "processing", claim.NewStatus)
	require.Equal(t, "pending", recovery.NewStatus)
	var claimUntil time.Time
	require.NoError(t, e.DB.QueryRow(`SELECT locked_until FROM audit WHERE event_id = ? AND new_status = 'processing'`, lost).Scan(&claimUntil))
	require.False(t, recovery.At.Before(claimUntil.Add(cfg.RecoveryMargin)),
		"recovered at %v, before the lease end %v plus the margin", recovery.At, claimUntil)

	require.Equal(t, "published", e.event(finalized).Status)
	re := e.event(reclaimed)
	require.Equal(t, "processing", re.Status)
	require.Equal(t, "third-token", re.LockToken.String)

	// The vanished owner comes back: its lease is over, so it adds nothing
	// and every write it tries is fenced out.
	require.NoError(t, owner.Process(ctx, b))
	require.Zero(t, e.addCalls(queueA))
	require.Equal(t, 3, owner.Stats().FencedOut)
	require.Equal(t, "third-token", e.event(reclaimed).LockToken.String)
}

// TestPausedOwnerIsFencedOutAtFinalize: the owner pauses after its add, past
// its lease; another instance recovers the event, re-adds (a no-op) and
// publishes it; the owner wakes up and its finalize writes nothing.
func TestPausedOwnerIsFencedOutAtFinalize(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.addValid("job-1")
	cfg := e.Config("paused")
	cfg.Lease = time.Second
	cfg.RecoveryMargin = 100 * time.Millisecond

	entered, resume := make(chan struct{}), make(chan struct{})
	fp, err := failpoint.Parse("after-enqueue=sleep(1h)", 1)
	require.NoError(t, err)
	fp.WithRuntime(failpoint.Runtime{Sleep: func(time.Duration) { close(entered); <-resume }})
	paused := e.dispatcher(cfg, reference.WithFailpoints(fp))
	done := make(chan error, 1)
	go func() { _, err := paused.Poll(ctx); done <- err }()
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the paused owner never reached after-enqueue")
	}
	require.True(t, e.jobExists(queueA, "job-1"), "the paused owner added the job")

	cfg.InstanceID = "taker"
	taker := e.dispatcher(cfg)
	e.waitFor("the taker to recover the lease", func() bool {
		n, err := taker.RecoverExpired(ctx)
		require.NoError(t, err)
		return n == 1
	})
	n, err := taker.Poll(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, "published", e.event(id).Status)

	close(resume)
	require.NoError(t, <-done)
	require.Equal(t, 1, paused.Stats().FencedOut)
	require.Zero(t, paused.Stats().PublishedTotal())

	row := e.event(id)
	require.Equal(t, "taker", row.LockedBy.String)
	var published []auditRow
	for _, a := range e.audit(id) {
		if a.NewStatus == "published" {
			published = append(published, a)
		}
	}
	require.Len(t, published, 1, "one finalize only")
	require.Equal(t, "taker", published[0].LockedBy.String)
	require.Equal(t, 1, taker.Stats().Published[reference.HowDuplicate], "the taker's add was a no-op")
	require.Equal(t, 2, e.addCalls(queueA))
	require.Equal(t, 1, e.streamAdded(queueA, "job-1"), "one BullMQ job")
	require.Equal(t, "queued", e.JobStatus("job-1"))
}

// manualClock is a local clock a test moves by hand.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *manualClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestLeaseCheckStopsALateAdd: when no more than the publish timeout is left
// of the lease, the batch is released untouched instead of added.
func TestLeaseCheckStopsALateAdd(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.addValid("job-1")
	cfg := e.Config("d1")
	clock := &manualClock{now: time.Now()}
	d := e.dispatcher(cfg, reference.WithLocalClock(clock.Now))

	b, err := d.Claim(ctx)
	require.NoError(t, err)
	clock.Add(cfg.Lease - cfg.PublishTimeout)
	require.NoError(t, d.Process(ctx, b))

	require.Zero(t, e.addCalls(queueA), "no add with too little lease left")
	row := e.event(id)
	require.Equal(t, "pending", row.Status)
	require.False(t, row.LastError.Valid, "a release is not a failure")
	require.False(t, row.LockToken.Valid)
	require.Equal(t, 1, d.Stats().Released)

	// A fresh claim has a full lease and goes through.
	_, err = d.Poll(ctx)
	require.NoError(t, err)
	require.Equal(t, "published", e.event(id).Status)
	require.Equal(t, 2, e.event(id).Attempts)
}
