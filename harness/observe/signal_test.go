package observe_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/observe"
)

// bullAdd is the shape of BullMQ's add: the hash, the id pushed into wait,
// an "added" stream entry, all in one script.
const bullAdd = `
redis.call("HSET", KEYS[1], "name", "ai-job", "data", ARGV[2], "opts", "{}", "timestamp", "1")
redis.call("LPUSH", KEYS[2], ARGV[1])
redis.call("XADD", KEYS[3], "*", "event", "added", "jobId", ARGV[1], "name", "ai-job")
return 1`

// nextCreation waits for the next signal about job id on sub.
func nextCreation(t *testing.T, sub *observe.Subscription, id string) observe.Creation {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case c, ok := <-sub.C:
			require.True(t, ok, "subscription closed")
			if c.JobID == id {
				return c
			}
		case <-timeout:
			t.Fatalf("no creation signal for job %s", id)
		}
	}
}

// quiet asserts that sub gets no signal about id for a short while.
func quiet(t *testing.T, sub *observe.Subscription, id string) {
	t.Helper()
	timeout := time.After(300 * time.Millisecond)
	for {
		select {
		case c := <-sub.C:
			require.NotEqual(t, id, c.JobID, "unexpected second signal %+v", c)
		case <-timeout:
			return
		}
	}
}

func TestCreationSignalForBullMQStyleAdd(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := context.Background()
	o := startObserver(t, rdb, history.NewRecorder(history.Meta{}))
	defer func() { require.NoError(t, o.Stop()) }()
	sub := o.Subscribe(16)
	defer sub.Close()

	require.NoError(t, rdb.Eval(ctx, bullAdd, []string{"bull:q:job-1", "bull:q:wait", "bull:q:events"},
		"job-1", `{"jobId":"job-1"}`).Err())
	c := nextCreation(t, sub, "job-1")
	require.Equal(t, "q", c.Queue)
	require.Contains(t, []string{observe.SourceHash, observe.SourceStream, "wait"}, c.Source)
	require.WithinDuration(t, time.Now(), c.At, 5*time.Second)
	require.Equal(t, []string{"job-1"}, c.Jobs())
	if c.DataJobID == "" { // the stream entry came first: the data follows once
		c = nextCreation(t, sub, "job-1")
		require.Equal(t, "job-1", c.DataJobID)
	}
	quiet(t, sub, "job-1")
}

func TestCreationSignalWithoutStream(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := context.Background()
	o := startObserver(t, rdb, history.NewRecorder(history.Meta{}))
	defer func() { require.NoError(t, o.Stop()) }()
	sub := o.Subscribe(64) // room for the batch below
	defer sub.Close()

	// The hash and the id, no stream entry.
	require.NoError(t, rdb.HSet(ctx, "bull:q:job-2", "data", `{"jobId":"job-2"}`, "opts", "{}").Err())
	require.NoError(t, rdb.RPush(ctx, "bull:q:wait", "job-2").Err())
	c := nextCreation(t, sub, "job-2")
	require.Equal(t, observe.Creation{Queue: "q", JobID: "job-2", DataJobID: "job-2", Source: observe.SourceHash, At: c.At}, c)
	quiet(t, sub, "job-2")

	// The id pushed first, the hash written after it in the same script:
	// the push shows the job, with its data read.
	pushFirst := `redis.call(ARGV[1], KEYS[1], unpack(ARGV, 3)) redis.call("HSET", KEYS[2], "data", ARGV[2]) return 1`
	require.NoError(t, rdb.Eval(ctx, pushFirst, []string{"bull:other:delayed", "bull:other:job-3"},
		"ZADD", `{"jobId":"job-3"}`, "1", "job-3").Err())
	c = nextCreation(t, sub, "job-3")
	require.Equal(t, observe.Creation{Queue: "other", JobID: "job-3", DataJobID: "job-3", Source: "delayed", At: c.At}, c)
	require.NoError(t, rdb.Eval(ctx, pushFirst, []string{"bull:q:prioritized", "bull:q:5"},
		"ZADD", `{"jobId":"job-5"}`, "1", "5").Err())
	c = nextCreation(t, sub, "5")
	require.Equal(t, observe.Creation{Queue: "q", JobID: "5", DataJobID: "job-5", Source: "prioritized", At: c.At}, c)
	quiet(t, sub, "5")

	// Only the id in a list, no hash at all: the id alone.
	require.NoError(t, rdb.LPush(ctx, "bull:q:paused", "job-4").Err())
	c = nextCreation(t, sub, "job-4")
	require.Equal(t, observe.Creation{Queue: "q", JobID: "job-4", Source: "paused", At: c.At}, c)

	// A batch of pushes in one script: every id is signalled.
	script := `for i = 1, 40 do redis.call("LPUSH", KEYS[1], "b" .. i) end return 1`
	require.NoError(t, rdb.Eval(ctx, script, []string{"bull:q:wait"}).Err())
	got := map[string]bool{}
	deadline := time.After(10 * time.Second)
	for len(got) < 40 {
		select {
		case c := <-sub.C:
			got[c.JobID] = true
		case <-deadline:
			t.Fatalf("signals for %d of 40 pushed ids", len(got))
		}
	}
}

