package supervisor

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/redact"
)

const (
	tailLines   = 20        // lines kept for Exit.Tail
	maxLineKept = 4096      // bytes of one line kept for analysis
	readBuffer  = 64 * 1024 // bytes read at once
)

// output copies an instance's stdout and stderr to its log file, keeps the
// last lines, and spots the crash-point line on stderr. Every line passes
// through redact.String before it is written or kept: a dispatcher that
// prints its DSN leaves no password in logs/*.log (a line longer than the
// read buffer is redacted piece by piece).
type output struct {
	mu         sync.Mutex
	log        *os.File
	tail       []string
	lastStderr string
	crashpoint string
	crashAt    time.Time
	onCrash    func(point string, at time.Time)
	readers    sync.WaitGroup
	pipes      []*os.File
}

func newOutput(log *os.File, onCrash func(string, time.Time)) *output {
	return &output{log: log, onCrash: onCrash}
}

// follow starts copying r; stderr marks the stream the crash line comes on.
func (o *output) follow(r *os.File, stderr bool) {
	o.pipes = append(o.pipes, r)
	o.readers.Add(1)
	go func() {
		defer o.readers.Done()
		o.copy(r, stderr)
	}()
}

func (o *output) copy(r io.Reader, stderr bool) {
	br := bufio.NewReaderSize(r, readBuffer)
	var line []byte
	for {
		raw, err := br.ReadSlice('\n')
		chunk := []byte(redact.String(string(raw)))
		o.write(chunk)
		if len(line) < maxLineKept {
			line = append(line, chunk[:min(len(chunk), maxLineKept-len(line))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 {
			o.endLine(string(bytes.TrimRight(line, "\r\n")), stderr)
			line = line[:0]
		}
		if err != nil {
			return
		}
	}
}

func (o *output) write(b []byte) {
	if len(b) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	// A log write error must not stop the copy: the instance would block on
	// a full pipe. The tail still reaches the history.
	_, _ = o.log.Write(b)
}

func (o *output) endLine(line string, stderr bool) {
	o.mu.Lock()
	o.tail = append(o.tail, line)
	if len(o.tail) > tailLines {
		o.tail = o.tail[len(o.tail)-tailLines:]
	}
	var point string
	if stderr {
		if strings.TrimSpace(line) != "" {
			o.lastStderr = line
		}
		if p, ok := parseCrashLine(line); ok {
			point = p
			o.crashpoint, o.crashAt = p, time.Now().UTC()
		}
	}
	at := o.crashAt
	o.mu.Unlock()
	if point != "" && o.onCrash != nil {
		o.onCrash(point, at)
	}
}

// drain waits until both streams hit end of file, at most timeout (a child
// that escaped the process group may hold a pipe open), then closes the
// pipes and the log.
func (o *output) drain(timeout time.Duration) {
	finished := make(chan struct{})
	go func() {
		o.readers.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(timeout):
		for _, p := range o.pipes {
			_ = p.Close() // unblocks the readers
		}
		<-finished
	}
	for _, p := range o.pipes {
		_ = p.Close()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	_ = o.log.Close()
}

// snapshot returns the tail, the last stderr line and the crash point.
func (o *output) snapshot() (tail []string, lastStderr, crashpoint string, crashAt time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.tail...), o.lastStderr, o.crashpoint, o.crashAt
}

// parseCrashLine recognises exactly "failpoint <name>: crash".
func parseCrashLine(line string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "failpoint ")
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, ": crash")
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return "", false
	}
	return name, true
}
