package chaostest

import (
	"bytes"
	"io"
	"sync"
	"testing"
)

// lineLog passes the runner's progress lines to t.Log under -v, and drops
// whatever comes after close: the runner's ticker may write a last line
// while the subtest returns, and t.Log after the end of a test panics.
type lineLog struct {
	mu     sync.Mutex
	t      *testing.T
	buf    bytes.Buffer
	closed bool
}

func newLineLog(t *testing.T) *lineLog { return &lineLog{t: t} }

// writer is the Progress writer: nil (no progress) without -v.
func (l *lineLog) writer() io.Writer {
	if !testing.Verbose() {
		return nil
	}
	return l
}

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return len(p), nil
	}
	l.buf.Write(p)
	for {
		line, err := l.buf.ReadBytes('\n')
		if err != nil { // no full line yet: keep it for the next write
			l.buf.Reset()
			l.buf.Write(line)
			return len(p), nil
		}
		l.t.Log(string(bytes.TrimRight(line, "\n")))
	}
}

func (l *lineLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
}
