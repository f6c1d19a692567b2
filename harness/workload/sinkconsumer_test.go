package workload_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
	"github.com/outboxchaos/outboxchaos/harness/sink"
	"github.com/outboxchaos/outboxchaos/harness/workload"
)

// runSinkConsumer runs c until stop is called (or the test ends) and
// waits for Run to return.
func runSinkConsumer(t *testing.T, c *workload.SinkConsumer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		require.NoError(t, c.Run(ctx))
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	t.Cleanup(stop)
	return stop
}

func takesOf(rec *history.Recorder) []string {
	var out []string
	for _, tk := range rec.Snapshot().Takes {
		out = append(out, tk.Queue+" "+tk.JobID+" "+tk.DataJobID)
	}
	sort.Strings(out)
	return out
}

func TestSinkConsumerTakesAndAcksStreamEntries(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	db := referenceDB(t)
	ctx := localtest.Context(t)
	insertJobRow(t, db, "j-1", "orders", "queued")
	insertJobRow(t, db, "j-2", "orders", "created")
	rec := history.NewRecorder(history.Meta{})
	cfg := sink.Config{Kind: history.SinkStream, Keys: []string{"orders", "bulk"}, MessageID: "message_id", Payload: "payload"}
	c, err := workload.NewSinkConsumer(workload.SinkConsumerConfig{Redis: rdb, DB: db, Schema: schema.Reference(),
		Sink: cfg, Workers: 2, Recorder: rec, Name: "w"})
	require.NoError(t, err)
	stop := runSinkConsumer(t, c)

	add := func(key, msg, job string) {
		require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: key,
			Values: []any{"message_id", msg, "payload", fmt.Sprintf(`{"jobId":%q}`, job)}}).Err())
	}
	add("orders", "m-1", "j-1")
	add("orders", "m-2", "j-2")
	add("orders", "m-1", "j-1") // a re-publish is delivered, and taken, again
	add("bulk", "m-3", "j-3")
	localtest.Eventually(t, "four takes acknowledged", func() bool { return c.Stats().Completed == 4 })
	stop()

	require.Equal(t, []string{"bulk m-3 j-3", "orders m-1 j-1", "orders m-1 j-1", "orders m-2 j-2"}, takesOf(rec))
	for _, tk := range rec.Snapshot().Takes {
		require.Contains(t, []string{"w/0", "w/1"}, tk.Worker)
		require.False(t, tk.At.IsZero())
	}
	require.Equal(t, "succeeded", jobStatus(t, db, "j-1"))
	require.Equal(t, "succeeded", jobStatus(t, db, "j-2"))
	for _, k := range cfg.Keys {
		pending, err := rdb.XPending(ctx, k, workload.StreamGroup).Result()
		require.NoError(t, err)
		require.Zero(t, pending.Count, "every entry of %s acknowledged", k)
	}
	n, err := rdb.XLen(ctx, "orders").Result()
	require.NoError(t, err)
	require.Equal(t, int64(3), n, "a consumer group leaves the entries in the stream")
	require.Zero(t, c.Stats().Errors, c.Stats().LastError)
}

func TestSinkConsumerRecreatesALostGroup(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := localtest.Context(t)
	rec := history.NewRecorder(history.Meta{})
	cfg := sink.Config{Kind: history.SinkStream, Keys: []string{"orders"}, MessageID: "id"}
	c, err := workload.NewSinkConsumer(workload.SinkConsumerConfig{Redis: rdb, Sink: cfg, Recorder: rec})
	require.NoError(t, err)
	stop := runSinkConsumer(t, c)
	require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "orders", Values: []any{"id", "m-1"}}).Err())
	localtest.Eventually(t, "the first take", func() bool { return c.Stats().Completed == 1 })
	require.NoError(t, rdb.Del(ctx, "orders").Err()) // the group goes with the stream
	require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "orders", Values: []any{"id", "m-2"}}).Err())
	localtest.Eventually(t, "the take after the group is recreated", func() bool { return c.Stats().Completed == 2 })
	stop()
	require.Equal(t, []string{"orders m-1 ", "orders m-2 "}, takesOf(rec))
}

