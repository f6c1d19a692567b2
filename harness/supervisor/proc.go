package supervisor

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Causes of an exit: what the harness did to the instance, if anything.
const (
	CauseKill        = "kill"         // Kill, Restart or TrapWindow
	CauseTerm        = "term"         // Term, exited within its timeout
	CauseTermTimeout = "term-timeout" // Term, then SIGKILL after the timeout
	CauseClose       = "close"        // Close
	CauseCrashpoint  = "crashpoint"   // the instance crashed at a failpoint
)

// Proc is one running (or finished) instance.
type Proc struct {
	Slot    string
	ID      string // instance id, OUTBOX_INSTANCE_ID
	PID     int
	LogPath string
	Started time.Time

	cmd  *exec.Cmd
	out  *output
	done chan struct{}

	mu     sync.Mutex
	cause  string
	paused bool
	exit   Exit // set before done is closed
}

// Exit is how an instance ended.
type Exit struct {
	Slot     string    `json:"slot"`
	Instance string    `json:"instance"`
	PID      int       `json:"pid"`
	At       time.Time `json:"at"`
	// Code is the exit code, -1 when a signal ended the process.
	Code int `json:"code"`
	// Signal names the signal that ended the process ("killed"), if any.
	Signal string `json:"signal,omitempty"`
	// Cause is what the harness did (Cause* constants); empty when the
	// instance exited on its own.
	Cause string `json:"cause,omitempty"`
	// Crashpoint is the failpoint the instance reported crashing at.
	Crashpoint string `json:"crashpoint,omitempty"`
	// Tail holds the last lines of the instance's output (stdout and
	// stderr as read); LastStderr is the last line on stderr.
	Tail       []string `json:"tail,omitempty"`
	LastStderr string   `json:"last_stderr,omitempty"`
}

// Unexpected reports whether the instance exited without the harness
// causing it (no signal from the harness, no crash point).
func (e Exit) Unexpected() bool { return e.Cause == "" }

// Status is "exit code N" or "signal NAME".
func (e Exit) Status() string {
	if e.Signal != "" {
		return "signal " + e.Signal
	}
	return fmt.Sprintf("exit code %d", e.Code)
}

// String reads "instance d2 exited with code 2: <last stderr line>".
func (e Exit) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "instance %s", e.Instance)
	if e.Signal != "" {
		fmt.Fprintf(&b, " was ended by signal %s", e.Signal)
	} else {
		fmt.Fprintf(&b, " exited with code %d", e.Code)
	}
	switch {
	case e.Cause == CauseCrashpoint:
		fmt.Fprintf(&b, " (crash point %s)", e.Crashpoint)
	case e.Cause != "":
		fmt.Fprintf(&b, " (harness: %s)", e.Cause)
	}
	if last := e.lastLine(); last != "" {
		b.WriteString(": " + last)
	}
	return b.String()
}

func (e Exit) lastLine() string {
	if e.LastStderr != "" {
		return e.LastStderr
	}
	if len(e.Tail) > 0 {
		return e.Tail[len(e.Tail)-1]
	}
	return ""
}

// CrashEvent says an instance reported "failpoint <name>: crash" on stderr
// and then died.
type CrashEvent struct {
	Slot     string
	Instance string
	Point    string
	At       time.Time // when the crash line was read
	Exit     Exit
}

// Done is closed once the instance has exited and its exit is recorded.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exit returns the instance's exit; ok is false while it runs.
func (p *Proc) Exit() (e Exit, ok bool) {
	select {
	case <-p.done:
		return p.exit, true
	default:
		return Exit{}, false
	}
}

// Wait waits for the instance to exit or ctx to end.
func (p *Proc) Wait(ctx context.Context) (Exit, error) {
	select {
	case <-p.done:
		return p.exit, nil
	case <-ctx.Done():
		return Exit{}, fmt.Errorf("wait for instance %s: %w", p.ID, ctx.Err())
	}
}

// Alive reports whether the instance has not exited yet.
func (p *Proc) Alive() bool {
	_, exited := p.Exit()
	return !exited
}

// Paused reports whether the instance is stopped by Pause.
func (p *Proc) Paused() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.paused
}

// setCause records what the harness is about to do; the first cause sticks
// except that a term turns into term-timeout.
func (p *Proc) setCause(c string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cause == "" || (p.cause == CauseTerm && c == CauseTermTimeout) {
		p.cause = c
	}
}

func (p *Proc) setPaused(v bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused = v
}
