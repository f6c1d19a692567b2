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
// proxy, and when it was sent on (zero while still held). Cut says the
// hold ended before its time because its connection ended (the server or
// the client closed it: the COMMIT never reached the server, whose
// transaction was rolled back) or the fault was removed.
type HeldCommit struct {
	At, Released time.Time
	Cut          bool
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

func (c *commitHold) release(i int, now time.Time, cut bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holds[i].Released.IsZero() {
		c.holds[i].Released, c.holds[i].Cut = now, cut
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
	return &commitHoldFilter{parking: parking{ch: s, idx: -1}}
}

// parking holds one COMMIT and everything its client sends after it for
// the fault's hold, then passes the connection untouched: the part the
// MySQL and PostgreSQL holders share.
type parking struct {
	ch     *commitHold
	parked bool // a COMMIT is held: everything waits for the timer
	done   bool // held and released: pass everything
	idx    int
	sig    chan struct{} // closed when the hold is over
}

// park takes one of the fault's holds for the COMMIT just read; false
// when none is left.
func (p *parking) park() bool {
	i := p.ch.take(time.Now())
	if i < 0 {
		return false
	}
	p.idx, p.parked = i, true
	sig := make(chan struct{})
	p.sig = sig
	time.AfterFunc(p.ch.hold, func() { close(sig) })
	return true
}

// parkMode is the mode while parked or done, else scan's.
func (p *parking) parkMode(scan scanMode) scanMode {
	switch {
	case p.parked:
		return scanHold
	case p.done:
		return scanPass
	}
	return scan
}

func (p *parking) signal() <-chan struct{} {
	if !p.parked {
		return nil
	}
	return p.sig
}

// unpark ends the hold when its time is up.
func (p *parking) unpark() {
	if p.parked {
		p.parked, p.done = false, true
		p.ch.release(p.idx, time.Now(), false)
	}
}

// end ends the hold at the filter's flush: the connection ended, or the
// fault was removed. Before the hold's time was up, the hold was cut.
func (p *parking) end() {
	if !p.parked {
		return
	}
	cut := true
	select {
	case <-p.sig:
		cut = false
	default:
	}
	p.parked, p.done = false, true
	p.ch.release(p.idx, time.Now(), cut)
}

// commitHoldFilter finds COM_QUERY COMMIT packets in the client's stream,
// as mysqlWatch does (mysqlCommands). The first one the fault may hold is
// kept back, with everything the client sends after it, for the fault's
// hold; then it all goes on and the connection passes untouched. The
// transaction's statements ran and keep their row locks meanwhile.
type commitHoldFilter struct {
	parking
	mysqlCommands
}

func (w *commitHoldFilter) process(data []byte) []byte { return scanChunk(&w.hold, &w.sc, w, data) }

func (w *commitHoldFilter) mode() scanMode { return w.parkMode(w.mysqlCommands.mode()) }

func (w *commitHoldFilter) on(ev packetEvent) { w.onPacket(ev, w.ch.canHold, w.onCommand) }

func (w *commitHoldFilter) onCommand(p []byte) {
	if len(p) > 0 && p[0] == mysqlComQuery && isCommitQuery(string(p[1:])) && w.park() {
		return
	}
	w.release()
}

// wake ends the hold: the COMMIT and all after it go on.
func (w *commitHoldFilter) wake() []byte {
	w.unpark()
	out, _ := w.flushHeld()
	return out
}

func (w *commitHoldFilter) flush() ([]byte, bool) {
	w.end()
	return w.flushHeld()
}
