package faultproxy

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// requireSilent writes req (when given) on c and requires that nothing
// comes back within wait, and that the connection stays open meanwhile.
func requireSilent(t *testing.T, c net.Conn, req string, wait time.Duration) {
	t.Helper()
	if req != "" {
		_, err := c.Write([]byte(req))
		require.NoError(t, err)
	}
	require.NoError(t, c.SetReadDeadline(time.Now().Add(wait)))
	n, err := c.Read(make([]byte, 64))
	require.Zero(t, n, "the half-open link answered")
	require.True(t, isTimeout(err), "the half-open link should stay open and silent, got %v", err)
}

// A command sent on an open connection is held and never answered, a new
// connection is accepted and its first command held too; the link closes
// neither until the fault is removed, and then both; the fault counts one
// held stream and one handshake.
func TestHalfOpenHoldsInFlightCommandsAndHandshakesUntilRemoved(t *testing.T) {
	ctx := localtest.Context(t)
	p, direct, _ := redisLink(t, 5*time.Second)
	open := dial(t, p.Addr())
	rawPing(t, open)
	id := added(t, p, HalfOpen{})
	requireSilent(t, open, "SET held 1\r\n", 500*time.Millisecond)
	fresh := dial(t, p.Addr())
	requireSilent(t, fresh, "PING\r\n", 500*time.Millisecond)
	requireSilent(t, open, "", 200*time.Millisecond)
	require.Zero(t, direct.Exists(ctx, "held").Val(), "the held command never reached Redis")
	tally, err := p.Tally(id)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"held": 1, "handshakes": 1, "closed": 0}, tally)
	require.NoError(t, p.Remove(id))
	requireClosedByPeer(t, open)
	requireClosedByPeer(t, fresh)
	rawPing(t, dial(t, p.Addr()))
}

// Handshake closes the connections open when it starts, so the next
// command goes over a new connection, whose handshake it holds.
func TestHalfOpenHandshakeClosesOpenConnectionsAndHoldsNewOnes(t *testing.T) {
	p, _, _ := redisLink(t, 5*time.Second)
	open := dial(t, p.Addr())
	rawPing(t, open)
	id := added(t, p, HalfOpen{Handshake: true})
	requireClosedByPeer(t, open)
	fresh := dial(t, p.Addr())
	requireSilent(t, fresh, "PING\r\n", 500*time.Millisecond)
	tally, err := p.Tally(id)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"held": 0, "handshakes": 1, "closed": 1}, tally)
	require.NoError(t, p.Remove(id))
	requireClosedByPeer(t, fresh)
	rawPing(t, dial(t, p.Addr()))
}

// MySQL speaks first: a new connection's greeting is held (downstream), so
// the client never gets to send its handshake response; the driver's
// connect waits until its own timeout.
func TestHalfOpenHoldsMySQLsGreeting(t *testing.T) {
	_, p, dsn := mysqlLink(t, 1)
	id := added(t, p, HalfOpen{})
	requireSilent(t, dial(t, p.Addr()), "", 500*time.Millisecond)
	cfg, err := mysql.ParseDSN(dsn)
	require.NoError(t, err)
	cfg.Addr, cfg.Timeout, cfg.ReadTimeout = p.Addr(), time.Second, 300*time.Millisecond
	db, err := mysql.NewConnector(cfg)
	require.NoError(t, err)
	started := time.Now()
	_, err = db.Connect(localtest.Context(t))
	require.Error(t, err, "no greeting, no connection")
	require.Less(t, time.Since(started), 5*time.Second)
	tally, err := p.Tally(id)
	require.NoError(t, err)
	require.Equal(t, 0, tally["held"])
	require.Equal(t, 2, tally["handshakes"], "two greetings held")
	require.NoError(t, p.Remove(id))
	eventually(t, "connect after heal", func() error {
		c, err := db.Connect(localtest.Context(t))
		if err == nil {
			_ = c.Close()
		}
		return err
	})
}

// A client that gives up on a held statement closes its connection, and the
// close passes through the half-open link to the server, which rolls the
// transaction back: its row locks go while the fault still lasts.
func TestHalfOpenPassesAClientsCloseToTheServer(t *testing.T) {
	ctx := localtest.Context(t)
	direct, p, dsn := mysqlLink(t, 1, counterTable...)
	db := localtest.MySQLVia(t, dsn, p.Addr())
	tx := begun(t, ctx, db, "UPDATE t SET v = 1 WHERE id = 1")
	id := added(t, p, HalfOpen{})
	stmt, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err := tx.ExecContext(stmt, "UPDATE t SET v = 2 WHERE id = 1")
	require.Error(t, err, "held, then given up")
	_ = tx.Rollback()
	locked, cancelLock := context.WithTimeout(ctx, 10*time.Second)
	defer cancelLock()
	var v int
	require.NoError(t, direct.QueryRowContext(locked, "SELECT v FROM t WHERE id = 1 FOR UPDATE").Scan(&v),
		"the row lock went with the closed connection")
	require.Equal(t, 0, v, "rolled back")
	tally, err := p.Tally(id)
	require.NoError(t, err)
	require.Equal(t, 1, tally["held"])
	require.NoError(t, p.Remove(id))
}
