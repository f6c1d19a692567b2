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

// mysqlWatch finds COM_QUERY COMMIT packets in the client's stream
// (mysqlCommands: larger packets are never COMMIT and stream through). When
// the fault fires it sends a marker query just before the COMMIT; the
// COMMIT and everything after it go through (only replies are lost).
type mysqlWatch struct {
	lr    *lostReply
	spent bool // fired: pass everything unexamined
	mysqlCommands
	quiet
}

func (w *mysqlWatch) process(data []byte) []byte { return scanChunk(&w.hold, &w.sc, w, data) }

func (w *mysqlWatch) mode() scanMode {
	if w.spent {
		return scanPass
	}
	return w.mysqlCommands.mode()
}

func (w *mysqlWatch) on(ev packetEvent) { w.onPacket(ev, w.lr.canFire, w.onCommand) }

// mysqlCommands is the upstream scan every filter that looks for one small
// client command shares (lost-reply-mysql-commit, sql-error,
// commit-hold-mysql): it holds each packet from its first byte, when the
// filter's capture says so, until its header shows it is not a command of
// at most mysqlCaptureSize bytes (then it goes on), or until it is
// complete (then the filter's command decides). A client that asks for TLS
// or compression in its handshake makes the stream unreadable: opaque, and
// the filter passes that connection untouched.
type mysqlCommands struct {
	sc      packetScanner
	opaque  bool
	cont    bool // the current packet continues a 16 MiB one
	prevMax bool
	hold
}

func (m *mysqlCommands) onPacket(ev packetEvent, capture func() bool, command func(payload []byte)) {
	switch ev {
	case pktStart:
		m.holding = capture()
	case pktHeader:
		m.cont, m.prevMax = m.prevMax, m.sc.length == mysqlMaxPacket
		if m.holding && (m.sc.seq != 0 || m.cont || m.sc.length > mysqlCaptureSize) {
			m.release() // not a command small enough to look at
		}
	case pktEnd:
		m.checkHandshake()
		if m.holding {
			command(m.sc.payload)
		}
	}
}

// mode scans the stream, or passes it once it is opaque; a filter with
// states of its own checks them first.
func (m *mysqlCommands) mode() scanMode {
	if m.opaque {
		return scanPass
	}
	return scanOn
}

// checkHandshake spots the client's handshake response (sequence id 1) and
// gives up on connections that switch to TLS or compression.
func (m *mysqlCommands) checkHandshake() {
	if m.sc.seq != 1 || m.cont || len(m.sc.payload) < 4 {
		return
	}
	flags := binary.LittleEndian.Uint32(m.sc.payload[:4])
	if flags&(mysqlClientSSL|mysqlCompress) != 0 {
		m.opaque = true
	}
}

func (w *mysqlWatch) onCommand(p []byte) {
	if len(p) > 0 && p[0] == mysqlComQuery && isCommitQuery(string(p[1:])) {
		if c := w.lr.fire(false); c != nil {
			w.emit(mysqlMarker(c.token))
			w.spent = true
		}
	}
	w.release()
}

func (w *mysqlWatch) flush() ([]byte, bool) { return w.flushHeld() }
