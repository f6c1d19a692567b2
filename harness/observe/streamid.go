package observe

import (
	"strconv"
	"strings"
	"time"
)

// streamID is a parsed stream entry id "<ms>-<seq>".
type streamID struct{ ms, seq uint64 }

// parseStreamID parses an id; "", "0" and malformed ids read as 0-0.
func parseStreamID(s string) streamID {
	msText, seqText, _ := strings.Cut(s, "-")
	ms, err := strconv.ParseUint(msText, 10, 64)
	if err != nil {
		return streamID{}
	}
	seq, _ := strconv.ParseUint(seqText, 10, 64)
	return streamID{ms, seq}
}

// compare returns -1, 0 or 1 as a is before, equal to or after b.
func (a streamID) compare(b streamID) int {
	switch {
	case a.ms < b.ms || (a.ms == b.ms && a.seq < b.seq):
		return -1
	case a == b:
		return 0
	}
	return 1
}

// newer reports whether id a is after id b.
func newer(a, b string) bool { return parseStreamID(a).compare(parseStreamID(b)) > 0 }

// time is the entry's creation time on the Redis clock.
func (a streamID) time() time.Time { return time.UnixMilli(int64(a.ms)).UTC() }
