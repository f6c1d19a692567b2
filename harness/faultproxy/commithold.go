package faultproxy

import (
	"sync"
	"time"

	"github.com/Shopify/toxiproxy/v2/toxics"
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

// commitHoldToxic is the one (upstream) toxic of commit-hold-mysql.
type commitHoldToxic struct {
	Fault string `json:"fault"`
}

func (t *commitHoldToxic) Pipe(stub *toxics.ToxicStub)    { runFilter(stub) }
func (t *commitHoldToxic) Cleanup(stub *toxics.ToxicStub) { cleanupFilter(stub) }
func (t *commitHoldToxic) NewState() interface{} {
	if c := commitHolds.lookup(t.Fault); c != nil {
		return &commitHoldFilter{ch: c, idx: -1}
	}
	return passFilter{}
}

// commitHoldFilter finds COM_QUERY COMMIT packets in the client's stream,
// as mysqlWatch does. The first one the fault may hold is kept back, with
// everything the client sends after it, for the fault's hold; then it all
// goes on and the connection passes untouched. The transaction's
// statements ran and keep their row locks meanwhile.
type commitHoldFilter struct {
	ch      *commitHold
	sc      packetScanner
	opaque  bool
	cont    bool
	prevMax bool
	holding bool // the current packet is held until it is known
	parked  bool // a COMMIT is held: everything waits for the timer
	done    bool // held and released: pass everything
	idx     int
	sig     chan struct{} // closed when the hold is over
	held    []byte
	out     []byte
}

func (w *commitHoldFilter) process(data []byte) []byte {
	w.out = nil
	for w.sc.more(data) {
		if w.parked {
			w.held = append(w.held, data...)
			break
		}
		if w.opaque || w.done {
			w.out = append(w.out, w.held...)
			w.held = nil
			w.out = append(w.out, data...)
			break
		}
		n, ev := w.sc.next(data)
		if w.holding {
			w.held = append(w.held, data[:n]...)
		} else {
			w.out = append(w.out, data[:n]...)
		}
		data = data[n:]
		w.on(ev)
	}
	return w.out
}

func (w *commitHoldFilter) on(ev packetEvent) {
	switch ev {
	case pktStart:
		w.holding = w.ch.canHold()
	case pktHeader:
		w.cont, w.prevMax = w.prevMax, w.sc.length == mysqlMaxPacket
		if w.holding && (w.sc.seq != 0 || w.cont || w.sc.length > mysqlCaptureSize) {
			w.pass()
		}
	case pktEnd:
		w.checkHandshake()
		if w.holding {
			w.onCommand()
		}
	}
}

func (w *commitHoldFilter) pass() {
	w.out = append(w.out, w.held...)
	w.held, w.holding = nil, false
}

func (w *commitHoldFilter) checkHandshake() {
	if w.sc.seq == 1 && !w.cont && len(w.sc.payload) >= 4 {
		flags := uint32(w.sc.payload[0]) | uint32(w.sc.payload[1])<<8 | uint32(w.sc.payload[2])<<16 | uint32(w.sc.payload[3])<<24
		w.opaque = flags&(mysqlClientSSL|mysqlCompress) != 0
	}
}

func (w *commitHoldFilter) onCommand() {
	p := w.sc.payload
	if len(p) > 0 && p[0] == mysqlComQuery && isCommitQuery(string(p[1:])) {
		if i := w.ch.take(time.Now()); i >= 0 {
			w.idx, w.parked = i, true
			sig := make(chan struct{})
			w.sig = sig
			time.AfterFunc(w.ch.hold, func() { close(sig) })
			return
		}
	}
	w.pass()
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
	out := w.held
	w.held = nil
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
	held := w.held
	w.held, w.holding = nil, false
	return held, true
}
