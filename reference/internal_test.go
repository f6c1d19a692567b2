package reference

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBackoffCeilingDoublesUpToTheCap(t *testing.T) {
	base, limit := 100*time.Millisecond, time.Second
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		require.Equal(t, w*time.Millisecond, BackoffCeiling(i+1, base, limit), "attempt %d", i+1)
	}
	require.Equal(t, base, BackoffCeiling(0, base, limit))
	require.Equal(t, time.Duration(1<<62), BackoffCeiling(1000, time.Second, 1<<62), "no overflow")
}

func TestJitterStaysInItsRangeAndNeverShrinksBeforeTheCap(t *testing.T) {
	j := newJitter(7)
	base, limit := 100*time.Millisecond, 3200*time.Millisecond
	for round := 0; round < 200; round++ {
		prev := time.Duration(0)
		for attempt := 1; attempt <= 8; attempt++ {
			ceiling := BackoffCeiling(attempt, base, limit)
			d := j.delay(attempt, base, limit)
			require.GreaterOrEqual(t, d, ceiling/2)
			require.LessOrEqual(t, d, ceiling)
			if ceiling < limit {
				require.GreaterOrEqual(t, d, prev, "attempt %d", attempt)
			}
			prev = d
		}
	}
}

func TestClosestNameFindsTypos(t *testing.T) {
	require.Equal(t, envPublishTimeout, closestName("OUTBOX_PUBLISH_TIMOUT"))
	require.Equal(t, envDedupeHorizon, closestName("OUTBOX_DEDUP_HORIZON"))
}

func TestLastErrorNamesTheAttempt(t *testing.T) {
	f := retry(errTest("redis:\n down"))
	require.Equal(t, "attempt 2 of 5: redis: down", f.lastError(Event{Attempts: 2}, 5, 1024))
	require.Equal(t, "max_attempts: attempt 5 of 5: redis: down", f.lastError(Event{Attempts: 5}, 5, 1024))
	p := failed(ReasonJobNotFound, "no row %q", "j")
	require.Equal(t, `job_not_found: no row "j"`, p.lastError(Event{Attempts: 9}, 5, 1024))
}

func TestLastErrorFitsANarrowColumn(t *testing.T) {
	p := failed(ReasonQueueNotAllowed, "queue %q", "ai-refusé-é€🚫é€🚫")
	require.Equal(t, `queue_not_allowed: queue "ai-refusé-é€`, p.lastError(Event{}, 5, 38))
	bad := failed(ReasonQueueNotAllowed, "queue %s", "ai-\xff\xfe")
	require.Equal(t, "queue_not_allowed: queue ai-\uFFFD", bad.lastError(Event{}, 5, 64))
}

type errTest string

func (e errTest) Error() string { return string(e) }
