package faultproxy

import (
	"encoding/binary"

	"github.com/Shopify/toxiproxy/v2/toxics"
)

const (
	mysqlWatchToxicType = "outboxchaos_lost_reply_mysql_watch"
	mysqlDropToxicType  = "outboxchaos_lost_reply_mysql_drop"
)

// mysqlWatchToxic is the upstream half of lost-reply-mysql-commit.
type mysqlWatchToxic struct {
	Fault string `json:"fault"`
}

func (t *mysqlWatchToxic) Pipe(stub *toxics.ToxicStub)    { runFilter(stub) }
func (t *mysqlWatchToxic) Cleanup(stub *toxics.ToxicStub) { cleanupFilter(stub) }
func (t *mysqlWatchToxic) NewState() interface{} {
	if l := lostReplies.lookup(t.Fault); l != nil {
		return &mysqlWatch{lr: l}
	}
	return passFilter{}
}

// mysqlWatch finds COM_QUERY COMMIT packets in the client's stream. When
// the fault fires it sends a marker query just before the COMMIT; the
// COMMIT and everything after it go through (only replies are lost). It
// holds each packet from its first byte until its header shows it is not
// a command of at most mysqlCaptureSize bytes, or until it is complete; larger packets are never COMMIT and stream through. A client
// that asks for TLS or compression in its handshake makes the stream
// unreadable: that connection passes untouched.
type mysqlWatch struct {
	lr      *lostReply
	sc      packetScanner
	opaque  bool
	spent   bool // fired: pass everything unexamined
	cont    bool // the current packet continues a 16 MiB one
	prevMax bool
	holding bool
	held    []byte
	out     []byte
}

func (w *mysqlWatch) process(data []byte) []byte {
	w.out = nil
	for w.sc.more(data) {
		if w.opaque || w.spent {
			w.release()
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

func (w *mysqlWatch) release() {
	w.out = append(w.out, w.held...)
	w.held, w.holding = nil, false
}

func (w *mysqlWatch) on(ev packetEvent) {
	switch ev {
	case pktStart:
		w.holding = w.lr.canFire()
	case pktHeader:
		w.cont, w.prevMax = w.prevMax, w.sc.length == mysqlMaxPacket
		if w.holding && (w.sc.seq != 0 || w.cont || w.sc.length > mysqlCaptureSize) {
			w.release() // not a command small enough to be COMMIT
		}
	case pktEnd:
		w.checkHandshake()
		if w.holding {
			w.onCommand()
		}
	}
}

// checkHandshake spots the client's handshake response (sequence id 1) and
// gives up on connections that switch to TLS or compression.
func (w *mysqlWatch) checkHandshake() {
	if w.sc.seq != 1 || w.cont || len(w.sc.payload) < 4 {
		return
	}
	flags := binary.LittleEndian.Uint32(w.sc.payload[:4])
	if flags&(mysqlClientSSL|mysqlCompress) != 0 {
		w.opaque = true
	}
}

func (w *mysqlWatch) onCommand() {
	p := w.sc.payload
	if len(p) > 0 && p[0] == mysqlComQuery && isCommitQuery(string(p[1:])) {
		if c := w.lr.fire(false); c != nil {
			w.out = append(w.out, mysqlMarker(c.token)...)
			w.spent = true
		}
	}
	w.release()
}

func (w *mysqlWatch) signal() <-chan struct{} { return nil }
func (w *mysqlWatch) wake() []byte            { return nil }

func (w *mysqlWatch) flush() ([]byte, bool) {
	held := w.held
	w.held, w.holding = nil, false
	return held, true
}