func TestCreationSignalWithoutJobID(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := context.Background()
	rec := history.NewRecorder(history.Meta{})
	o := startObserver(t, rdb, rec)
	defer func() { require.NoError(t, o.Stop()) }()
	sub := o.Subscribe(16)
	defer sub.Close()

	// BullMQ's own counter id; the row's id only in data.jobId.
	require.NoError(t, rdb.Eval(ctx, bullAdd, []string{"bull:q:7", "bull:q:wait", "bull:q:events"},
		"7", `{"jobId":"job-7","type":"x"}`).Err())
	c := nextCreation(t, sub, "7")
	if c.DataJobID == "" {
		require.Equal(t, observe.SourceStream, c.Source)
		c = nextCreation(t, sub, "7")
	}
	require.Equal(t, "job-7", c.DataJobID)
	require.Equal(t, []string{"job-7"}, c.Jobs(), "an all-digit id with data.jobId names the data's row")

	// Deleted and added again: a new creation, signalled again.
	localtest.Eventually(t, "the stream entry read", func() bool { return len(rec.Snapshot().Stream) == 1 })
	require.NoError(t, rdb.Del(ctx, "bull:q:7").Err())
	require.NoError(t, rdb.HSet(ctx, "bull:q:7", "data", `{"jobId":"job-7"}`).Err())
	c = nextCreation(t, sub, "7")
	require.Equal(t, observe.SourceHash, c.Source)
}

func TestCreationFanOutNeverBlocksTheObserver(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := context.Background()
	rec := history.NewRecorder(history.Meta{})
	o := startObserver(t, rdb, rec)
	stuck := o.Subscribe(1) // never read
	live := o.Subscribe(256)
	defer live.Close()

	const jobs = 60
	for i := 0; i < jobs; i++ {
		require.NoError(t, rdb.HSet(ctx, fmt.Sprintf("bull:q:n%d", i), "data", "{}").Err())
	}
	localtest.Eventually(t, "every job hash recorded", func() bool { return len(rec.Snapshot().Keys) >= jobs })
	got := map[string]bool{}
	for len(got) < jobs {
		c := nextCreation(t, live, fmt.Sprintf("n%d", len(got)))
		got[c.JobID] = true
	}
	require.GreaterOrEqual(t, stuck.Dropped(), int64(jobs-1), "the full subscriber missed signals instead of blocking")
	require.Len(t, stuck.C, 1)
	stuck.Close()
	stuck.Close()
	_, open := <-stuck.C
	require.True(t, open, "the buffered signal is still there")
	_, open = <-stuck.C
	require.False(t, open, "Close closes the channel")
	require.NoError(t, o.Stop(), "Stop is not held up by a full subscriber")
}
