package faultproxy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// feed runs data through a filter in two chunks split at k.
func feed(f filter, data string, k int) string {
	return string(f.process([]byte(data[:k]))) + string(f.process([]byte(data[k:])))
}

func onlyPending(t *testing.T, l *lostReply) *lostConn {
	t.Helper()
	require.Len(t, l.pending, 1)
	for _, c := range l.pending {
		return c
	}
	return nil
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

var (
	evalsha   = respCmd("EVALSHA", "0123456789abcdef0123456789abcdef01234567", "1", "bull:q:1", "data")
	setBefore = respCmd("SET", "before", "1")
	setAfter  = respCmd("SET", "after", "1")
	ping      = respCmd("PING")
)

func TestRedisWatchPutsMarkerBeforeTheAddAndPassesTheRest(t *testing.T) {
	head := ping + setBefore + evalsha
	for _, rest := range []string{setAfter, ""} { // "": the add ends the client's write
		in := head + rest
		for k := 0; k <= len(in); k++ {
			for _, lost := range []bool{true, false} {
				checkWatchFiring(t, in, k, lost)
			}
		}
	}
}

func checkWatchFiring(t *testing.T, in string, k int, lost bool) {
	t.Helper()
	l := newLostReply(1, 2, 1)
	w := &redisWatch{lr: l, sc: newRESPScanner(true)}
	out := feed(w, in, k)
	c := onlyPending(t, l)
	require.True(t, c.judge)
	marker := string(redisMarker(c.token))
	require.Equal(t, strings.Replace(in, evalsha, marker+evalsha, 1), out, "split at %d", k)
	require.False(t, closed(w.signal()))
	require.Equal(t, evalsha, string(w.process([]byte(evalsha))), "no second firing while the first is judged")

	l.settle(c, lost)
	require.True(t, closed(w.signal()))
	require.Empty(t, w.wake())
	require.Nil(t, w.signal())
	out = string(w.process([]byte(evalsha)))
	if lost { // this connection is spent: nothing more is examined
		require.Equal(t, evalsha, out)
		require.Empty(t, l.pending)
		require.Equal(t, 1, l.firedCount())
		return
	}
	// NOSCRIPT: the firing was given back and the watcher watches again.
	require.Equal(t, string(redisMarker(onlyPending(t, l).token))+evalsha, out)
	require.Equal(t, 0, l.firedCount())
}

func TestRedisWatchFiresOnATransactionBeforeMULTI(t *testing.T) {
	txn := respCmd("MULTI") + setBefore + evalsha + respCmd("EXEC")
	for _, rest := range []string{"", ping + evalsha} {
		in := txn + rest
		for k := 0; k <= len(in); k++ {
			l := newLostReply(1, 2, 1)
			w := &redisWatch{lr: l, sc: newRESPScanner(true)}
			out := feed(w, in, k)
			c := onlyPending(t, l)
			require.False(t, c.judge)
			require.Equal(t, string(redisMarker(c.token))+in, out, "split at %d", k)
			w.stopIdle()
		}
	}
}

func TestRedisWatchPassesWhatIsNotAJobAdd(t *testing.T) {
	txn := respCmd("MULTI") + setBefore + respCmd("EXEC")
	in := ping + txn + "GET k\r\n" + setAfter
	for k := 0; k <= len(in); k++ {
		l := newLostReply(1, 1, 1)
		w := &redisWatch{lr: l, sc: newRESPScanner(true)}
		require.Equal(t, in, feed(w, in, k), "split at %d", k)
		require.Empty(t, l.pending)
		w.stopIdle()
	}
}

func TestRedisWatchPassesEverythingOnceSpent(t *testing.T) {
	l := newLostReply(1, 1, 1)
	l.settle(l.fire(true), true)
	w := &redisWatch{lr: l, sc: newRESPScanner(true)}
	in := evalsha + evalsha
	require.Equal(t, in, feed(w, in, 7))
}

func TestRedisWatchReleasesAQuietTransaction(t *testing.T) {
	l := newLostReply(1, 1, 1)
	w := &redisWatch{lr: l, sc: newRESPScanner(true)}
	multi := respCmd("MULTI")
	require.Empty(t, w.process([]byte(multi)))
	<-w.signal() // the idle timer: the client waits for MULTI's reply
	require.Equal(t, multi, string(w.wake()))
	rest := evalsha + respCmd("EXEC")
	require.Equal(t, rest, string(w.process([]byte(rest))), "a released transaction passes unexamined")
	require.Empty(t, l.pending)
}

func TestRedisDropDropsFromTheMarkerOn(t *testing.T) {
	l := newLostReply(1, 1, 1)
	c := l.fire(true)
	marker := "$" + itoa(len(c.token)) + "\r\n" + c.token + "\r\n"
	in := "+OK\r\n" + marker + "$6\r\nbull:1\r\n" + "+OK\r\n"
	for k := 0; k <= len(in); k++ {
		l := newLostReply(1, 1, 1)
		c := l.fire(true)
		d := &redisDrop{lr: l, sc: newRESPScanner(false)}
		require.Equal(t, "+OK\r\n", feed(d, in, k), "split at %d", k)
		require.True(t, closed(c.done))
		require.True(t, c.lost)
		_, keep := d.flush()
		require.False(t, keep)
	}
}

func TestRedisDropLetsANOSCRIPTReplyThrough(t *testing.T) {
	l := newLostReply(1, 1, 1)
	c := l.fire(true)
	marker := "$" + itoa(len(c.token)) + "\r\n" + c.token + "\r\n"
	noscript := "-NOSCRIPT No matching script. Please use EVAL.\r\n"
	in := marker + noscript + "+OK\r\n"
	for k := 0; k <= len(in); k++ {
		l := newLostReply(1, 1, 1)
		c := l.fire(true)
		d := &redisDrop{lr: l, sc: newRESPScanner(false)}
		require.Equal(t, noscript+"+OK\r\n", feed(d, in, k), "split at %d", k)
		require.True(t, closed(c.done))
		require.False(t, c.lost)
		require.True(t, l.canFire(), "the firing is given back")
	}
}

func TestRedisDropPassesLookAlikesWhole(t *testing.T) {
	l := newLostReply(1, 1, 1)
	c := l.fire(true)
	same := strings.Repeat("z", len(c.token))
	in := "$" + itoa(len(same)) + "\r\n" + same + "\r\n" + ":1\r\n"
	d := &redisDrop{lr: l, sc: newRESPScanner(false)}
	require.Equal(t, in, string(d.process([]byte(in))), "a complete reply is never held back")
	require.False(t, closed(c.done))
}
