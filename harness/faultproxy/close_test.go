package faultproxy

import (
	"bufio"
	"context"
	"math/rand"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// rawPing sends an inline PING on a raw connection and waits for PONG.
func rawPing(t *testing.T, c net.Conn) {
	t.Helper()
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	_, err := c.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	line, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "+PONG\r\n", line)
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// requireClosedByPeer waits for the proxy to close c.
func requireClosedByPeer(t *testing.T, c net.Conn) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(20*time.Second)))
	_, err := c.Read(make([]byte, 64))
	require.Error(t, err)
	require.False(t, isTimeout(err), "the connection should be closed, not silent: %v", err)
}

func TestCloseStopsEverythingAndLeaksNoGoroutine(t *testing.T) {
	r := localtest.Redis(t)
	before := goleak.IgnoreCurrent()
	s := NewServer(rand.New(rand.NewSource(1)))
	var addrs []string
	var conns []net.Conn
	link := func(name string) *Proxy {
		p, err := s.Link(name, r.Addr())
		require.NoError(t, err)
		addrs = append(addrs, p.Addr())
		return p
	}
	open := func(p *Proxy, ping bool) {
		c := dial(t, p.Addr())
		if ping {
			rawPing(t, c)
		} else { // its reply will be held by a blackhole
			_, err := c.Write([]byte("PING\r\n"))
			require.NoError(t, err)
		}
		conns = append(conns, c)
	}

	plain, slow, lossy := link("redis/plain"), link("redis/slow"), link("redis/lossy")
	down := link("redis/down")
	open(plain, true)
	_, err := slow.Add(Latency{Latency: 5 * time.Millisecond})
	require.NoError(t, err)
	open(slow, true)
	_, err = lossy.Add(LostReplyRedisAdd{})
	require.NoError(t, err)
	open(lossy, true)
	_, err = lossy.Add(Blackhole{})
	require.NoError(t, err)
	open(lossy, false)
	_, err = down.Add(Down{})
	require.NoError(t, err)

	require.True(t, listeningHere(t, plain.Addr()), "the probe must see a live proxy's listener")
	require.NoError(t, s.Close())
	for _, c := range conns {
		requireClosedByPeer(t, c)
		require.NoError(t, c.Close())
	}
	for _, a := range addrs {
		// Not a dial: on a busy machine another test may take the freed
		// port at once. What must be gone is THIS process's listener.
		require.False(t, listeningHere(t, a), "%s is still listened on by this process", a)
	}
	localtest.NoLeaks(t, before)
}

func TestRemovingALostReplyFaultClosesOnlyTheConnectionsThatLostOne(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, direct, _ := redisLink(t, 10*time.Second)
	sha, err := addScript.Load(ctx, direct).Result()
	require.NoError(t, err)
	other, lossy := dial(t, p.Addr()), dial(t, p.Addr())
	rawPing(t, other)
	rawPing(t, lossy)
	id := added(t, p, LostReplyRedisAdd{})

	_, err = lossy.Write([]byte(respCmd("EVALSHA", sha, "1", "job:raw", "v")))
	require.NoError(t, err)
	require.NoError(t, lossy.SetReadDeadline(time.Now().Add(500*time.Millisecond)))
	_, err = lossy.Read(make([]byte, 64))
	require.True(t, isTimeout(err), "want no reply, got %v", err)
	eventually(t, "the add ran", func() error { return direct.Get(ctx, "job:raw").Err() })

	require.NoError(t, p.Remove(id))
	requireClosedByPeer(t, lossy)
	rawPing(t, other)
	require.False(t, strings.Contains(strings.Join(p.Active(), ","), id))
}

// listeningHere reports whether this process holds a listening TCP socket on
// addr's port: a LISTEN row of /proc/net/tcp whose inode is one of this
// process's open file descriptors.
func listeningHere(t *testing.T, addr string) bool {
	t.Helper()
	_, portText, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	port, err := strconv.Atoi(portText)
	require.NoError(t, err)
	table, err := os.ReadFile("/proc/net/tcp")
	require.NoError(t, err)
	inodes := map[string]bool{}
	for _, line := range strings.Split(string(table), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "0A" { // 0A: LISTEN
			continue
		}
		if _, hexPort, ok := strings.Cut(f[1], ":"); ok {
			if p, err := strconv.ParseInt(hexPort, 16, 32); err == nil && int(p) == port {
				inodes["socket:["+f[9]+"]"] = true
			}
		}
	}
	fds, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && inodes[target] {
			return true
		}
	}
	return false
}
