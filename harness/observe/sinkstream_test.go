package observe_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/sink"
)

func streamSink(keys ...string) sink.Config {
	return sink.Config{Kind: history.SinkStream, Keys: keys, MessageID: "message_id", Payload: "payload"}
}

func startSink(t *testing.T, rdb *redis.Client, cfg sink.Config, rec *history.Recorder) *observe.SinkObserver {
	t.Helper()
	o, err := observe.NewSinkObserver(rdb, cfg, rec)
	require.NoError(t, err)
	require.NoError(t, o.Start(localtest.Context(t)))
	return o
}

// xadd adds one message the way a relay would: its id and payload fields.
func xadd(t *testing.T, rdb redis.Cmdable, key, msgID, jobID string) string {
	t.Helper()
	id, err := rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: key,
		Values: []any{"message_id", msgID, "payload", `{"event":{"jobId":"` + jobID + `"}}`}}).Result()
	require.NoError(t, err)
	return id
}

func appendsOf(run history.Run, key string) []history.Append {
	var out []history.Append
	for _, a := range run.Appends {
		if a.Key == key {
			out = append(out, a)
		}
	}
	return out
}

func TestStreamSinkRecordsEveryEntryInOrder(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := localtest.Context(t)
	rec := history.NewRecorder(history.Meta{})
	o, err := observe.NewSinkObserver(rdb, streamSink("orders", "bulk"), rec)
	require.NoError(t, err)
	sub := o.Subscribe(16)
	defer sub.Close()
	require.NoError(t, o.Start(ctx))

	ids := []string{xadd(t, rdb, "orders", "m-1", "j-1"), xadd(t, rdb, "orders", "m-2", "j-2")}
	ids = append(ids, xadd(t, rdb, "orders", "m-1", "j-1")) // a relay's re-publish of m-1
	bulk := xadd(t, rdb, "bulk", "m-3", "j-3")
	c := nextCreation(t, sub, "m-1")
	require.Equal(t, observe.Creation{Queue: "orders", JobID: "m-1", DataJobID: "j-1", Source: observe.SourceSink, At: c.At}, c)
	require.Equal(t, []string{"j-1", "m-1"}, c.Jobs())
	nextCreation(t, sub, "m-2")
	nextCreation(t, sub, "m-3")
	quiet(t, sub, "m-1") // the duplicate is no first sight
	require.NoError(t, o.Stop())

	run := rec.Snapshot()
	got := appendsOf(run, "orders")
	require.Len(t, got, 3, "%+v", run.Appends)
	for i, want := range []struct{ msg, job string }{{"m-1", "j-1"}, {"m-2", "j-2"}, {"m-1", "j-1"}} {
		require.Equal(t, history.Append{Sink: history.SinkStream, Key: "orders", ID: ids[i], MessageID: want.msg,
			DataJobID: want.job, At: got[i].At}, got[i])
		require.Equal(t, ids[i][:13], itoa(got[i].At.UnixMilli()), "stamped with the entry id's time")
	}
	require.Equal(t, bulk, appendsOf(run, "bulk")[0].ID)
	require.Empty(t, run.Gaps)

	n, err := rdb.XLen(ctx, "orders").Result()
	require.NoError(t, err)
	require.Equal(t, int64(3), n, "nothing consumed or trimmed")
	groups, err := rdb.XInfoGroups(ctx, "orders").Result()
	require.NoError(t, err)
	require.Len(t, groups, 1)
	require.Equal(t, observe.StreamMarker, groups[0].Name)
	require.Zero(t, groups[0].Pending, "nothing is read through the marker")
}

