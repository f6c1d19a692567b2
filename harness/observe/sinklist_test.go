package observe_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/observe"
	"github.com/outboxchaos/outboxchaos/harness/sink"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func listSink(push string, keys ...string) sink.Config {
	return sink.Config{Kind: history.SinkList, Keys: keys, MessageID: "id", Payload: "payload", Push: push}
}

func element(msgID, jobID string) string {
	return fmt.Sprintf(`{"id":%q,"payload":{"jobId":%q}}`, msgID, jobID)
}

func TestListSinkMovesEveryElementUnderConcurrentPushes(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := localtest.Context(t)
	rec := history.NewRecorder(history.Meta{})
	o, err := observe.NewSinkObserver(rdb, listSink("", "orders"), rec)
	require.NoError(t, err)
	sub := o.Subscribe(4096)
	defer sub.Close()
	require.NoError(t, o.Start(ctx))

	const producers, each = 6, 300
	var wg sync.WaitGroup
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := rdb.LPush(ctx, "orders", element(fmt.Sprintf("m-%d-%d", p, i), fmt.Sprintf("j-%d-%d", p, i))).Err(); err != nil {
					t.Errorf("lpush: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, o.Stop()) // drains what is left

	run := rec.Snapshot()
	require.Len(t, run.Appends, producers*each)
	next := make([]int, producers) // each producer's pushes in its order
	for i, a := range run.Appends {
		require.Equal(t, itoa(int64(i+1)), a.ID, "ids count the moves")
		var p, n int
		_, err := fmt.Sscanf(a.MessageID, "m-%d-%d", &p, &n)
		require.NoError(t, err, a.MessageID)
		require.Equal(t, next[p], n, "producer %d's elements in push order", p)
		next[p]++
		require.Equal(t, fmt.Sprintf("j-%d-%d", p, n), a.DataJobID)
		require.Equal(t, history.SinkList, a.Sink)
	}
	require.Empty(t, run.Gaps)
	require.Equal(t, producers*each, len(sub.C)+int(sub.Dropped()), "one signal per message")
	require.Zero(t, sub.Dropped())
	left, err := rdb.LLen(ctx, "orders").Result()
	require.NoError(t, err)
	require.Zero(t, left)
	archived, err := rdb.LLen(ctx, sink.Archive("orders")).Result()
	require.NoError(t, err)
	require.Equal(t, int64(producers*each), archived)
}

func TestListSinkRPushOrderAndFinalScan(t *testing.T) {
	_, rdb := localtest.RedisClient(t)
	ctx := localtest.Context(t)
	rec := history.NewRecorder(history.Meta{})
	cfg := listSink(sink.PushRight, "orders")
	require.NoError(t, rdb.RPush(ctx, sink.Archive("orders"), "an earlier run's").Err())
	o := startSink(t, rdb, cfg, rec)
	for i := 1; i <= 3; i++ {
		require.NoError(t, rdb.RPush(ctx, "orders", element("m-"+itoa(int64(i)), "j")).Err())
	}
	localtest.Eventually(t, "three moves", func() bool { return len(rec.Snapshot().Appends) == 3 })
	require.NoError(t, o.Stop())
	require.NoError(t, rdb.RPush(ctx, "orders", element("m-4", "j-4"), "not json").Err())

	run := rec.Snapshot()
	for i, a := range run.Appends {
		require.Equal(t, "m-"+itoa(int64(i+1)), a.MessageID)
	}
	archive, err := rdb.LRange(ctx, sink.Archive("orders"), 0, -1).Result()
	require.NoError(t, err)
	require.Equal(t, []string{element("m-1", "j"), element("m-2", "j"), element("m-3", "j")}, archive,
		"the first Start empties the harness's archive; it holds the moves in push order")

	final, err := observe.ScanSinkFinal(ctx, rdb, cfg, run.Appends)
	require.NoError(t, err)
	require.Equal(t, []history.Append{
		{Sink: history.SinkList, Key: "orders", ID: "4", MessageID: "m-4", DataJobID: "j-4", At: final[0].At, Final: true},
		{Sink: history.SinkList, Key: "orders", ID: "5", At: final[1].At, Final: true},
	}, final)
}

// lostReply runs the first command that moves an element and then reports
// an error instead of its reply, as a connection lost after the command:
// the mover's BLMOVE, or its batch script, which it sends in a pipeline,
// when the element was pushed while the mover was not blocked.
type lostReply struct{ done atomic.Bool }

func (h *lostReply) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *lostReply) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, cmd := range cmds {
			if err == nil && h.lose(cmd) {
				return cmd.Err()
			}
		}
		return err
	}
}
func (h *lostReply) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err == nil && h.lose(cmd) {
			return cmd.Err()
		}
		return err
	}
}

