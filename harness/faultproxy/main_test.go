package faultproxy

import (
	"context"
	"database/sql"
	"errors"
	"math/rand"
	"net"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
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

// mysqlLink creates a fresh database on the shared MariaDB, runs setup on
// it directly, and links a new server seeded with seed to it. It returns
// the direct pool (to look behind the proxy), the link and the database's
// DSN; localtest.MySQLVia(t, dsn, p.Addr()) connects through the link.
func mysqlLink(t *testing.T, seed int64, setup ...string) (*sql.DB, *Proxy, string) {
	t.Helper()
	direct, dsn := localtest.MySQLWith(t, setup...)
	cfg, err := mysql.ParseDSN(dsn)
	require.NoError(t, err)
	p, err := newServer(t, seed).Link("mysql", cfg.Addr)
	require.NoError(t, err)
	return direct, p, dsn
}

// added adds f to p and returns its id.
func added(t *testing.T, p *Proxy, f Fault) string {
	t.Helper()
	id, err := p.Add(f)
	require.NoError(t, err)
	return id
}

// begun begins a transaction on db and runs stmt in it; the caller ends it.
func begun(t *testing.T, ctx context.Context, db *sql.DB, stmt string) *sql.Tx {
	t.Helper()
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, stmt)
	require.NoError(t, err)
	return tx
}

// redisLink starts a private Redis and a link to it on a server seeded 1.
// It returns the link, a client straight to Redis, and one through the link
// with readTimeout (redisClient).
func redisLink(t *testing.T, readTimeout time.Duration) (*Proxy, *redis.Client, *redis.Client) {
	t.Helper()
	r := localtest.Redis(t)
	p, err := newServer(t, 1).Link("redis/t", r.Addr())
	require.NoError(t, err)
	return p, redisClient(t, r.Addr(), 10*time.Second), redisClient(t, p.Addr(), readTimeout)
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

// healed heals p and waits until a ping through it, on c, is answered again.
func healed(t *testing.T, ctx context.Context, p *Proxy, c *redis.Client) {
	t.Helper()
	require.NoError(t, p.Heal())
	eventually(t, "ping after heal", func() error { return c.Ping(ctx).Err() })
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