func TestStreamSinkTrimBeforeTheReaderSawIsAGap(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := localtest.Context(t)
	rec := history.NewRecorder(history.Meta{})
	o := startSink(t, rdb, streamSink("orders"), rec)
	xadd(t, rdb, "orders", "m-1", "j-1")
	localtest.Eventually(t, "the first entry", func() bool { return len(rec.Snapshot().Appends) == 1 })
	// One MULTI: the blocked reader is served after it, when both are gone.
	_, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		xadd(t, p, "orders", "m-2", "j-2")
		xadd(t, p, "orders", "m-3", "j-3")
		p.XTrimMaxLen(ctx, "orders", 0)
		return nil
	})
	require.NoError(t, err)
	localtest.Eventually(t, "the trim's gap", func() bool { return len(gapsOf(rec.Snapshot(), observe.SinkSource("orders"))) > 0 })
	after := xadd(t, rdb, "orders", "m-4", "j-4")
	require.NoError(t, o.Stop())

	run := rec.Snapshot()
	gaps := gapsOf(run, observe.SinkSource("orders"))
	require.Len(t, gaps, 1, "%+v", run.Gaps)
	require.Contains(t, gaps[0].Detail, "2 entries")
	require.Len(t, run.Appends, 2)
	require.Equal(t, after, run.Appends[1].ID)
}

// A stream deleted and made anew is a gap even when the counts agree: the
// marker group is gone with the old stream.
func TestStreamSinkDeletedAndRecreatedIsAGap(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := localtest.Context(t)
	rec := history.NewRecorder(history.Meta{})
	o := startSink(t, rdb, streamSink("orders"), rec)
	_, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		xadd(t, p, "orders", "m-lost", "j-lost")
		p.Del(ctx, "orders")
		xadd(t, p, "orders", "m-2", "j-2")
		return nil
	})
	require.NoError(t, err)
	localtest.Eventually(t, "the deletion's gap", func() bool { return len(gapsOf(rec.Snapshot(), observe.SinkSource("orders"))) > 0 })
	xadd(t, rdb, "orders", "m-3", "j-3")
	require.NoError(t, o.Stop())

	run := rec.Snapshot()
	gaps := gapsOf(run, observe.SinkSource("orders"))
	require.Len(t, gaps, 1, "%+v", run.Gaps)
	require.Contains(t, gaps[0].Detail, "deleted and recreated")
	var msgs []string
	for _, a := range run.Appends {
		msgs = append(msgs, a.MessageID)
	}
	require.Equal(t, []string{"m-2", "m-3"}, msgs)

	// Deleted and not recreated: gone.
	require.NoError(t, o.Start(ctx))
	require.NoError(t, rdb.Del(ctx, "orders").Err())
	localtest.Eventually(t, "the second gap", func() bool { return len(gapsOf(rec.Snapshot(), observe.SinkSource("orders"))) == 2 })
	require.NoError(t, o.Stop())
	require.Contains(t, gapsOf(rec.Snapshot(), observe.SinkSource("orders"))[1].Detail, "is gone")
}

func TestStreamSinkFinalScanFindsWhatWasNotSeenLive(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := localtest.Context(t)
	rec := history.NewRecorder(history.Meta{})
	cfg := streamSink("orders")
	o := startSink(t, rdb, cfg, rec)
	xadd(t, rdb, "orders", "m-1", "j-1")
	require.NoError(t, o.Stop())
	late := xadd(t, rdb, "orders", "m-2", "j-2")

	final, err := observe.ScanSinkFinal(ctx, rdb, cfg, rec.Snapshot().Appends)
	require.NoError(t, err)
	require.Len(t, final, 1)
	require.Equal(t, history.Append{Sink: history.SinkStream, Key: "orders", ID: late, MessageID: "m-2", DataJobID: "j-2",
		At: final[0].At, Final: true}, final[0])
}

func TestStreamSinkFinalScanPages(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := localtest.Context(t)
	for i := 0; i < 2500; i++ {
		xadd(t, rdb, "orders", "m-"+itoa(int64(i)), "j")
	}
	final, err := observe.ScanSinkFinal(ctx, rdb, streamSink("orders"), nil)
	require.NoError(t, err)
	require.Len(t, final, 2500)
	require.Equal(t, "m-2499", final[2499].MessageID)
}

