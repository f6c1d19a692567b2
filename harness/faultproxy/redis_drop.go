package faultproxy

import (
	"bytes"

	"github.com/Shopify/toxiproxy/v2/toxics"
)

// redisDropToxic is the downstream half of lost-reply-redis-add.
type redisDropToxic struct {
	Fault string `json:"fault"`
}

func (t *redisDropToxic) Pipe(stub *toxics.ToxicStub)    { runFilter(stub) }
func (t *redisDropToxic) Cleanup(stub *toxics.ToxicStub) { cleanupFilter(stub) }
func (t *redisDropToxic) NewState() interface{} {
	if l := lostReplies.lookup(t.Fault); l != nil {
		return &redisDrop{lr: l, sc: newRESPScanner(false)}
	}
	return passFilter{}
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
	lr      *lostReply
	sc      *respScanner
	mode    dropMode
	holding bool
	held    []byte
	conn    *lostConn
	out     []byte
}

func (d *redisDrop) process(data []byte) []byte {
	d.out = nil
	for d.sc.more(data) && d.mode != dropDead {
		if d.sc.broken {
			d.release()
			d.out = append(d.out, data...)
			break
		}
		n, ev := d.sc.next(data)
		if d.holding {
			d.held = append(d.held, data[:n]...)
		} else {
			d.out = append(d.out, data[:n]...)
		}
		data = data[n:]
		d.on(ev)
	}
	return d.out
}

func (d *redisDrop) release() {
	d.out = append(d.out, d.held...)
	d.held, d.holding = nil, false
}

func (d *redisDrop) on(ev respEvent) {
	switch ev {
	case respStart:
		d.holding = d.mode == dropJudging || d.lr.hasPending()
	case respHeader:
		d.onHeader()
	case respEnd:
		if d.holding && d.mode == dropPassing {
			d.onCandidate()
		}
	}
}

func (d *redisDrop) onHeader() {
	if d.mode == dropJudging {
		noscript := d.sc.topType == '-' && bytes.HasPrefix(d.sc.topLine, []byte("NOSCRIPT"))
		d.lr.settle(d.conn, !noscript)
		if noscript {
			d.mode, d.conn = dropPassing, nil
			d.release()
			return
		}
		d.mode, d.held, d.holding = dropDead, nil, false
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
	d.held, d.holding, d.conn = nil, false, c
	if c.judge {
		d.mode = dropJudging
		return
	}
	d.lr.settle(c, true)
	d.mode = dropDead
}

func (d *redisDrop) signal() <-chan struct{} { return nil }
func (d *redisDrop) wake() []byte            { return nil }

func (d *redisDrop) flush() ([]byte, bool) {
	if d.mode != dropPassing {
		if d.conn != nil {
			d.lr.settle(d.conn, true)
		}
		return nil, false
	}
	held := d.held
	d.held, d.holding = nil, false
	return held, true
}
