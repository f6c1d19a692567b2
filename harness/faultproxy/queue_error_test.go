package faultproxy

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// queueAdd stands in for a BullMQ add: one script writing keys of a queue.
var queueAdd = redis.NewScript(`redis.call('HSET', KEYS[1], 'data', ARGV[1]); return redis.call('LPUSH', KEYS[2], ARGV[2])`)

func addKeys(queue, job string) []string {
	return []string{"bull:" + queue + ":" + job, "bull:" + queue + ":wait"}
}

const brokenReply = "ERR outboxchaos: queue ai-bulk is broken"

func TestQueueErrorRefusesWritesToTheBrokenQueueOnly(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c := redisLink(t, 5*time.Second)
	require.NoError(t, queueAdd.Load(ctx, direct).Err())
	require.NoError(t, direct.HSet(ctx, "bull:ai-bulk:old", "data", "x").Err())
	id := added(t, p, QueueError{Queue: "ai-bulk"})

	err := queueAdd.EvalSha(ctx, c, addKeys("ai-bulk", "j1"), "{}", "j1").Err()
	require.EqualError(t, err, brokenReply)
	require.EqualError(t, queueAdd.Eval(ctx, c, addKeys("ai-bulk", "j1"), "{}", "j1").Err(), brokenReply)
	require.EqualError(t, c.HSet(ctx, "bull:ai-bulk:j2", "data", "{}").Err(), brokenReply)
	require.EqualError(t, c.LPush(ctx, "bull:ai-bulk:wait", "j2").Err(), brokenReply)
	require.EqualError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "bull:ai-bulk:events", Values: []string{"event", "added"}}).Err(), brokenReply)
	require.EqualError(t, c.Del(ctx, "other", "bull:ai-bulk:old").Err(), brokenReply)
	require.Zero(t, direct.Exists(ctx, "bull:ai-bulk:j1", "bull:ai-bulk:j2", "bull:ai-bulk:wait", "bull:ai-bulk:events").Val(), "nothing reached the queue")

	require.NoError(t, queueAdd.EvalSha(ctx, c, addKeys("ai-default", "j1"), "{}", "j1").Err(), "the other queue works")
	require.NoError(t, c.HSet(ctx, "bull:ai-bulk-other:x", "data", "{}").Err(), "a queue whose name only starts alike works")
	require.Equal(t, "x", c.HGet(ctx, "bull:ai-bulk:old", "data").Val(), "reads of the broken queue pass")
	require.NoError(t, c.Set(ctx, "lock:dispatch", "me", 0).Err())

	refused, answered, err := p.Refused(id)
	require.NoError(t, err)
	require.Equal(t, 6, refused)
	require.Equal(t, 6, answered)
	tally, err := p.Tally(id)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"refused": 6, "answered": 6}, tally, "what the history record counts")

	require.NoError(t, p.Remove(id))
	require.NoError(t, queueAdd.EvalSha(ctx, c, addKeys("ai-bulk", "j1"), "{}", "j1").Err(), "healed")
	require.Equal(t, int64(1), direct.Exists(ctx, "bull:ai-bulk:j1").Val())
}

func TestQueueErrorKeepsAPipelinesReplyOrder(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c := redisLink(t, 5*time.Second)
	require.NoError(t, queueAdd.Load(ctx, direct).Err())
	added(t, p, QueueError{Queue: "ai-bulk"})

	pipe := c.Pipeline()
	before := pipe.Set(ctx, "before", "1", 0)
	var adds []*redis.Cmd
	for i, q := range []string{"ai-default", "ai-bulk", "ai-default", "ai-bulk", "ai-bulk", "ai-default"} {
		job := "j" + itoa(i)
		adds = append(adds, queueAdd.EvalSha(ctx, pipe, addKeys(q, job), "{}", job))
	}
	after := pipe.Get(ctx, "before")
	_, _ = pipe.Exec(ctx)
	require.Equal(t, "OK", before.Val())
	for i, cmd := range adds {
		if i == 1 || i == 3 || i == 4 {
			require.EqualError(t, cmd.Err(), brokenReply, "add %d", i)
			continue
		}
		require.NoError(t, cmd.Err(), "add %d", i)
	}
	require.Equal(t, int64(3), direct.LLen(ctx, "bull:ai-default:wait").Val())
	require.Equal(t, "1", after.Val(), "the reply after the adds is the GET's")
	require.NoError(t, c.Ping(ctx).Err())
}