func TestSinkObserverErrors(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := localtest.Context(t)
	rec := history.NewRecorder(history.Meta{})
	_, err := observe.NewSinkObserver(rdb, sink.Config{Kind: history.SinkStream}, rec)
	require.ErrorContains(t, err, "no keys")
	_, err = observe.NewSinkObserver(nil, streamSink("s"), rec)
	require.ErrorContains(t, err, "client is nil")
	_, err = observe.NewSinkObserver(rdb, streamSink("s"), nil)
	require.ErrorContains(t, err, "recorder is nil")

	require.NoError(t, rdb.Set(ctx, "s", "x", 0).Err())
	o, err := observe.NewSinkObserver(rdb, streamSink("s"), rec)
	require.NoError(t, err)
	require.ErrorContains(t, o.Start(ctx), "key s is a string; a redis-stream sink needs a stream there")
	require.ErrorContains(t, o.Stop(), "not started")
	o = startSink(t, rdb, streamSink("t"), rec)
	require.ErrorContains(t, o.Start(ctx), "already started")
	require.NoError(t, o.Stop())
}

func TestStreamSinkRedisRestartIsAGapUnlessEveryWriteIsOnDisk(t *testing.T) {
	for _, persistent := range []bool{false, true} {
		t.Run(fmt.Sprintf("persistence=%v", persistent), func(t *testing.T) {
			ctx := localtest.Context(t)
			r, rdb := localtest.RedisClientWith(t, localenv.RedisOptions{Persistence: persistent})
			rec := history.NewRecorder(history.Meta{})
			o := startSink(t, rdb, streamSink("orders"), rec)
			xadd(t, rdb, "orders", "m-1", "j-1")
			localtest.Eventually(t, "the first entry", func() bool { return len(rec.Snapshot().Appends) == 1 })

			require.NoError(t, r.Kill())
			require.NoError(t, r.Start(ctx))
			xadd(t, rdb, "orders", "m-2", "j-2")
			localtest.Eventually(t, "the entry after the restart", func() bool { return len(rec.Snapshot().Appends) == 2 })
			require.NoError(t, o.Stop())

			gaps := gapsOf(rec.Snapshot(), observe.SinkSource("orders"))
			if persistent {
				require.Empty(t, gaps, "appendfsync always: nothing acknowledged was lost")
				return
			}
			var details []string
			for _, g := range gaps {
				details = append(details, g.Detail)
			}
			require.Contains(t, strings.Join(details, "\n"), "Redis restarted")
		})
	}
}

// A stream restored from an older file (its append-only file off while
// m-2 was added, then a restart) goes back: Checkpoint reports it by the
// time it returns, with the last id the stream still holds, and the reader
// reads it again from the start.
func TestStreamSinkCheckpointReportsWhatARestoredStreamKept(t *testing.T) {
	ctx := localtest.Context(t)
	r, rdb := localtest.RedisClientWith(t, localenv.RedisOptions{Persistence: true})
	rec := history.NewRecorder(history.Meta{})
	o := startSink(t, rdb, streamSink("orders"), rec)
	kept := xadd(t, rdb, "orders", "m-1", "j-1")
	require.NoError(t, rdb.ConfigSet(ctx, "appendonly", "no").Err())
	xadd(t, rdb, "orders", "m-2", "j-2")
	require.NoError(t, o.Checkpoint())
	require.Len(t, rec.Snapshot().Appends, 2, "the first checkpoint recorded both")

	require.NoError(t, r.Kill())
	require.NoError(t, r.Start(ctx))
	require.NoError(t, o.Checkpoint())
	require.NoError(t, o.Stop())

	var keptGaps []history.Gap
	for _, g := range gapsOf(rec.Snapshot(), observe.SinkSource("orders")) {
		if g.Kept != "" {
			keptGaps = append(keptGaps, g)
		}
	}
	require.Len(t, keptGaps, 1)
	require.Equal(t, kept, keptGaps[0].Kept)
	require.Contains(t, keptGaps[0].Detail, "went back")
	ids := map[string]int{}
	for _, a := range rec.Snapshot().Appends {
		ids[a.ID]++
	}
	require.Len(t, ids, 2)
	require.Equal(t, 2, ids[kept], "m-1 read again")
}
