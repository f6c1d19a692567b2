package dispatchkit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestIdleWaitBacksOffOnFailuresUpToASecond(t *testing.T) {
	require.Equal(t, 50*time.Millisecond, IdleWait(50*time.Millisecond, 0))
	require.Equal(t, 200*time.Millisecond, IdleWait(50*time.Millisecond, 2))
	require.Equal(t, time.Second, IdleWait(50*time.Millisecond, 20))
	require.Equal(t, 3*time.Second, IdleWait(3*time.Second, 5), "never below the poll interval")
}

// runUntil runs l with poll until poll has been called n times, then stops
// it; it returns the number of polls and fails the test if the loop waits
// where it must not.
func runUntil(t *testing.T, l Loop, n int, poll Poll) int {
	t.Helper()
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	stop, cancel := context.WithCancel(context.Background())
	defer cancel()
	polls := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.Run(stop, func(work context.Context) (bool, error) {
			polls++
			if polls == n {
				cancel()
			}
			return poll(work)
		})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("the loop did not stop after %d polls", n)
	}
	return polls
}

func TestLoopPollsAgainAtOnceAfterAFullBatch(t *testing.T) {
	l := Loop{Interval: time.Hour, Grace: time.Second}
	n := runUntil(t, l, 5, func(context.Context) (bool, error) { return true, nil })
	require.Equal(t, 5, n, "no interval between polls that ask for another at once")
}

func TestLoopStopEndsTheWait(t *testing.T) {
	for _, l := range []Loop{{Interval: time.Hour}, {Interval: time.Hour, FromStart: true}} {
		stop, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		began, polls := time.Now(), 0
		l.Run(stop, func(context.Context) (bool, error) {
			polls++
			return false, nil
		})
		require.Equal(t, 1, polls, "after a batch that was not full the loop waits the interval")
		require.Less(t, time.Since(began), 5*time.Second, "the stop ends the wait at once")
	}
}

func TestLoopWorkOutlivesTheStopByGrace(t *testing.T) {
	l := Loop{Interval: time.Hour, Grace: 100 * time.Millisecond}
	runUntil(t, l, 1, func(work context.Context) (bool, error) {
		require.NoError(t, work.Err(), "the batch in flight keeps its context when the stop comes")
		began := time.Now()
		select {
		case <-work.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("work never ended after the stop")
		}
		require.GreaterOrEqual(t, time.Since(began), 100*time.Millisecond, "work ends only after the grace")
		return false, nil
	})
}

// gapAfterSlowPoll runs two polls, the first longer than the interval, and
// returns the time between the end of the first and the start of the second.
func gapAfterSlowPoll(t *testing.T, l Loop, slow time.Duration) time.Duration {
	var ended, second time.Time
	runUntil(t, l, 2, func(context.Context) (bool, error) {
		if ended.IsZero() {
			time.Sleep(slow)
			ended = time.Now()
		} else {
			second = time.Now()
		}
		return false, nil
	})
	return second.Sub(ended)
}

func TestLoopPacing(t *testing.T) {
	const interval = 200 * time.Millisecond
	require.GreaterOrEqual(t, gapAfterSlowPoll(t, Loop{Interval: interval}, interval), interval,
		"without FromStart the loop waits a whole interval after each poll")
	require.Less(t, gapAfterSlowPoll(t, Loop{Interval: interval, FromStart: true}, interval*3/2), interval,
		"with FromStart a poll that took longer than the interval is followed at once")
}

func TestLoopBacksOffAfterFailedPolls(t *testing.T) {
	const interval = 20 * time.Millisecond
	var starts []time.Time
	runUntil(t, Loop{Interval: interval}, 4, func(context.Context) (bool, error) {
		starts = append(starts, time.Now())
		return false, errors.New("no database")
	})
	for i := 1; i < len(starts); i++ {
		require.GreaterOrEqual(t, starts[i].Sub(starts[i-1]), IdleWait(interval, i),
			"the wait after the %d-th consecutive failure", i)
	}
}

func TestNewTokenIsFreshHex(t *testing.T) {
	a, err := NewToken()
	require.NoError(t, err)
	b, err := NewToken()
	require.NoError(t, err)
	require.Regexp(t, `^[0-9a-f]{32}$`, a)
	require.NotEqual(t, a, b)
}
