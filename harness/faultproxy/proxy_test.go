package faultproxy

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

func TestLatencyDelaysARedisPing(t *testing.T) {
	ctx := localtest.Context(t)
	p, _, c := redisLink(t, 10*time.Second)
	require.NoError(t, c.Ping(ctx).Err())

	for _, f := range []Latency{
		{Latency: 200 * time.Millisecond},
		{Latency: 150 * time.Millisecond, Jitter: 50 * time.Millisecond, Direction: Upstream},
	} {
		id := added(t, p, f)
		start := time.Now()
		require.NoError(t, c.Ping(ctx).Err())
		least := (f.Latency - f.Jitter) * 8 / 10
		require.GreaterOrEqual(t, time.Since(start), least, "%+v", f)
		require.NoError(t, p.Remove(id))
		require.NoError(t, c.Ping(ctx).Err())
	}
}

func TestBlackholeTimesOutAndHealRestores(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c := redisLink(t, 500*time.Millisecond)
	require.NoError(t, c.Ping(ctx).Err())

	added(t, p, Blackhole{})
	err := c.Set(ctx, "down-held", "1", 0).Err()
	require.True(t, isTimeout(err), "want a timeout, got %v", err)
	require.Equal(t, "1", direct.Get(ctx, "down-held").Val(), "downstream: the request ran, its reply was held")

	healed(t, ctx, p, c)

	added(t, p, Blackhole{Direction: Upstream})
	err = c.Set(ctx, "up-held", "1", 0).Err()
	require.True(t, isTimeout(err), "want a timeout, got %v", err)
	require.ErrorIs(t, direct.Get(ctx, "up-held").Err(), redis.Nil, "upstream: the request never reached the server")
	healed(t, ctx, p, c)
}

func TestResetBreaksConnectionsAndHealRestores(t *testing.T) {
	ctx := localtest.Context(t)
	p, _, c := redisLink(t, 10*time.Second)
	require.NoError(t, c.Ping(ctx).Err())

	added(t, p, Reset{})
	err := c.Ping(ctx).Err()
	require.Error(t, err)
	require.False(t, isTimeout(err), "a reset is not a timeout: %v", err)
	healed(t, ctx, p, c)
}

func TestDownRefusesAndClosesThenHealListensOnTheSameAddress(t *testing.T) {
	ctx := localtest.Context(t)
	p, _, c := redisLink(t, 10*time.Second)
	addr := p.Addr()
	require.NoError(t, c.Ping(ctx).Err())

	id := added(t, p, Down{})
	require.Error(t, c.Ping(ctx).Err(), "the open connection is closed")
	_, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.Error(t, err, "new connections are refused")
	require.Equal(t, []string{id}, p.Active())

	require.NoError(t, p.Heal())
	require.Equal(t, addr, p.Addr())
	require.Empty(t, p.Active())
	eventually(t, "ping after heal", func() error { return c.Ping(ctx).Err() })
}

func TestBandwidthAndSlicerDeliverTheSameData(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, c := redisLink(t, 30*time.Second)
	value := strings.Repeat("0123456789abcdef", 16<<10) // 256 KiB
	require.NoError(t, direct.Set(ctx, "big", value, 0).Err())

	for _, f := range []Fault{
		Bandwidth{Rate: 1024},
		Slicer{Average: 512, Delay: 10},
		Slicer{Average: 512, Size: 200, Delay: 10},
		Slicer{Average: 64, Size: 32, Direction: Upstream},
	} {
		id := added(t, p, f)
		start := time.Now()
		got, err := c.Get(ctx, "big").Result()
		require.NoError(t, err, "%+v", f)
		require.Equal(t, value, got, "%+v", f)
		if _, ok := f.(Bandwidth); ok { // 256 KiB at 1 MiB/s takes at least ~250 ms
			require.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)
		}
		require.NoError(t, c.Set(ctx, "copy", value, 0).Err())
		require.Equal(t, value, direct.Get(ctx, "copy").Val(), "%+v", f)
		require.NoError(t, p.Remove(id))
	}
}

func TestRedisRestartBehindTheProxyIsReachedAgain(t *testing.T) {
	ctx := localtest.Context(t)
	s := newServer(t, 1)
	r := localtest.Redis(t)
	p, err := s.Link("redis", r.Addr())
	require.NoError(t, err)
	c := redisClient(t, p.Addr(), 5*time.Second)
	require.NoError(t, c.Ping(ctx).Err())

	require.NoError(t, r.Kill())
	eventually(t, "ping fails while redis is down", func() error {
		if c.Ping(ctx).Err() == nil {
			return errPingWorked
		}
		return nil
	})
	require.NoError(t, r.Start(ctx))
	eventually(t, "ping after restart", func() error { return c.Ping(ctx).Err() })
	require.Equal(t, p.Addr(), c.Options().Addr)
}

var errPingWorked = errString("ping still works")

type errString string

func (e errString) Error() string { return string(e) }