func TestQueueErrorAbortsATransactionThatWritesTheQueue(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c := redisLink(t, 5*time.Second)
	added(t, p, QueueError{Queue: "ai-bulk"})

	_, err := c.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.Set(ctx, "tx-other", "1", 0)
		pipe.HSet(ctx, "bull:ai-bulk:tx", "data", "{}")
		return nil
	})
	require.ErrorContains(t, err, "EXECABORT")
	require.Zero(t, direct.Exists(ctx, "tx-other", "bull:ai-bulk:tx").Val(), "the whole transaction was discarded")

	_, err = c.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.Set(ctx, "tx-other", "1", 0)
		pipe.HSet(ctx, "bull:ai-default:tx", "data", "{}")
		return nil
	})
	require.NoError(t, err, "a transaction on another queue runs")
	require.Equal(t, int64(2), direct.Exists(ctx, "tx-other", "bull:ai-default:tx").Val())
	require.NoError(t, c.Ping(ctx).Err(), "the connection is in step after both")
}

func TestQueueErrorFaultIsValidated(t *testing.T) {
	require.ErrorContains(t, QueueError{}.Validate(), "queue is empty")
	require.ErrorContains(t, QueueError{Queue: "a b"}.Validate(), "whitespace")
	require.ErrorContains(t, QueueError{Queue: "q", Prefix: "bull:x"}.Validate(), "':'")
	require.NoError(t, QueueError{Queue: "q", Prefix: "oc1"}.Validate())
}

func TestQueueErrorWrittenKeys(t *testing.T) {
	q := newQueueError(1, "bull", "ai-bulk")
	args := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, a := range s {
			out[i] = []byte(a)
		}
		return out
	}
	for _, c := range []struct {
		cmd     []string
		refused bool
	}{
		{[]string{"evalsha", "abc", "2", "bull:ai-bulk:wait", "bull:ai-bulk:id", "x"}, true},
		{[]string{"EVALSHA", "abc", "1", "bull:ai-default:wait", "bull:ai-bulk:x"}, false}, // an ARGV, not a key
		{[]string{"FCALL", "add", "1", "bull:ai-bulk:wait"}, true},
		{[]string{"EVAL_RO", "s", "1", "bull:ai-bulk:wait"}, false},
		{[]string{"EVAL", "s", "x", "bull:ai-bulk:wait"}, false}, // no numkeys: not judged
		{[]string{"MSET", "a", "bull:ai-bulk:x", "bull:ai-bulk:y", "1"}, true},
		{[]string{"MSET", "a", "bull:ai-bulk:x"}, false},
		{[]string{"LMOVE", "src", "bull:ai-bulk:wait", "LEFT", "RIGHT"}, true},
		{[]string{"HGETALL", "bull:ai-bulk:1"}, false},
		{[]string{"SET", strings.Repeat("k", 300)}, false},
		{[]string{"SET", "bull:ai-bulk:" + strings.Repeat("k", 300), "v"}, true}, // a key longer than the capture
	} {
		a := args(c.cmd...)
		for i := range a {
			a[i] = a[i][:min(len(a[i]), respMaxCapture)]
		}
		require.Equal(t, c.refused, q.refuses(a), "%v", c.cmd)
	}
}

func TestRedisRefuseSubstitutesAtAnySplit(t *testing.T) {
	q := newQueueError(1, "bull", "ai-bulk")
	broken := respCmd("EVALSHA", "0123456789abcdef0123456789abcdef01234567", "2", "bull:ai-bulk:1", "bull:ai-bulk:wait", strings.Repeat("d", 200))
	other := respCmd("EVALSHA", "0123456789abcdef0123456789abcdef01234567", "1", "bull:ai-default:1", "d")
	in := ping + broken + other + "GET k\r\n" + respCmd("HSET", "bull:ai-bulk:2", "f", "v") + setAfter
	want := ping + string(q.substitute()) + other + "GET k\r\n" + string(q.substitute()) + setAfter
	for k := 0; k <= len(in); k++ {
		sc := newRESPScanner(true)
		sc.keepArgs = true
		r := &redisRefuse{qe: q, sc: sc}
		require.Equal(t, want, feed(r, in, k), "split at %d", k)
	}
}

func TestRedisRewriteReplacesOnlyTheTokensError(t *testing.T) {
	q := newQueueError(1, "bull", "ai-bulk")
	unknown := "-ERR unknown command '" + q.token + "', with args beginning with: \r\n"
	rest := "$3\r\nabc\r\n-ERR other\r\n*2\r\n:1\r\n-ERR inside\r\n"
	in := "+OK\r\n" + unknown + rest + unknown
	mine := "-" + brokenReply + "\r\n"
	want := "+OK\r\n" + mine + rest + mine
	for k := 0; k <= len(in); k++ {
		w := &redisRewrite{qe: q, sc: newRESPScanner(false), token: []byte(q.token)}
		require.Equal(t, want, feed(w, in, k), "split at %d", k)
	}
}
