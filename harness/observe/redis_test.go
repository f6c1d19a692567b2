package observe_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/observe"
)

func startObserver(t *testing.T, rdb *redis.Client, rec *history.Recorder) *observe.RedisObserver {
	t.Helper()
	o := observe.NewRedisObserver(rdb, "bull", []string{"q", "other"}, rec)
	require.NoError(t, o.Start(localtest.Context(t)))
	return o
}

func keyEvents(run history.Run, jobID string) []string {
	var out []string
	for _, k := range run.Keys {
		if k.JobID == jobID {
			out = append(out, k.Event)
		}
	}
	return out
}

func gapsOf(run history.Run, source string) []history.Gap {
	var out []history.Gap
	for _, g := range run.Gaps {
		if g.Source == source {
			out = append(out, g)
		}
	}
	return out
}

func TestRedisObserverRecordsStreamAndKeyspace(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := context.Background()
	rec := history.NewRecorder(history.Meta{})
	o := startObserver(t, rdb, rec)

	flags, err := rdb.ConfigGet(ctx, "notify-keyspace-events").Result()
	require.NoError(t, err)
	for _, c := range "Kghxen" {
		require.True(t, strings.ContainsRune(flags["notify-keyspace-events"], c) ||
			(strings.ContainsRune("ghxe", c) && strings.ContainsRune(flags["notify-keyspace-events"], 'A')),
			"class %c enabled in %q", c, flags["notify-keyspace-events"])
	}

	require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "bull:q:events",
		Values: []any{"event", "added", "jobId", "a", "name", "ai-job"}}).Err())
	require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "bull:q:events",
		Values: []any{"event", "duplicated", "jobId", "a", "prev", "waiting"}}).Err())
	// Each write waits for its note: values are read when the note arrives.
	notes := func(n int) func() bool { return func() bool { return len(rec.Snapshot().Keys) == n } }
	require.NoError(t, rdb.HSet(ctx, "bull:q:a", "name", "ai-job", "data", `{"jobId":"a"}`, "opts", `{"attempts":1}`).Err())
	localtest.Eventually(t, "the new note", notes(1))
	require.NoError(t, rdb.LPush(ctx, "bull:q:wait", "a").Err()) // a queue key, not a job
	require.NoError(t, rdb.HSet(ctx, "bull:q:a", "processedOn", "1").Err())
	localtest.Eventually(t, "the worker's write", notes(2))
	require.NoError(t, rdb.HSet(ctx, "bull:q:a", "data", `{"jobId":"b"}`).Err())
	localtest.Eventually(t, "the overwrite", notes(3))
	require.NoError(t, rdb.Del(ctx, "bull:q:a").Err())
	require.NoError(t, rdb.HSet(ctx, "bull:q:a:logs", "x", "1").Err()) // id with ':' is not a job
	require.NoError(t, rdb.HSet(ctx, "bull:elsewhere:z", "data", "{}").Err())
	require.NoError(t, o.Stop())

	run := rec.Snapshot()
	require.Len(t, run.Stream, 2)
	require.Equal(t, history.StreamEntry{Queue: "q", ID: run.Stream[0].ID, At: run.Stream[0].At,
		Event: "added", JobID: "a", Name: "ai-job"}, run.Stream[0])
	require.Equal(t, "duplicated", run.Stream[1].Event)
	require.Equal(t, map[string]string{"prev": "waiting"}, run.Stream[1].Extra)
	require.False(t, run.Stream[0].At.IsZero())

	require.Len(t, run.Keys, 4, "new, two writes, del; nothing for queue keys or other queues: %+v", run.Keys)
	require.Equal(t, []string{"new", "hset", "hset", "del"}, keyEvents(run, "a"))
	require.Equal(t, `{"jobId":"a"}`, run.Keys[0].Data)
	require.Equal(t, "a", run.Keys[0].DataJobID)
	require.Equal(t, `{"attempts":1}`, run.Keys[0].Opts)
	require.Equal(t, "q", run.Keys[0].Queue)
	require.Equal(t, `{"jobId":"a"}`, run.Keys[1].Data, "a worker's write leaves data as it was")
	require.Equal(t, `{"jobId":"b"}`, run.Keys[2].Data, "an overwrite shows the new data")
	require.Equal(t, "b", run.Keys[2].DataJobID)
	require.Empty(t, run.Keys[3].Data)
	require.Empty(t, run.Gaps)
}

