package faultproxy

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIsCommitQuery(t *testing.T) {
	yes := []string{
		"COMMIT", "commit", " Commit ;", "COMMIT WORK", "commit and no chain", "COMMIT NO RELEASE",
		"/* tx 7 */ COMMIT", "COMMIT -- done\n", "COMMIT # done", "\n\tCOMMIT/**/;",
	}
	no := []string{
		"", "COMMITTED", "SELECT 'COMMIT'", "ROLLBACK", "COMMIT; SELECT 1", "COMMIT garbage",
		"/* COMMIT", "-- COMMIT", "XA COMMIT 'x'", "COMMIT--x", "INSERT INTO t VALUES (1)",
	}
	for _, q := range yes {
		require.True(t, isCommitQuery(q), q)
	}
	for _, q := range no {
		require.False(t, isCommitQuery(q), q)
	}
}

// packet builds one MySQL packet.
func packet(seq byte, payload string) string {
	n := len(payload)
	return string([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}) + payload
}

func query(sql string) string { return packet(0, "\x03"+sql) }

func TestPacketScannerFindsPacketsAtEverySplit(t *testing.T) {
	in := query("SELECT 1") + packet(0, "") + query(strings.Repeat("x", 5000))
	for k := 0; k <= len(in); k++ {
		var s packetScanner
		var got []int
		for _, chunk := range []string{in[:k], in[k:]} {
			b := []byte(chunk)
			for {
				n, ev := s.next(b)
				b = b[n:]
				if ev == pktNone {
					break
				}
				if ev == pktEnd {
					got = append(got, s.length, len(s.payload))
				}
			}
		}
		require.Equal(t, []int{9, 9, 0, 0, 5001, mysqlCaptureSize}, got, "split at %d", k)
	}
}

func TestMySQLWatchPutsMarkerBeforeCommitAndPassesTheRest(t *testing.T) {
	sel, commit, quit := query("SELECT 1"), query("commit"), packet(0, "\x01")
	for k := 0; k <= len(sel+commit+quit); k++ {
		in := sel + commit + quit
		if k > len(sel+commit) {
			in = sel + commit // COMMIT ends the client's write
		}
		l := newLostReply(1, 2, 1)
		w := &mysqlWatch{lr: l}
		out := feed(w, in, min(k, len(in)))
		c := onlyPending(t, l)
		require.Equal(t, sel+string(mysqlMarker(c.token))+in[len(sel):], out, "split at %d", k)
		require.Equal(t, commit, string(w.process([]byte(commit))), "fired once, then passes")
	}
}

func TestMySQLWatchLeavesTLSConnectionsAlone(t *testing.T) {
	flags := make([]byte, 32)
	binary.LittleEndian.PutUint32(flags, mysqlClientSSL)
	in := packet(1, string(flags)) + query("COMMIT")
	l := newLostReply(1, 1, 1)
	w := &mysqlWatch{lr: l}
	require.Equal(t, in, feed(w, in, 3))
	require.Empty(t, l.pending)
}

func TestMySQLDropDropsTheMarkerResultAndAllAfter(t *testing.T) {
	ok := packet(1, "\x00\x00\x00\x02\x00\x00\x00")
	for k := 0; k < 400; k++ {
		l := newLostReply(1, 1, 1)
		c := l.fire(false)
		count := packet(1, "\x01")
		if k >= 200 { // MariaDB: column count, then a metadata-follows byte
			count = packet(1, "\x01\x01")
		}
		result := count + packet(2, "\x03def\x00\x00\x00"+string(rune(len(c.token)))+c.token) +
			packet(3, string(rune(len(c.token)))+c.token) + packet(4, "\xfe\x00\x00\x02\x00")
		in := ok + result + ok
		d := &mysqlDrop{lr: l}
		require.Equal(t, ok, feed(d, in, min(k%200, len(in))), "split at %d", k)
		require.True(t, c.lost)
		_, keep := d.flush()
		require.False(t, keep)
	}
}

func TestMySQLDropPassesOtherOneColumnResults(t *testing.T) {
	l := newLostReply(1, 1, 1)
	c := l.fire(false)
	in := packet(1, "\x01") + packet(2, "\x03def\x00\x00\x00\x02id") + packet(3, "\x017") + packet(4, "\xfe\x00\x00\x02\x00")
	for k := 0; k <= len(in); k++ {
		d := &mysqlDrop{lr: l}
		require.Equal(t, in, feed(d, in, k), "split at %d", k)
	}
	require.False(t, closed(c.done))
}
