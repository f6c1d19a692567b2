package faultproxy

import (
	"bytes"
)

// redisDropKind is the downstream half of lost-reply-redis-add.
type redisDropKind struct{}

func (redisDropKind) registry() *registry[lostReply] { return lostReplies }
func (redisDropKind) filter(s *lostReply) filter {
	return &redisDrop{lr: s, sc: newRESPScanner(false)}
}

type dropMode int

const (
	dropPassing dropMode = iota
	dropJudging          // marker seen: look at the next reply's header
	dropDead             // the reply was lost: nothing more reaches the client
)

// redisDrop watches the server's replies for a marker reply ("$<len>\r\n
// <token>\r\n", the answer to the injected ECHO). From the marker on it
// drops everything, unless the job add's own reply is a NOSCRIPT error: the
// script did not run, so that reply goes through and the firing is given
// back. It holds only a top-level reply that could be a marker (a bulk
// string of the token's length), and only until that reply is complete, so
// it never stalls a reply the server is still sending.
type redisDrop struct {
	lr    *lostReply
	sc    *respScanner
	state dropMode
	conn  *lostConn
	hold
	quiet
}

func (d *redisDrop) process(data []byte) []byte { return scanChunk(&d.hold, d.sc, d, data) }

func (d *redisDrop) mode() scanMode {
	if d.state == dropDead {
		return scanDrop
	}
	return brokenMode(d.sc)
}

func (d *redisDrop) on(ev respEvent) {
	switch ev {
	case respStart:
		d.holding = d.state == dropJudging || d.lr.hasPending()
	case respHeader:
		d.onHeader()
	case respEnd:
		if d.holding && d.state == dropPassing {
			d.onCandidate()
		}
	}
}

func (d *redisDrop) onHeader() {
	if d.state == dropJudging {
		noscript := d.sc.topType == '-' && bytes.HasPrefix(d.sc.topLine, []byte("NOSCRIPT"))
		d.lr.settle(d.conn, !noscript)
		if noscript {
			d.state, d.conn = dropPassing, nil
			d.release()
			return
		}
		d.state = dropDead
		d.discard()
		return
	}
	if d.holding && (d.sc.topType != '$' || d.sc.topLen != markerLen) {
		d.release()
	}
}

// onCandidate decides on a complete held reply that might be a marker.
func (d *redisDrop) onCandidate() {
	c := d.lr.claim(d.sc.topBulk)
	if c == nil {
		d.release()
		return
	}
	d.discard()
	d.conn = c
	if c.judge {
		d.state = dropJudging
		return
	}
	d.lr.settle(c, true)
	d.state = dropDead
}

func (d *redisDrop) flush() ([]byte, bool) {
	if d.state != dropPassing {
		if d.conn != nil {
			d.lr.settle(d.conn, true)
		}
		return nil, false
	}
	return d.flushHeld()
}
