package dispatchtest

import (
	"bytes"
	"sync"
)

// Output collects a child process's output (cmd.Stdout or cmd.Stderr): the
// goroutine exec starts to copy it writes while the test reads String.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

// String is everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}
