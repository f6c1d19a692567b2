package reference

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
)

// TestBreakerMovesThroughItsStates: closed -> open on no answer; probes
// back off, doubling to the cap; an answered probe -> half-open; no answer
// there reopens it with the wait still growing; an answer closes it. Time
// spent open is counted.
func TestBreakerMovesThroughItsStates(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	m := newMetrics()
	b := newBreaker(depRedis, 10*time.Millisecond, m, slog.New(slog.NewTextHandler(io.Discard, nil)), clock)
	down := errors.New("dial tcp: connection refused")

	require.True(t, b.allows())
	b.answered()
	require.Equal(t, "closed", b.status().State)

	require.True(t, b.noAnswer(down))
	require.False(t, b.noAnswer(down), "already open")
	require.False(t, b.allows())
	require.Equal(t, breakerStatus{State: "open", Reason: down.Error(), Since: now}, b.status())
	require.False(t, b.probeDue(), "the first probe waits the base")

	waits := []time.Duration{}
	for i := 0; i < 8; i++ {
		before := b.nextProbe
		now = before
		require.True(t, b.probeDue())
		b.probed(down)
		waits = append(waits, b.nextProbe.Sub(now))
	}
	require.Equal(t, []time.Duration{200, 400, 800, 1600, 3200, 5000, 5000, 5000}, millis(waits), "doubling to the 5s cap")

	now = b.nextProbe
	require.True(t, b.probeDue())
	b.probed(nil)
	require.Equal(t, "half-open", b.status().State)
	require.True(t, b.allows(), "half-open lets work resume")

	require.True(t, b.noAnswer(down), "no answer in half-open reopens")
	require.Equal(t, 5*time.Second, b.nextProbe.Sub(now), "the wait keeps growing (capped), not back to the base")
	now = b.nextProbe
	require.True(t, b.probeDue())
	b.probed(nil)
	b.answered()
	require.Equal(t, "closed", b.status().State)
	require.True(t, b.noAnswer(down))
	require.Equal(t, probeBase, b.nextProbe.Sub(now), "a fresh outage starts from the base again")

	st := counterVecValue(t, m, "outbox_dependency_open_seconds_total")
	require.Greater(t, st, 20.0, "the open time of both outages is counted")
	require.Less(t, st, 30.0)
}

func millis(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d / time.Millisecond
	}
	return out
}

func counterVecValue(t *testing.T, m *metrics, name string) float64 {
	mfs, err := m.reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("%s not registered", name)
	return 0
}

func TestAnsweredNothingTellsOutagesFromErrorReplies(t *testing.T) {
	require.False(t, answeredNothing(nil))
	require.True(t, answeredNothing(io.EOF))
	require.True(t, answeredNothing(errors.Join(errors.New("bullmq add"), errTimeout{})))
	require.True(t, answeredNothing(redisReply("LOADING Redis is loading the dataset in memory")))
	require.False(t, answeredNothing(redisReply("WRONGTYPE Operation against a key holding the wrong kind of value")))
	require.False(t, answeredNothing(redisReply("ERR Error running script")))
	require.False(t, answeredNothing(errors.New("producer returned 1 results for 2 jobs")))
	require.False(t, answeredNothing(fmt.Errorf("finalize: %w", &mysql.MySQLError{Number: 1213, Message: "Deadlock found"})))
	require.True(t, answeredNothing(fmt.Errorf("claim: %w", &mysql.MySQLError{Number: 1053, Message: "Server shutdown in progress"})))
	require.True(t, answeredNothing(fmt.Errorf("claim: %w", mysql.ErrInvalidConn)))
	// Server-wide states (transient-states): a failover's read-only replica
	// or server, maxmemory with noeviction. No answer about the event.
	require.True(t, answeredNothing(redisReply("READONLY You can't write against a read only replica.")))
	require.True(t, answeredNothing(redisReply("OOM command not allowed when used memory > 'maxmemory'.")))
	require.False(t, answeredNothing(redisReply("OOMPH not a state")))
	require.True(t, answeredNothing(fmt.Errorf("claim: %w", &mysql.MySQLError{Number: 1290, Message: "The MySQL server is running with the --read-only option so it cannot execute this statement"})))
	require.True(t, answeredNothing(fmt.Errorf("finalize: %w", &mysql.MySQLError{Number: 1836, Message: "Running in read-only mode"})))
}

type errTimeout struct{}

func (errTimeout) Error() string   { return "i/o timeout" }
func (errTimeout) Timeout() bool   { return true }
func (errTimeout) Temporary() bool { return true }

// redisReply is an error reply as go-redis returns it.
type redisReply string

func (r redisReply) Error() string { return string(r) }
func (redisReply) RedisError()     {}

func TestLockConflictsRestartTheTransaction(t *testing.T) {
	require.True(t, lockConflict(fmt.Errorf("finalize: %w", &mysql.MySQLError{Number: 1213, Message: "Deadlock found"})))
	require.True(t, lockConflict(fmt.Errorf("claim: %w", &mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded"})))
	require.False(t, lockConflict(fmt.Errorf("claim: %w", &mysql.MySQLError{Number: 1062, Message: "Duplicate entry"})))
	require.False(t, lockConflict(errors.New("i/o timeout")))
}
