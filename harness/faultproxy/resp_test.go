package faultproxy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// respCmd encodes a request as a RESP array of bulk strings.
func respCmd(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

// scanAll feeds data to a scanner in chunks cut at the given offsets and
// returns the events, with the command name after each respName.
func scanAll(t *testing.T, s *respScanner, data string, cuts ...int) []string {
	t.Helper()
	var evs []string
	names := map[respEvent]string{respStart: "start", respHeader: "header", respName: "name", respEnd: "end"}
	prev := 0
	for _, c := range append(cuts, len(data)) {
		chunk := []byte(data[prev:c])
		prev = c
		for guard := 0; ; guard++ {
			require.Less(t, guard, 10000, "scanner does not progress")
			n, ev := s.next(chunk)
			chunk = chunk[n:]
			if ev == respNone {
				require.Empty(t, chunk, "respNone with bytes left")
				break
			}
			e := names[ev]
			if ev == respName {
				e += ":" + string(s.name)
			}
			evs = append(evs, e)
		}
	}
	return evs
}

func TestRESPScannerFindsCommandsAtEverySplit(t *testing.T) {
	in := respCmd("HELLO", "3") + "PING extra\r\n" + respCmd("EVALSHA", "abc", "1", "k", strings.Repeat("x", 300)) + respCmd()
	want := []string{
		"start", "header", "name:HELLO", "end",
		"start", "name:PING", "end",
		"start", "header", "name:EVALSHA", "end",
		"start", "header", "end",
	}
	for k := 0; k <= len(in); k++ {
		s := newRESPScanner(true)
		require.Equal(t, want, scanAll(t, s, in, k), "split at %d", k)
		require.False(t, s.broken)
	}
}

func TestRESPScannerWalksRESP3Replies(t *testing.T) {
	replies := []string{
		"+OK\r\n", "-ERR no\r\n", ":12\r\n", ",1.5\r\n", "(123\r\n", "#t\r\n", "_\r\n",
		"$5\r\nhello\r\n", "$-1\r\n", "!3\r\nerr\r\n", "=7\r\ntxt:abc\r\n",
		"*2\r\n:1\r\n*1\r\n$1\r\na\r\n", "*0\r\n", "*-1\r\n",
		"%2\r\n+a\r\n:1\r\n+b\r\n~1\r\n:2\r\n",
		"|1\r\n+ttl\r\n:3\r\n$1\r\nv\r\n",
		">2\r\n+invalidate\r\n*1\r\n$1\r\nk\r\n",
	}
	in := strings.Join(replies, "")
	for k := 0; k <= len(in); k++ {
		s := newRESPScanner(false)
		ends := 0
		for _, e := range scanAll(t, s, in, k) {
			if e == "end" {
				ends++
			}
		}
		require.Equal(t, len(replies), ends, "split at %d", k)
		require.False(t, s.broken)
	}
}

func TestRESPScannerCapturesTopLevelBulkAndGivesUpOnStreamedTypes(t *testing.T) {
	s := newRESPScanner(false)
	scanAll(t, s, "$3\r\nabc\r\n")
	require.Equal(t, "abc", string(s.topBulk))
	require.Equal(t, 3, s.topLen)

	s = newRESPScanner(false)
	scanAll(t, s, "$?\r\n;4\r\nabcd\r\n;0\r\n")
	require.True(t, s.broken)
}

func itoa(n int) string { return fmt.Sprint(n) }