func TestRedisObserverRecordsAStreamTrimmedPastIt(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := context.Background()
	rec := history.NewRecorder(history.Meta{})
	o := startObserver(t, rdb, rec)
	for _, id := range []string{"1-1", "1-2"} {
		require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "bull:q:events", ID: id,
			Values: []any{"event", "added", "jobId", "j" + id}}).Err())
	}
	require.NoError(t, o.Stop()) // flushes: both entries are read
	require.Len(t, rec.Snapshot().Stream, 2)

	require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "bull:q:events", ID: "1-3",
		Values: []any{"event", "added", "jobId", "unseen"}}).Err())
	require.NoError(t, rdb.XTrimMaxLen(ctx, "bull:q:events", 0).Err())
	require.NoError(t, o.Start(localtest.Context(t))) // resumes after 1-2: 1-3 is gone
	require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "bull:q:events", ID: "1-4",
		Values: []any{"event", "added", "jobId", "after"}}).Err())
	localtest.Eventually(t, "the entry after the trim", func() bool { return len(rec.Snapshot().Stream) == 3 })
	require.NoError(t, o.Stop())

	run := rec.Snapshot()
	require.Equal(t, "after", run.Stream[2].JobID)
	gaps := gapsOf(run, observe.StreamSource("q"))
	require.Len(t, gaps, 1, "one gap for one trim: %+v", run.Gaps)
	require.Contains(t, gaps[0].Detail, "trimmed past the reader")
	require.Len(t, gapsOf(run, observe.SourceKeyspace), 1, "the stopped time is a keyspace gap")
	require.Empty(t, gapsOf(run, observe.StreamSource("other")))
}

func TestRedisObserverSurvivesARedisRestart(t *testing.T) {
	r, rdb := localtest.RedisClient(t)
	ctx := localtest.Context(t)
	rec := history.NewRecorder(history.Meta{})
	o := startObserver(t, rdb, rec)
	for i := 0; i < 2; i++ {
		require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "bull:q:events", Values: []any{"event", "added", "jobId", "x"}}).Err())
	}
	localtest.Eventually(t, "two entries", func() bool { return len(rec.Snapshot().Stream) == 2 })

	require.NoError(t, r.Kill())
	require.NoError(t, r.Start(ctx)) // no persistence: the stream and the config are gone
	localtest.Eventually(t, "a keyspace gap", func() bool { return len(gapsOf(rec.Snapshot(), observe.SourceKeyspace)) > 0 })
	localtest.Eventually(t, "notifications enabled again", func() bool {
		flags, err := rdb.ConfigGet(ctx, "notify-keyspace-events").Result()
		return err == nil && strings.ContainsRune(flags["notify-keyspace-events"], 'n')
	})
	require.NoError(t, rdb.HSet(ctx, "bull:q:fresh", "data", `{"jobId":"fresh"}`, "opts", "{}").Err())
	require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "bull:q:events", Values: []any{"event", "added", "jobId", "fresh"}}).Err())
	// The rescan after the reconnect may read it too; its creation is a "new".
	localtest.Eventually(t, "the new key", func() bool { return slices.Contains(keyEvents(rec.Snapshot(), "fresh"), "new") })
	localtest.Eventually(t, "the new entry", func() bool { return len(rec.Snapshot().Stream) == 3 })
	require.NoError(t, o.Stop())

	run := rec.Snapshot()
	require.Equal(t, "fresh", run.Stream[2].JobID)
	require.NotEmpty(t, gapsOf(run, observe.StreamSource("q")), "the lost stream is a gap: %+v", run.Gaps)
}

func TestRedisObserverLifecycleErrors(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	rec := history.NewRecorder(history.Meta{})
	require.ErrorContains(t, observe.NewRedisObserver(nil, "bull", []string{"q"}, rec).Start(localtest.Context(t)), "client is nil")
	require.ErrorContains(t, observe.NewRedisObserver(rdb, "", []string{"q"}, rec).Start(localtest.Context(t)), "prefix is empty")
	require.ErrorContains(t, observe.NewRedisObserver(rdb, "bull", nil, rec).Start(localtest.Context(t)), "no queues")
	require.ErrorContains(t, observe.NewRedisObserver(rdb, "bull", []string{"a:b"}, rec).Start(localtest.Context(t)), "without ':'")
	require.ErrorContains(t, observe.NewRedisObserver(rdb, "bull", []string{"q"}, nil).Start(localtest.Context(t)), "recorder is nil")
	o := observe.NewRedisObserver(rdb, "bull", []string{"q"}, rec)
	require.ErrorContains(t, o.Stop(), "not started")
	require.NoError(t, o.Start(localtest.Context(t)))
	require.ErrorContains(t, o.Start(localtest.Context(t)), "already started")
	require.NoError(t, o.Stop())
}
