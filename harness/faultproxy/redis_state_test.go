package faultproxy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// Each state answers every write, on any key, with Redis's own reply for
// it; reads pass, and the fault counts the writes it answered.
func TestRedisStateRefusesEveryWriteWithTheStatesReply(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c := redisLink(t, 5*time.Second)
	require.NoError(t, queueAdd.Load(ctx, direct).Err())
	require.NoError(t, direct.Set(ctx, "kept", "x", 0).Err())
	replies := map[string]string{
		RedisReadOnly: "READONLY You can't write against a read only replica.",
		RedisLoading:  "LOADING Redis is loading the dataset in memory",
		RedisOOM:      "OOM command not allowed when used memory > 'maxmemory'.",
	}
	for _, state := range []string{RedisReadOnly, RedisLoading, RedisOOM} {
		id := added(t, p, RedisState{State: state})
		require.EqualError(t, queueAdd.EvalSha(ctx, c, addKeys("ai-bulk", "j1"), "{}", "j1").Err(), replies[state], state)
		require.EqualError(t, queueAdd.EvalSha(ctx, c, addKeys("ai-default", "j1"), "{}", "j1").Err(), replies[state], "every queue: %s", state)
		require.EqualError(t, c.Set(ctx, "lock:dispatch", "me", 0).Err(), replies[state], state)
		require.Equal(t, "x", c.Get(ctx, "kept").Val(), "reads pass: %s", state)
		refused, answered, err := p.Refused(id)
		require.NoError(t, err)
		require.Equal(t, 3, refused, state)
		require.Equal(t, refused, answered, state)
		require.NoError(t, p.Remove(id))
	}
	require.Zero(t, direct.Exists(ctx, "bull:ai-bulk:j1", "bull:ai-default:j1", "lock:dispatch").Val(), "no write reached Redis")
	require.NoError(t, queueAdd.EvalSha(ctx, c, addKeys("ai-bulk", "j1"), "{}", "j1").Err(), "healed")
}
