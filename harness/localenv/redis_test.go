package localenv

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

func redisClient(t *testing.T, r *Redis) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(r.URL(0))
	require.NoError(t, err)
	c := redis.NewClient(opts)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestRedisStartPingClose(t *testing.T) {
	ctx := testCtx(t)
	r, err := StartRedis(ctx, RedisOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, r.Version())
	require.NotEqual(t, 6379, r.Port())
	require.Equal(t, "redis://127.0.0.1:"+strconv.Itoa(r.Port())+"/3", r.URL(3))
	c := redisClient(t, r)
	require.NoError(t, c.Ping(ctx).Err())
	events, err := c.ConfigGet(ctx, "notify-keyspace-events").Result()
	require.NoError(t, err)
	require.Equal(t, "", events["notify-keyspace-events"])

	pid := r.Pid()
	require.NoError(t, r.Close())
	require.False(t, processAlive(pid, 0), "server still running after Close")
	require.NoDirExists(t, r.Dir())
	require.NoError(t, r.Close(), "Close is idempotent")
}

func TestRedisKillKeepsDataOnlyWithPersistence(t *testing.T) {
	for _, persist := range []bool{true, false} {
		t.Run("persistence="+strconv.FormatBool(persist), func(t *testing.T) {
			ctx := testCtx(t)
			r := started(t, StartRedis, RedisOptions{Persistence: persist})
			port := r.Port()
			require.NoError(t, redisClient(t, r).Set(ctx, "k", "v", 0).Err())
			require.NoError(t, r.Kill())
			require.NoError(t, r.Start(ctx))
			require.Equal(t, port, r.Port())
			n, err := redisClient(t, r).Exists(ctx, "k").Result()
			require.NoError(t, err)
			if persist {
				require.EqualValues(t, 1, n, "key lost across SIGKILL with appendonly")
			} else {
				require.EqualValues(t, 0, n, "key survived a restart without persistence")
			}
		})
	}
}

func TestRedisStopAndRestart(t *testing.T) {
	ctx := testCtx(t)
	r := started(t, StartRedis, RedisOptions{Persistence: true})
	require.NoError(t, redisClient(t, r).Set(ctx, "k", "v", 0).Err())
	require.NoError(t, r.Stop(ctx))
	require.Zero(t, r.Pid())
	require.NoError(t, r.Restart(ctx))
	require.NoError(t, r.Restart(ctx))
	v, err := redisClient(t, r).Get(ctx, "k").Result()
	require.NoError(t, err)
	require.Equal(t, "v", v)
}

// TestRedisStartRetriesBusyPort occupies the server's port after a kill and
// frees it once the server has reported the failed bind: Start must retry
// and come back on the same port.
func TestRedisStartRetriesBusyPort(t *testing.T) {
	ctx := testCtx(t)
	r := started(t, StartRedis, RedisOptions{})
	port := r.Port()
	require.NoError(t, r.Kill())
	l, err := net.Listen("tcp", r.Addr())
	require.NoError(t, err)
	defer l.Close()

	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()
	logPath := filepath.Join(r.Dir(), "redis.log")
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(logPath)
		return strings.Contains(string(b), "Address already in use")
	}, time.Minute, 20*time.Millisecond)
	require.NoError(t, l.Close())
	require.NoError(t, <-done)
	require.Equal(t, port, r.Port())
	require.NoError(t, redisClient(t, r).Ping(ctx).Err())
}

func TestRedisBusyPortGivesUpAtDeadline(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	defer func(w time.Duration) { bindRetryWindow = w }(bindRetryWindow)
	bindRetryWindow = time.Second
	start := time.Now()
	_, err = StartRedis(testCtx(t), RedisOptions{Port: l.Addr().(*net.TCPAddr).Port})
	require.ErrorContains(t, err, "Address already in use")
	require.ErrorContains(t, err, "stayed busy")
	require.Less(t, time.Since(start), time.Minute)
}

func TestRedisReservedPort(t *testing.T) {
	_, err := StartRedis(context.Background(), RedisOptions{Port: 6379})
	require.ErrorContains(t, err, "reserved for shared servers")
}
