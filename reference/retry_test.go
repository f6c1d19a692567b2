package reference_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference"
)

// breakQueue makes every add to queue fail with an error reply about that
// queue alone: its id counter, which the add script INCRs first, becomes a
// hash, so Redis answers WRONGTYPE for this queue's adds and nothing else.
// It stands in for the per-queue error fault until the harness has one.
func (e *env) breakQueue(queue string) {
	e.t.Helper()
	require.NoError(e.t, e.Redis.HSet(context.Background(), "bull:"+queue+":id", "broken", "1").Err())
}

// TestErrorReplyForOneQueueBacksOffToTheCapThenFails: Redis answers every
// add to one queue with an error reply (WRONGTYPE), and answers the other
// queue normally. The event of the broken queue is a transient failure of
// its own each time: back to pending with a new last_error and available_at
// pushed out by a jittered backoff that grows up to the cap, no claim before
// available_at, and failed at the maximum attempts. The other queue's event
// is published, and the Redis breaker stays closed throughout.
func TestErrorReplyForOneQueueBacksOffToTheCapThenFails(t *testing.T) {
	e := newEnv(t)
	id := e.addValid("job-1")
	other := e.addEvent(reference.EventTypeEnqueue, "job-other", queueB, "created")
	e.breakQueue(queueA)
	cfg := e.Config("d1")
	cfg.MaxAttempts = 5
	cfg.BackoffBase = 100 * time.Millisecond
	cfg.BackoffMax = 400 * time.Millisecond
	cfg.MetricsAddr = "127.0.0.1:0"
	d := e.dispatcher(cfg)
	stop := e.run(d)
	e.waitFor("the event to fail", func() bool { return e.event(id).Status == "failed" })
	code, body := get(t, "http://"+d.MetricsAddr()+"/healthz")
	stop()

	require.Equal(t, "published", e.event(other).Status, "the healthy queue publishes")
	require.True(t, e.jobExists(queueB, "job-other"))
	require.False(t, e.jobExists(queueA, "job-1"))
	require.Equal(t, http.StatusOK, code, "an error reply about one queue is no outage: %s", body)
	require.Contains(t, body, `"redis":{"state":"closed"`)

	var claims, retries []auditRow
	steps := e.audit(id)
	for _, a := range steps {
		switch {
		case a.NewStatus == "processing":
			claims = append(claims, a)
		case a.OldStatus == "processing" && a.NewStatus == "pending":
			retries = append(retries, a)
		}
	}
	require.Len(t, claims, 5, "one claim per attempt")
	require.Len(t, retries, 4, "a retry after each attempt but the last")

	var gaps []time.Duration
	for k, r := range retries {
		attempt := k + 1
		ceiling := reference.BackoffCeiling(attempt, cfg.BackoffBase, cfg.BackoffMax)
		gap := r.AvailableAt.Sub(r.At)
		require.GreaterOrEqual(t, gap, ceiling/2, "attempt %d: backoff below its jitter range", attempt)
		require.LessOrEqual(t, gap, ceiling, "attempt %d: backoff above its ceiling", attempt)
		gaps = append(gaps, gap)

		require.NotEqual(t, r.OldError.String, r.NewError.String, "a transient failure changes last_error")
		require.True(t, strings.HasPrefix(r.NewError.String, "attempt "+string(rune('0'+attempt))+" of 5: "), r.NewError.String)
		require.Contains(t, r.NewError.String, "WRONGTYPE")
		require.Equal(t, attempt, r.Attempts, "the attempt is spent: the failure is the event's")
		require.False(t, claims[k+1].At.Before(r.AvailableAt), "attempt %d claimed before available_at", attempt+1)
	}
	for k := 1; k < len(gaps); k++ {
		if reference.BackoffCeiling(k+1, cfg.BackoffBase, cfg.BackoffMax) < cfg.BackoffMax {
			require.GreaterOrEqual(t, gaps[k], gaps[k-1], "backoff shrank before the cap")
		}
	}

	last := steps[len(steps)-1]
	require.Equal(t, "failed", last.NewStatus)
	require.Equal(t, 5, last.Attempts)
	require.True(t, strings.HasPrefix(last.NewError.String, reference.ReasonMaxAttempts+": attempt 5 of 5: "), last.NewError.String)
	require.Equal(t, "d1", last.LockedBy.String, "the failed row shows who closed it")
	require.Equal(t, "created", e.JobStatus("job-1"))

	st := d.Stats()
	require.Equal(t, 4, st.Retried)
	require.Equal(t, 1, st.Failed[reference.ReasonMaxAttempts])
	require.Zero(t, st.GivenBack)
	require.Zero(t, st.Probes["redis/no_answer"]+st.Probes["redis/answered"], "the breaker never opened, so nothing probed")
}
