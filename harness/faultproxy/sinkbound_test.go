package faultproxy

import (
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// A stream or list sink's publish is an XADD or an LPUSH: bound to the
// sink, lost-reply-redis-add loses that reply, and a script's passes.
func TestLostReplyRedisAddOnASinkLosesThePublishReply(t *testing.T) {
	ctx := localtest.Context(t)
	for _, c := range []struct {
		sink    string
		publish func(*redis.Client) error
		landed  func(*redis.Client) int64
	}{
		{"redis-stream", func(c *redis.Client) error {
			return c.XAdd(ctx, &redis.XAddArgs{Stream: "orders", Values: []string{"message_id", "m1"}}).Err()
		}, func(d *redis.Client) int64 { return d.XLen(ctx, "orders").Val() }},
		{"redis-list", func(c *redis.Client) error { return c.LPush(ctx, "jobs", `{"id":"1"}`).Err() },
			func(d *redis.Client) int64 { return d.LLen(ctx, "jobs").Val() }},
	} {
		t.Run(c.sink, func(t *testing.T) {
			p, direct, cl := redisLink(t, lostTimeout)
			require.NoError(t, addScript.Load(ctx, direct).Err())
			require.NoError(t, cl.Ping(ctx).Err())
			f := LostReplyRedisAdd{}.OnSink(c.sink)
			require.Equal(t, c.sink, f.Params()["sink"], "the record names the sink")
			id := added(t, p, f)
			require.NoError(t, addScript.EvalSha(ctx, cl, []string{"job:1"}, "v").Err(), "a script is no publish on this sink")
			err := c.publish(cl)
			require.True(t, isTimeout(err), "want a timeout, got %v", err)
			require.Equal(t, int64(1), c.landed(direct), "the publish ran")
			fired, err := p.Fired(id)
			require.NoError(t, err)
			require.Equal(t, 1, fired)
		})
	}
	require.Error(t, LostReplyRedisAdd{Sink: "kafka"}.Validate())
	_, recorded := LostReplyRedisAdd{}.Params()["sink"]
	require.False(t, recorded, "a BullMQ run's record is as before")
}

// Bound to a stream or list sink, queue-error refuses writes to the key
// that is the queue itself, and nothing under a BullMQ prefix.
func TestQueueErrorOnASinkRefusesTheQueuesKey(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c := redisLink(t, lostTimeout)
	added(t, p, QueueError{Queue: "ai-bulk"}.OnSink("redis-list"))
	require.EqualError(t, c.LPush(ctx, "ai-bulk", "x").Err(), brokenReply)
	require.EqualError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "ai-bulk", Values: []string{"a", "b"}}).Err(), brokenReply)
	require.NoError(t, c.LPush(ctx, "ai-default", "x").Err(), "the other queue flows")
	require.NoError(t, c.LPush(ctx, "ai-bulk-2", "x").Err(), "a key that only starts alike flows")
	require.NoError(t, c.HSet(ctx, "bull:ai-bulk:j1", "data", "{}").Err(), "BullMQ's keys are not this sink's")
	require.Zero(t, direct.Exists(ctx, "ai-bulk").Val())
}
