package faultproxy

import (
	"sync"
	"time"
)

const commitHoldToxicType = "outboxchaos_commit_hold_mysql"

// commitHold is one commit-hold-mysql fault's shared state: how many
// COMMITs it may still hold, for how long, and when it held them.
type commitHold struct {
	hold time.Duration

	mu    sync.Mutex
	left  int
	holds []HeldCommit
}

// HeldCommit is one COMMIT a commit-hold fault held: when it reached the
// proxy, and when it was sent on (zero while still held).
type HeldCommit struct {
	At, Released time.Time
}

func newCommitHold(times int, hold time.Duration) *commitHold {
	return &commitHold{hold: hold, left: times}
}

func (c *commitHold) canHold() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.left > 0
}

// take claims one hold for a COMMIT seen now; it returns its index, or -1
// when none is left.
func (c *commitHold) take(now time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left <= 0 {
		return -1
	}
	c.left--
	c.holds = append(c.holds, HeldCommit{At: now})
	return len(c.holds) - 1
}

func (c *commitHold) release(i int, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holds[i].Released.IsZero() {
		c.holds[i].Released = now
	}
}

func (c *commitHold) held() []HeldCommit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]HeldCommit(nil), c.holds...)
}

// commitHolds holds every commit-hold fault's shared state.
var commitHolds = &registry[commitHold]{prefix: "commit-hold-"}

// commitHoldKind is the one (upstream) toxic of commit-hold-mysql.
type commitHoldKind struct{}

func (commitHoldKind) registry() *registry[commitHold] { return commitHolds }
func (commitHoldKind) filter(s *commitHold) filter {
	return &commitHoldFilter{ch: s, idx: -1}
}

// commitHoldFilter finds COM_QUERY COMMIT packets in the client's stream,
// as mysqlWatch does (mysqlCommands). The first one the fault may hold is
// kept back, with everything the client sends after it, for the fault's
// hold; then it all goes on and the connection passes untouched. The
// transaction's statements ran and keep their row locks meanwhile.
type commitHoldFilter struct {
	ch     *commitHold
	parked bool // a COMMIT is held: everything waits for the timer
	done   bool // held and released: pass everything
	idx    int
	sig    chan struct{} // closed when the hold is over
	mysqlCommands
}

func (w *commitHoldFilter) process(data []byte) []byte { return scanChunk(&w.hold, &w.sc, w, data) }

func (w *commitHoldFilter) mode() scanMode {
	switch {
	case w.parked:
		return scanHold
	case w.done:
		return scanPass
	}
	return w.mysqlCommands.mode()
}

func (w *commitHoldFilter) on(ev packetEvent) { w.onPacket(ev, w.ch.canHold, w.onCommand) }

func (w *commitHoldFilter) onCommand(p []byte) {
	if len(p) > 0 && p[0] == mysqlComQuery && isCommitQuery(string(p[1:])) {
		if i := w.ch.take(time.Now()); i >= 0 {
			w.idx, w.parked = i, true
			sig := make(chan struct{})
			w.sig = sig
			time.AfterFunc(w.ch.hold, func() { close(sig) })
			return
		}
	}
	w.release()
}

func (w *commitHoldFilter) signal() <-chan struct{} {
	if !w.parked {
		return nil
	}
	return w.sig
}

// wake ends the hold: the COMMIT and all after it go on.
func (w *commitHoldFilter) wake() []byte {
	w.unpark()
	out, _ := w.flushHeld()
	return out
}

func (w *commitHoldFilter) unpark() {
	if w.parked {
		w.parked, w.done = false, true
		w.ch.release(w.idx, time.Now())
	}
}

func (w *commitHoldFilter) flush() ([]byte, bool) {
	w.unpark()
	return w.flushHeld()
}
