package bullmq_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/reference/bullmq"
)

func serverMillis(t *testing.T, e *env) int64 {
	t.Helper()
	now, err := e.rdb.Time(ctxFor(t)).Result()
	require.NoError(t, err)
	return now.UnixMilli()
}

func TestAddWritesExactlyTheBullMQLayout(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	before := serverMillis(t, e)
	require.Equal(t, bullmq.Added, e.addOne(job("q", "j-1")))
	after := serverMillis(t, e)

	require.ElementsMatch(t, []string{
		"bull:q:id", "bull:q:meta", "bull:q:j-1", "bull:q:wait", "bull:q:marker",
		"bull:q:events", "bull:q:ocdedupe:j-1",
	}, e.keys())

	h := e.hash("bull:q:j-1")
	require.Len(t, h, 6, "job hash fields: %v", h)
	require.Equal(t, "ai-job", h["name"])
	require.Equal(t, `{"jobId":"j-1"}`, h["data"])
	require.JSONEq(t, `{"jobId":"j-1","attempts":0,"delay":0}`, h["opts"])
	require.Equal(t, "0", h["delay"])
	require.Equal(t, "0", h["priority"])
	ts, err := strconv.ParseInt(h["timestamp"], 10, 64)
	require.NoError(t, err)
	require.True(t, ts >= before && ts <= after, "timestamp %d outside server clock [%d, %d]", ts, before, after)

	require.Equal(t, []string{"j-1"}, e.list("bull:q:wait"))
	marker, err := e.rdb.ZRangeWithScores(ctxFor(t), "bull:q:marker", 0, -1).Result()
	require.NoError(t, err)
	require.Equal(t, []redis.Z{{Score: 0, Member: "0"}}, marker)
	require.Equal(t, map[string]string{"opts.maxLenEvents": "10000"}, e.hash("bull:q:meta"))
	counter, err := e.rdb.Get(ctxFor(t), "bull:q:id").Result()
	require.NoError(t, err)
	require.Equal(t, "1", counter)
	require.Equal(t, []event{
		{"event", "added", "jobId", "j-1", "name", "ai-job"},
		{"event", "waiting", "jobId", "j-1"},
	}, e.events("q"))

	ttl, err := e.rdb.PTTL(ctxFor(t), e.p.DedupeKey("q", "j-1")).Result()
	require.NoError(t, err)
	require.True(t, ttl > bullmq.DefaultDedupeHorizon-time.Minute && ttl <= bullmq.DefaultDedupeHorizon, "dedupe TTL %v", ttl)
}

func TestAddKeepsExistingMaxLenEventsAndPrefix(t *testing.T) {
	e := newEnv(t, bullmq.Options{Prefix: "app", RemoveOnComplete: true})
	require.NoError(t, e.rdb.HSet(ctxFor(t), "app:q:meta", "opts.maxLenEvents", "50").Err())
	require.Equal(t, bullmq.Added, e.addOne(job("q", "j-1")))
	require.Equal(t, "50", e.hash("app:q:meta")["opts.maxLenEvents"])
	require.JSONEq(t, `{"jobId":"j-1","attempts":0,"delay":0,"removeOnComplete":true}`, e.hash("app:q:j-1")["opts"])
	require.Equal(t, "app:q:ocdedupe:j-1", e.p.DedupeKey("q", "j-1"))
	require.True(t, e.exists("app:q:ocdedupe:j-1"))
	require.False(t, e.exists("bull:q:j-1"))
}

func TestSecondAddIsDuplicateAndTouchesNothing(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	require.Equal(t, bullmq.Added, e.addOne(job("q", "j-1")))
	firstHash := e.hash("bull:q:j-1")
	ttlBefore, err := e.rdb.PTTL(ctxFor(t), e.p.DedupeKey("q", "j-1")).Result()
	require.NoError(t, err)

	again := job("q", "j-1")
	again.Data = `{"jobId":"j-1","changed":true}`
	require.Equal(t, bullmq.Duplicate, e.addOne(again))

	require.Equal(t, firstHash, e.hash("bull:q:j-1"))
	require.Equal(t, []string{"j-1"}, e.list("bull:q:wait"))
	require.Equal(t, []event{
		{"event", "added", "jobId", "j-1", "name", "ai-job"},
		{"event", "waiting", "jobId", "j-1"},
		{"event", "duplicated", "jobId", "j-1"},
	}, e.events("q"))
	ttlAfter, err := e.rdb.PTTL(ctxFor(t), e.p.DedupeKey("q", "j-1")).Result()
	require.NoError(t, err)
	require.LessOrEqual(t, ttlAfter, ttlBefore, "a duplicate must not refresh the dedupe record")
	counter, err := e.rdb.Get(ctxFor(t), "bull:q:id").Result()
	require.NoError(t, err)
	require.Equal(t, "2", counter, "BullMQ counts duplicate adds too")
}

