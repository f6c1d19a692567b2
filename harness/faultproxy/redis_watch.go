package faultproxy

import (
	"bytes"
	"strconv"
	"time"
)

const (
	redisWatchToxicType = "outboxchaos_lost_reply_redis_watch"
	redisDropToxicType  = "outboxchaos_lost_reply_redis_drop"

	// redisHeadLimit bounds the bytes held while a command's name is read.
	redisHeadLimit = 64 << 10
	// redisTxnLimit bounds a held MULTI ... EXEC transaction.
	redisTxnLimit = 16 << 20
	// redisTxnIdle releases a held transaction whose client went quiet: a
	// client that waits for MULTI's reply before queueing must not stall.
	redisTxnIdle = 200 * time.Millisecond
)

// redisWatchKind is the upstream half of lost-reply-redis-add.
type redisWatchKind struct{}

func (redisWatchKind) registry() *registry[lostReply] { return lostReplies }
func (redisWatchKind) filter(s *lostReply) filter {
	return &redisWatch{lr: s, sc: newRESPScanner(true)}
}

type txnMode int

const (
	txnNone txnMode = iota
	txnHold         // MULTI seen: hold the transaction until EXEC/DISCARD
	txnPass         // a transaction we let through unexamined
)

// redisWatch finds job adds (EVALSHA/EVAL, alone, pipelined or inside
// MULTI/EXEC) in the client's requests and, when the fault fires, puts an
// ECHO of a fresh token right before them (before MULTI for a transaction).
// Everything the client sends still reaches the server: only replies are
// lost, by the dropper.
type redisWatch struct {
	lr  *lostReply
	sc  *respScanner
	cmd string
	hold

	txn        txnMode
	txnTrigger bool
	idle       *time.Timer
	idleCh     chan struct{}

	conn  *lostConn // a firing whose reply the dropper is still judging
	spent bool      // this connection lost a reply: pass everything unexamined
}

func (w *redisWatch) process(data []byte) []byte {
	out := scanChunk(&w.hold, w.sc, w, data)
	if w.txn == txnHold {
		w.armIdle()
	}
	return out
}

func (w *redisWatch) mode() scanMode {
	if w.spent {
		return scanPass
	}
	return brokenMode(w.sc)
}

func (w *redisWatch) take(b []byte) {
	w.hold.take(b)
	if !w.holding {
		return
	}
	if w.txn == txnHold && len(w.held) > redisTxnLimit {
		w.txn = txnPass
		w.release()
	} else if w.txn != txnHold && len(w.held) > redisHeadLimit {
		w.release()
	}
}

func (w *redisWatch) on(ev respEvent) {
	switch ev {
	case respStart:
		w.cmd = ""
		if w.txn == txnNone && w.conn == nil && w.lr.canFire() {
			w.holding = true
		}
	case respName:
		w.cmd = string(bytes.ToUpper(w.sc.name))
		w.onName()
	case respEnd:
		w.onEnd()
	}
}

func (w *redisWatch) onName() {
	switch {
	case w.txn == txnHold:
		if w.lr.isAdd(w.cmd) {
			w.txnTrigger = true
		}
	case w.txn == txnPass:
	case w.cmd == "MULTI" && w.holding:
		w.txn, w.txnTrigger = txnHold, false
	case w.cmd == "MULTI":
		w.txn = txnPass // never put a marker inside a transaction
	case !w.holding:
	case w.lr.isAdd(w.cmd):
		if c := w.lr.fire(true); c != nil {
			w.conn = c
			w.emit(redisMarker(c.token))
		}
		w.release()
	default:
		w.release()
	}
}

func (w *redisWatch) onEnd() {
	ending := w.cmd == "EXEC" || w.cmd == "DISCARD"
	switch {
	case w.txn == txnHold && ending:
		w.txn = txnNone
		w.stopIdle()
		if w.cmd == "EXEC" && w.txnTrigger {
			if c := w.lr.fire(false); c != nil {
				w.emit(redisMarker(c.token))
				w.spent = true
			}
		}
		w.release()
	case w.txn == txnPass && ending:
		w.txn = txnNone
	case w.txn == txnNone && w.holding:
		w.release() // ended before its name was known
	}
}

func (w *redisWatch) armIdle() {
	w.stopIdle()
	ch := make(chan struct{})
	w.idleCh = ch
	w.idle = time.AfterFunc(redisTxnIdle, func() { close(ch) })
}

func (w *redisWatch) stopIdle() {
	if w.idle != nil {
		w.idle.Stop()
	}
	w.idle, w.idleCh = nil, nil
}

func (w *redisWatch) signal() <-chan struct{} {
	if w.conn != nil {
		return w.conn.done
	}
	if w.txn == txnHold {
		return w.idleCh
	}
	return nil
}

func (w *redisWatch) wake() []byte {
	w.out = nil
	if w.conn != nil {
		select {
		case <-w.conn.done: // judged: lost, or NOSCRIPT (watch again)
			w.spent = w.conn.lost
			w.conn = nil
		default:
		}
		return nil
	}
	if w.txn == txnHold { // the client went quiet inside MULTI
		w.stopIdle()
		w.txn = txnPass
		w.release()
	}
	return w.out
}

func (w *redisWatch) flush() ([]byte, bool) {
	w.stopIdle()
	return w.flushHeld()
}

// isAdd says whether a command publishes: the fault's sink commands, or by
// default a script, a BullMQ-style job add.
func (l *lostReply) isAdd(cmd string) bool {
	if l.adds != nil {
		return l.adds[cmd]
	}
	return cmd == "EVALSHA" || cmd == "EVAL"
}

// redisMarker is the request "ECHO <token>" as a RESP array.
func redisMarker(token string) []byte {
	return []byte("*2\r\n$4\r\nECHO\r\n$" + strconv.Itoa(len(token)) + "\r\n" + token + "\r\n")
}