func TestSinkConsumerTakesListMessagesFromTheArchive(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	db := referenceDB(t)
	ctx := localtest.Context(t)
	insertJobRow(t, db, "j-1", "orders", "queued")
	rec := history.NewRecorder(history.Meta{})
	cfg := sink.Config{Kind: history.SinkList, Keys: []string{"orders", "bulk"}, MessageID: "id", Payload: "payload"}
	c, err := workload.NewSinkConsumer(workload.SinkConsumerConfig{Redis: rdb, DB: db, Schema: schema.Reference(),
		Sink: cfg, Workers: 3, Recorder: rec, Name: "w"})
	require.NoError(t, err)
	stop := runSinkConsumer(t, c)
	// What the observer's mover writes: the elements in push order.
	for i := 1; i <= 20; i++ {
		require.NoError(t, rdb.RPush(ctx, sink.Archive("orders"), fmt.Sprintf(`{"id":"m-%d","payload":{"jobId":"j-%d"}}`, i, i)).Err())
	}
	require.NoError(t, rdb.RPush(ctx, sink.Archive("bulk"), `{"id":"m-b"}`).Err())
	localtest.Eventually(t, "21 takes", func() bool { return c.Stats().Completed == 21 })
	stop()

	takes := takesOf(rec)
	require.Len(t, takes, 21, "each archived element once")
	require.Contains(t, takes, "bulk m-b ")
	require.Contains(t, takes, "orders m-20 j-20")
	require.Equal(t, "succeeded", jobStatus(t, db, "j-1"))
	archived, err := rdb.LLen(ctx, sink.Archive("orders")).Result()
	require.NoError(t, err)
	require.Equal(t, int64(20), archived, "the consumer leaves the archive as it is")
}

func TestSinkConsumerConfigErrors(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	rec := history.NewRecorder(history.Meta{})
	list := sink.Config{Kind: history.SinkList, Keys: []string{"orders"}}
	for _, c := range []struct {
		cfg  workload.SinkConsumerConfig
		want string
	}{
		{workload.SinkConsumerConfig{Sink: list, Recorder: rec}, "Redis is nil"},
		{workload.SinkConsumerConfig{Redis: rdb, Sink: sink.Config{Kind: "kafka"}, Recorder: rec}, `sink kind "kafka"`},
		{workload.SinkConsumerConfig{Redis: rdb, Sink: list, Schema: schema.Reference(), Recorder: rec}, "DB is nil; pass an open *sql.DB for the jobs table ai_jobs (or set LeaveRows)"},
		{workload.SinkConsumerConfig{Redis: rdb, Sink: list, Workers: -1, Recorder: rec}, "Workers is -1"},
		{workload.SinkConsumerConfig{Redis: rdb, Sink: list}, "Recorder is nil"},
	} {
		_, err := workload.NewSinkConsumer(c.cfg)
		require.ErrorContains(t, err, c.want)
	}
	_, err := workload.NewSinkConsumer(workload.SinkConsumerConfig{Redis: rdb, Sink: list, Schema: schema.Reference(), LeaveRows: true, Recorder: rec})
	require.NoError(t, err, "LeaveRows needs no database")
}

func TestSinkConsumerIdle(t *testing.T) {
	for _, kind := range []string{history.SinkStream, history.SinkList} {
		t.Run(kind, func(t *testing.T) {
			_, rdb := localtest.RedisClient(t)
			ctx := localtest.Context(t)
			rec := history.NewRecorder(history.Meta{})
			c, err := workload.NewSinkConsumer(workload.SinkConsumerConfig{Redis: rdb, Recorder: rec,
				Sink: sink.Config{Kind: kind, Keys: []string{"orders"}, MessageID: "id"}})
			require.NoError(t, err)
			idle := func() bool {
				ok, err := c.Idle(ctx)
				require.NoError(t, err)
				return ok
			}
			require.True(t, idle(), "nothing to take yet")
			if kind == history.SinkStream {
				require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "orders", Values: []any{"id", "m-1"}}).Err())
			} else {
				require.NoError(t, rdb.RPush(ctx, sink.Archive("orders"), `{"id":"m-1"}`).Err())
			}
			require.False(t, idle(), "a message not taken")
			stop := runSinkConsumer(t, c)
			localtest.Eventually(t, "the consumer idle", idle)
			stop()
			require.Equal(t, []string{"orders m-1 "}, takesOf(rec))
		})
	}
}
