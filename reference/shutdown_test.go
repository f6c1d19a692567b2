package reference_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/reference/failpoint"
)

// gate is a failpoint sleep the test controls: it reports when the
// dispatcher reaches it and holds it there until opened.
type gate struct{ entered, open chan struct{} }

func newGate() *gate { return &gate{entered: make(chan struct{}), open: make(chan struct{})} }

func (g *gate) sleep(time.Duration) { close(g.entered); <-g.open }

func (g *gate) failpoints(t *testing.T, name failpoint.Name) *failpoint.Set {
	fp, err := failpoint.Parse(string(name)+"=sleep(1h)@nth:1", 1)
	require.NoError(t, err)
	return fp.WithRuntime(failpoint.Runtime{Sleep: g.sleep})
}

func (g *gate) waitEntered(t *testing.T) {
	select {
	case <-g.entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the dispatcher never reached the failpoint")
	}
}

// startRun runs d until the returned cancel; done yields Run's result.
func startRun(d *reference.Dispatcher) (cancel context.CancelFunc, done <-chan error) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	go func() { ch <- d.Run(ctx) }()
	return cancel, ch
}

func waitRun(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
	}
}

// markEarlier gives the event a last_error and a past available_at, so the
// test can see that a release leaves both alone.
func (e *env) markEarlier(id int64) eventRow {
	e.t.Helper()
	_, err := e.DB.Exec(`UPDATE outbox_events SET last_error = 'an earlier failure',
		available_at = NOW(6) - INTERVAL 1 MINUTE WHERE id = ?`, id)
	require.NoError(e.t, err)
	return e.event(id)
}

func TestGracefulStopReleasesABatchNotYetAdded(t *testing.T) {
	e := newEnv(t)
	id := e.addValid("job-1")
	before := e.markEarlier(id)
	g := newGate()
	d := e.dispatcher(e.Config("d1"), reference.WithFailpoints(g.failpoints(t, failpoint.AfterClaim)))
	cancel, done := startRun(d)
	g.waitEntered(t)
	cancel() // the stop arrives while the batch is held
	close(g.open)
	waitRun(t, done)

	row := e.event(id)
	require.Equal(t, "pending", row.Status)
	require.Equal(t, 1, row.Attempts)
	require.Equal(t, before.LastError, row.LastError, "a release never touches last_error")
	require.Equal(t, before.AvailableAt, row.AvailableAt, "a release adds no backoff")
	require.False(t, row.LockedBy.Valid || row.LockToken.Valid || row.LockedUntil.Valid)
	require.Zero(t, e.addCalls(queueA), "nothing was added after the stop")
	require.Equal(t, 1, d.Stats().Released)
}

func TestGracefulStopFinishesABatchAlreadyAdded(t *testing.T) {
	e := newEnv(t)
	id := e.addValid("job-1")
	g := newGate()
	d := e.dispatcher(e.Config("d1"), reference.WithFailpoints(g.failpoints(t, failpoint.AfterEnqueue)))
	cancel, done := startRun(d)
	g.waitEntered(t)
	cancel()
	close(g.open)
	waitRun(t, done)

	require.Equal(t, "published", e.event(id).Status)
	require.Equal(t, "queued", e.JobStatus("job-1"))
	require.Zero(t, d.Stats().Released)
}

// TestGracefulStopReleasesWhenTheTimeoutCutsIn: the batch in flight stalls
// past OUTBOX_SHUTDOWN_TIMEOUT; its finalize is abandoned and the rows are
// released, last_error untouched.
func TestGracefulStopReleasesWhenTheTimeoutCutsIn(t *testing.T) {
	e := newEnv(t)
	id := e.addValid("job-1")
	before := e.markEarlier(id)
	cfg := e.Config("d1")
	cfg.ShutdownTimeout = 200 * time.Millisecond
	cfg.Failpoints = "after-enqueue=sleep(1500ms)"
	d := e.dispatcher(cfg)
	cancel, done := startRun(d)
	e.waitFor("the add", func() bool { return e.jobExists(queueA, "job-1") })
	started := time.Now()
	cancel()
	waitRun(t, done)
	require.Less(t, time.Since(started), 20*time.Second)

	row := e.event(id)
	require.Equal(t, "pending", row.Status)
	require.Equal(t, before.LastError, row.LastError)
	require.Equal(t, before.AvailableAt, row.AvailableAt)
	require.Equal(t, "created", e.JobStatus("job-1"), "the finalize did not run")
	require.Equal(t, 1, d.Stats().Released)
}
