package faultproxy

import (
	"encoding/binary"
)

const (
	mysqlWatchToxicType = "outboxchaos_lost_reply_mysql_watch"
	mysqlDropToxicType  = "outboxchaos_lost_reply_mysql_drop"
)

// mysqlWatchKind is the upstream half of lost-reply-mysql-commit.
type mysqlWatchKind struct{}

func (mysqlWatchKind) registry() *registry[lostReply] { return lostReplies }
func (mysqlWatchKind) filter(s *lostReply) filter {
	return &mysqlWatch{lr: s}
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
	hold
	quiet
}

func (w *mysqlWatch) process(data []byte) []byte { return scanChunk(&w.hold, &w.sc, w, data) }

func (w *mysqlWatch) mode() scanMode {
	if w.opaque || w.spent {
		return scanPass
	}
	return scanOn
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
			w.emit(mysqlMarker(c.token))
			w.spent = true
		}
	}
	w.release()
}

func (w *mysqlWatch) flush() ([]byte, bool) { return w.flushHeld() }
