package faultproxy

import (
	"bytes"
)

const (
	redisRefuseToxicType  = "outboxchaos_queue_error_refuse"
	redisRewriteToxicType = "outboxchaos_queue_error_rewrite"

	// redisCmdLimit bounds the bytes of one command held until its keys
	// are known; a longer command passes unexamined.
	redisCmdLimit = 16 << 20
)

// redisRefuseKind is the upstream half of queue-error.
type redisRefuseKind struct{}

func (redisRefuseKind) registry() *registry[queueError] { return queueErrors }
func (redisRefuseKind) filter(s *queueError) filter {
	sc := newRESPScanner(true)
	sc.keepArgs = true
	return &redisRefuse{qe: s, sc: sc}
}

// redisRefuse holds each command until its name is known; a write command
// (writtenKeys) is held to its end, and when it writes a key of the broken
// queue it is replaced by the fault's unknown command, so Redis answers it
// with an error at its place in the reply stream. Every other command is
// forwarded unchanged and in order, so pipelines keep their order and a
// transaction holding a refused command is aborted by Redis at EXEC
// (EXECABORT), as when a command is rejected while queued.
type redisRefuse struct {
	qe    *queueError
	sc    *respScanner
	write bool // the held command is a write: decide at its end
	hold
	quiet
}

func (r *redisRefuse) process(data []byte) []byte { return scanChunk(&r.hold, r.sc, r, data) }

func (r *redisRefuse) mode() scanMode { return brokenMode(r.sc) }

func (r *redisRefuse) take(b []byte) {
	r.hold.take(b)
	if len(r.held) > redisCmdLimit {
		r.release()
	}
}

func (r *redisRefuse) release() {
	r.hold.release()
	r.write = false
}

func (r *redisRefuse) on(ev respEvent) {
	switch ev {
	case respStart:
		r.holding, r.write = true, false
	case respName:
		name := string(bytes.ToUpper(r.sc.name))
		if _, ok := keyArgs[name]; ok || name == "EVAL" || name == "EVALSHA" || name == "FCALL" {
			r.write = true
			return
		}
		r.release()
	case respEnd:
		if r.holding && r.write && r.qe.refuses(r.sc.args) {
			r.qe.countRefused()
			r.emit(r.qe.substitute())
			r.discard()
			r.write = false
			return
		}
		r.release()
	}
}

func (r *redisRefuse) flush() ([]byte, bool) {
	r.write = false
	return r.flushHeld()
}

// redisRewriteKind is the downstream half of queue-error.
type redisRewriteKind struct{}

func (redisRewriteKind) registry() *registry[queueError] { return queueErrors }
func (redisRewriteKind) filter(s *queueError) filter {
	return &redisRewrite{qe: s, sc: newRESPScanner(false), token: []byte(s.token)}
}

// redisRewrite replaces Redis's error reply to the refuser's unknown
// command (it names the token) with the fault's message. It holds each
// top-level reply only until its header line is complete.
type redisRewrite struct {
	qe    *queueError
	sc    *respScanner
	token []byte
	hold
	quiet
}

func (w *redisRewrite) process(data []byte) []byte { return scanChunk(&w.hold, w.sc, w, data) }

func (w *redisRewrite) mode() scanMode { return brokenMode(w.sc) }

func (w *redisRewrite) on(ev respEvent) {
	switch ev {
	case respStart:
		w.holding = true
	case respHeader:
		if w.sc.topType == '-' && bytes.Contains(w.sc.topLine, w.token) {
			w.qe.countAnswered()
			w.emit(w.qe.answer)
			w.discard()
			return
		}
		w.release()
	}
}

func (w *redisRewrite) flush() ([]byte, bool) { return w.flushHeld() }

// brokenMode passes the rest of the stream unexamined once the scanner
// cannot read it.
func brokenMode(sc *respScanner) scanMode {
	if sc.broken {
		return scanPass
	}
	return scanOn
}
