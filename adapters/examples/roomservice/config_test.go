package roomservice

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func baseEnv() map[string]string {
	return map[string]string{
		EnvMySQLDSN: "root@tcp(127.0.0.1:3306)/x", EnvRedisURL: "redis://127.0.0.1:6379/0",
		EnvNodeID: "n1", EnvQueues: "a, b",
	}
}

func TestConfigDefaultsFollowTheGuide(t *testing.T) {
	vars := baseEnv()
	vars[EnvPollInterval] = "0s" // non-positive: the default, never a busy loop
	vars[EnvBatchSize] = "-3"
	c, err := ConfigFromEnv(env(vars))
	require.NoError(t, err)
	require.Equal(t, DefaultPollInterval, c.PollInterval)
	require.Equal(t, DefaultBatchSize, c.BatchSize)
	require.Equal(t, DefaultPublishTimeout, c.PublishTimeout)
	require.Equal(t, []string{"a", "b"}, c.Queues)
	require.True(t, c.Enabled)
	require.Zero(t, c.MaxRetries, "retry forever unless told")
	require.Zero(t, c.RetryInterval, "retry on the next scan unless told")
	require.Equal(t, "bull", c.BullPrefix)
}

func TestConfigRejects(t *testing.T) {
	for name, c := range map[string]struct{ key, value, want string }{
		"strategy":  {EnvRetryStrategy, "exponential", `only "fixed_interval"`},
		"duration":  {EnvRetryInterval, "soon", "not a duration"},
		"number":    {EnvBatchSize, "many", "not a whole number"},
		"bool":      {EnvEnabled, "yes please", "use true or false"},
		"retries":   {EnvMaxRetries, "-1", "use 0 (retry forever)"},
		"lease":     {EnvLockTTL, "1s", "at least twice"},
		"no queues": {EnvQueues, " , ", "is empty"},
		"no node":   {EnvNodeID, "", "ROOM_NODE_ID is not set"},
	} {
		t.Run(name, func(t *testing.T) {
			vars := baseEnv()
			vars[c.key] = c.value
			_, err := ConfigFromEnv(env(vars))
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestConfigReadsEverything(t *testing.T) {
	vars := baseEnv()
	for k, v := range map[string]string{EnvPollInterval: "50ms", EnvBatchSize: "7", EnvPublishTimeout: "1s",
		EnvRetryStrategy: "fixed_interval", EnvRetryInterval: "100ms", EnvLockTTL: "2s", EnvMaxRetries: "4",
		EnvBullPrefix: "rq", EnvEnabled: "false"} {
		vars[k] = v
	}
	c, err := ConfigFromEnv(env(vars))
	require.NoError(t, err)
	require.Equal(t, Config{MySQLDSN: vars[EnvMySQLDSN], RedisURL: vars[EnvRedisURL], NodeID: "n1",
		Queues: []string{"a", "b"}, BullPrefix: "rq", PollInterval: 50 * time.Millisecond, BatchSize: 7,
		PublishTimeout: time.Second, RetryStrategy: "fixed_interval", RetryInterval: 100 * time.Millisecond,
		LockTTL: 2 * time.Second, MaxRetries: 4}, c)
}
