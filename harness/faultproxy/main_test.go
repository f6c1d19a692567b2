package faultproxy

import (
	"context"
	"errors"
	"math/rand"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// TestMain fails the package when a test leaves a proxy, a listener or a
// connection goroutine running.
func TestMain(m *testing.M) { localtest.MainNoLeaks(m) }

// newServer returns a server seeded with seed, closed when the test ends.
func newServer(t *testing.T, seed int64) *Server {
	t.Helper()
	s := NewServer(rand.New(rand.NewSource(seed)))
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// redisLink starts a private Redis and a link to it.
func redisLink(t *testing.T, s *Server) (*Proxy, *redis.Client) {
	t.Helper()
	r := localtest.Redis(t)
	p, err := s.Link("redis/t", r.Addr())
	require.NoError(t, err)
	return p, redisClient(t, r.Addr(), 10*time.Second)
}

// redisClient connects with one pooled connection and no retries, so a
// test knows which connection a command used and sees every error.
func redisClient(t *testing.T, addr string, readTimeout time.Duration) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{
		Addr: addr, PoolSize: 1, MaxRetries: -1,
		DialTimeout: 10 * time.Second, ReadTimeout: readTimeout, WriteTimeout: readTimeout,
	})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// eventually polls f until it succeeds or the (generous) deadline passes.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after 30s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
