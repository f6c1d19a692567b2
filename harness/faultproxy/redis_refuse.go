package faultproxy

import (
	"bytes"

	"github.com/Shopify/toxiproxy/v2/toxics"
)

const (
	redisRefuseToxicType  = "outboxchaos_queue_error_refuse"
	redisRewriteToxicType = "outboxchaos_queue_error_rewrite"

	// redisCmdLimit bounds the bytes of one command held until its keys
	// are known; a longer command passes unexamined.
	redisCmdLimit = 16 << 20
)

// redisRefuseToxic is the upstream half of queue-error.
type redisRefuseToxic struct {
	Fault string `json:"fault"`
}

func (t *redisRefuseToxic) Pipe(stub *toxics.ToxicStub)    { runFilter(stub) }
func (t *redisRefuseToxic) Cleanup(stub *toxics.ToxicStub) { cleanupFilter(stub) }
func (t *redisRefuseToxic) NewState() interface{} {
	if q := queueErrors.lookup(t.Fault); q != nil {
		sc := newRESPScanner(true)
		sc.keepArgs = true
		return &redisRefuse{qe: q, sc: sc}
	}
	return passFilter{}
}

// redisRefuse holds each command until its name is known; a write command
// (writtenKeys) is held to its end, and when it writes a key of the broken
// queue it is replaced by the fault's unknown command, so Redis answers it
// with an error at its place in the reply stream. Every other command is
// forwarded unchanged and in order, so pipelines keep their order and a
// transaction holding a refused command is aborted by Redis at EXEC
// (EXECABORT), as when a command is rejected while queued.
type redisRefuse struct {
	qe      *queueError
	sc      *respScanner
	holding bool
	write   bool // the held command is a write: decide at its end
	held    []byte
	out     []byte
}

func (r *redisRefuse) process(data []byte) []byte {
	r.out = nil
	for r.sc.more(data) {
		if r.sc.broken {
			r.release()
			r.out = append(r.out, data...)
			break
		}
		n, ev := r.sc.next(data)
		r.take(data[:n])
		data = data[n:]
		r.on(ev)
	}
	return r.out
}

func (r *redisRefuse) take(b []byte) {
	if !r.holding {
		r.out = append(r.out, b...)
		return
	}
	r.held = append(r.held, b...)
	if len(r.held) > redisCmdLimit {
		r.release()
	}
}

func (r *redisRefuse) release() {
	r.out = append(r.out, r.held...)
	r.held, r.holding, r.write = nil, false, false
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
			r.out = append(r.out, r.qe.substitute()...)
			r.held, r.holding, r.write = nil, false, false
			return
		}
		r.release()
	}
}

func (r *redisRefuse) signal() <-chan struct{} { return nil }
func (r *redisRefuse) wake() []byte            { return nil }

func (r *redisRefuse) flush() ([]byte, bool) {
	held := r.held
	r.held, r.holding, r.write = nil, false, false
	return held, true
}

// redisRewriteToxic is the downstream half of queue-error.
type redisRewriteToxic struct {
	Fault string `json:"fault"`
}

func (t *redisRewriteToxic) Pipe(stub *toxics.ToxicStub)    { runFilter(stub) }
func (t *redisRewriteToxic) Cleanup(stub *toxics.ToxicStub) { cleanupFilter(stub) }
func (t *redisRewriteToxic) NewState() interface{} {
	if q := queueErrors.lookup(t.Fault); q != nil {
		return &redisRewrite{qe: q, sc: newRESPScanner(false), token: []byte(q.token)}
	}
	return passFilter{}
}

// redisRewrite replaces Redis's error reply to the refuser's unknown
// command (it names the token) with the fault's message. It holds each
// top-level reply only until its header line is complete.
type redisRewrite struct {
	qe      *queueError
	sc      *respScanner
	token   []byte
	holding bool
	held    []byte
	out     []byte
}

func (w *redisRewrite) process(data []byte) []byte {
	w.out = nil
	for w.sc.more(data) {
		if w.sc.broken {
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

func (w *redisRewrite) release() {
	w.out = append(w.out, w.held...)
	w.held, w.holding = nil, false
}

func (w *redisRewrite) on(ev respEvent) {
	switch ev {
	case respStart:
		w.holding = true
	case respHeader:
		if w.sc.topType == '-' && bytes.Contains(w.sc.topLine, w.token) {
			w.qe.countAnswered()
			w.out = append(w.out, w.qe.answer...)
			w.held, w.holding = nil, false
			return
		}
		w.release()
	}
}

func (w *redisRewrite) signal() <-chan struct{} { return nil }
func (w *redisRewrite) wake() []byte            { return nil }

func (w *redisRewrite) flush() ([]byte, bool) {
	held := w.held
	w.held, w.holding = nil, false
	return held, true
}