// lose replaces cmd's reply by an error when it is the first answered
// command that moved an element.
func (h *lostReply) lose(cmd redis.Cmder) bool {
	if cmd.Err() != nil || !movedAny(cmd) || !h.done.CompareAndSwap(false, true) {
		return false
	}
	cmd.SetErr(errors.New("connection reset (test)"))
	return true
}

// movedAny says whether cmd, answered, moved an element: a BLMOVE that
// returned one, or the batch script whose reply lists some.
func movedAny(cmd redis.Cmder) bool {
	switch cmd.Name() {
	case "blmove":
		return true
	case "evalsha", "eval":
		c, ok := cmd.(*redis.Cmd)
		if !ok {
			return false
		}
		v, err := c.Slice()
		if err != nil || len(v) != 2 {
			return false
		}
		elems, ok := v[1].([]any)
		return ok && len(elems) > 0
	}
	return false
}

func TestListSinkRecordsAMoveWhoseReplyWasLost(t *testing.T) {
	r, admin := localtest.RedisClient(t)
	ctx := localtest.Context(t)
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	hook := &lostReply{}
	rdb.AddHook(hook)
	rec := history.NewRecorder(history.Meta{})
	o := startSink(t, rdb, listSink("", "orders"), rec)
	require.NoError(t, admin.LPush(ctx, "orders", element("m-1", "j-1")).Err()) // its reply is lost
	localtest.Eventually(t, "the lost reply", hook.done.Load)
	require.NoError(t, admin.LPush(ctx, "orders", element("m-2", "j-2")).Err())
	localtest.Eventually(t, "both moves", func() bool { return len(rec.Snapshot().Appends) == 2 })
	require.NoError(t, o.Stop())

	run := rec.Snapshot()
	require.Equal(t, "m-1", run.Appends[0].MessageID, "found in the archive, before the next move")
	require.Equal(t, "m-2", run.Appends[1].MessageID)
	require.Empty(t, run.Gaps)
}

func TestListSinkRedisRestartIsAGapUnlessEveryWriteIsOnDisk(t *testing.T) {
	for _, persistent := range []bool{false, true} {
		t.Run(fmt.Sprintf("persistence=%v", persistent), func(t *testing.T) {
			ctx := localtest.Context(t)
			r, rdb := localtest.RedisClientWith(t, localenv.RedisOptions{Persistence: persistent})
			rec := history.NewRecorder(history.Meta{})
			o := startSink(t, rdb, listSink("", "orders"), rec)
			require.NoError(t, rdb.LPush(ctx, "orders", element("m-1", "j-1")).Err())
			localtest.Eventually(t, "the first move", func() bool { return len(rec.Snapshot().Appends) == 1 })

			require.NoError(t, r.Kill())
			require.NoError(t, r.Start(ctx))
			require.NoError(t, rdb.LPush(ctx, "orders", element("m-2", "j-2")).Err())
			localtest.Eventually(t, "the move after the restart", func() bool { return len(rec.Snapshot().Appends) == 2 })
			require.NoError(t, o.Stop())

			gaps := gapsOf(rec.Snapshot(), observe.SinkSource("orders"))
			if persistent {
				require.Empty(t, gaps, "appendfsync always: nothing acknowledged was lost")
				return
			}
			require.NotEmpty(t, gaps)
			require.Contains(t, gaps[0].Detail, "Redis restarted")
		})
	}
}