// removeJob does what a BullMQ worker with removeOnComplete does to a job.
func removeJob(t *testing.T, e *env, queue, id string) {
	t.Helper()
	require.NoError(t, e.rdb.Del(ctxFor(t), "bull:"+queue+":"+id).Err())
	require.NoError(t, e.rdb.LRem(ctxFor(t), "bull:"+queue+":wait", 0, id).Err())
}

func TestReAddAfterRemovalIsDedupedWithinHorizon(t *testing.T) {
	e := newEnv(t, bullmq.Options{DedupeHorizon: time.Hour})
	require.Equal(t, bullmq.Added, e.addOne(job("q", "j-1")))
	removeJob(t, e, "q", "j-1")
	ttlBefore, err := e.rdb.PTTL(ctxFor(t), e.p.DedupeKey("q", "j-1")).Result()
	require.NoError(t, err)

	require.Equal(t, bullmq.Deduped, e.addOne(job("q", "j-1")))

	require.False(t, e.exists("bull:q:j-1"), "a deduped add must not recreate the job")
	require.Empty(t, e.list("bull:q:wait"))
	ttlAfter, err := e.rdb.PTTL(ctxFor(t), e.p.DedupeKey("q", "j-1")).Result()
	require.NoError(t, err)
	require.Positive(t, ttlAfter)
	require.LessOrEqual(t, ttlAfter, ttlBefore, "a deduped add must not refresh the dedupe record")
	require.Equal(t, []event{
		{"event", "added", "jobId", "j-1", "name", "ai-job"},
		{"event", "waiting", "jobId", "j-1"},
		{"event", "duplicated", "jobId", "j-1"},
	}, e.events("q"))
}

func TestReAddAfterHorizonCreatesTheJobAgain(t *testing.T) {
	e := newEnv(t, bullmq.Options{DedupeHorizon: time.Second}) // long enough to see the new record after the re-add on a loaded machine
	require.Equal(t, bullmq.Added, e.addOne(job("q", "j-1")))
	removeJob(t, e, "q", "j-1")
	require.Eventually(t, func() bool { return !e.exists(e.p.DedupeKey("q", "j-1")) },
		30*time.Second, 10*time.Millisecond, "dedupe record never expired")

	require.Equal(t, bullmq.Added, e.addOne(job("q", "j-1")))
	require.True(t, e.exists("bull:q:j-1"))
	require.Equal(t, []string{"j-1"}, e.list("bull:q:wait"))
	require.True(t, e.exists(e.p.DedupeKey("q", "j-1")))
}

func TestPausedQueueGetsPausedListAndNoMarker(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	require.NoError(t, e.rdb.HSet(ctxFor(t), "bull:q:meta", "paused", "1").Err())
	require.Equal(t, bullmq.Added, e.addOne(job("q", "j-1")))
	require.Equal(t, []string{"j-1"}, e.list("bull:q:paused"))
	require.False(t, e.exists("bull:q:wait"))
	require.False(t, e.exists("bull:q:marker"))
	require.Equal(t, []event{
		{"event", "added", "jobId", "j-1", "name", "ai-job"},
		{"event", "waiting", "jobId", "j-1"},
	}, e.events("q"))
}

func TestConcurrencyLimitHoldsTheMarker(t *testing.T) {
	e := newEnv(t, bullmq.Options{})
	ctx := ctxFor(t)
	require.NoError(t, e.rdb.HSet(ctx, "bull:q:meta", "concurrency", "1").Err())
	require.NoError(t, e.rdb.LPush(ctx, "bull:q:active", "running-1").Err())

	require.Equal(t, bullmq.Added, e.addOne(job("q", "j-1")))
	require.Equal(t, []string{"j-1"}, e.list("bull:q:wait"))
	require.False(t, e.exists("bull:q:marker"), "at the limit: no marker")

	require.NoError(t, e.rdb.HSet(ctx, "bull:q:meta", "concurrency", "2").Err())
	require.Equal(t, bullmq.Added, e.addOne(job("q", "j-2")))
	require.Equal(t, []string{"j-2", "j-1"}, e.list("bull:q:wait"))
	require.True(t, e.exists("bull:q:marker"), "below the limit: marker")
}
