package faultproxy

import (
	"bytes"
	"fmt"
	"math/rand"
	"sync"
)

// markerPrefix starts every marker token. Tokens are letters, digits and
// underscores only, so they are valid in RESP and as a SQL identifier.
const markerPrefix = "outboxchaos_lost_reply_"

// markerLen is the length of every token: the prefix and 16 hex digits.
const markerLen = len(markerPrefix) + 16

// lostReply is what one lost-reply fault's two toxics share: the watcher
// (upstream) decides to fire and injects a marker before the request; the
// dropper (downstream) recognises the marker's reply on its own connection
// and drops from there. Tokens pair the two directions of one connection,
// which toxiproxy does not otherwise relate.
type lostReply struct {
	mu      sync.Mutex
	rng     *rand.Rand
	left    int
	prob    float64
	fired   int
	pending map[string]*lostConn
	// adds are the Redis commands that count as a publish (nil: a
	// script, a BullMQ-style add); unused on MySQL.
	adds map[string]bool
}

// lostConn is one firing: the connection whose reply is being lost.
type lostConn struct {
	token string
	// judge: the dropper looks at the request's own reply before counting it
	// lost (a Redis NOSCRIPT error means the request did nothing).
	judge bool
	done  chan struct{}
	lost  bool // valid once done is closed
}

func newLostReply(seed int64, times int, prob float64) *lostReply {
	return &lostReply{
		rng: rand.New(rand.NewSource(seed)), left: times, prob: prob,
		pending: map[string]*lostConn{},
	}
}

// canFire says whether a matching request could still lose its reply.
func (l *lostReply) canFire() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.left > 0
}

// hasPending says whether a marker is on its way back on some connection.
func (l *lostReply) hasPending() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pending) > 0
}

// fire is called by a watcher on a matching request. It draws the
// probability and, when the fault fires, returns the firing with a fresh
// token (also drawn from the fault's seeded generator); nil means pass.
func (l *lostReply) fire(judge bool) *lostConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.left <= 0 {
		return nil
	}
	if l.prob < 1 && l.rng.Float64() >= l.prob {
		return nil
	}
	l.left--
	c := &lostConn{token: fmt.Sprintf("%s%016x", markerPrefix, l.rng.Uint64()), judge: judge, done: make(chan struct{})}
	l.pending[c.token] = c
	return c
}

// fireOnReply is fire for a dropper that decides alone, on the reply
// itself (PostgreSQL's CommandComplete names the command it completes): it
// draws the probability and counts the firing as lost at once.
func (l *lostReply) fireOnReply() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.left <= 0 || l.prob < 1 && l.rng.Float64() >= l.prob {
		return false
	}
	l.left--
	l.fired++
	return true
}

// claim is called by a dropper that saw a marker reply carrying token; it
// returns the firing, or nil when the token is not this fault's.
func (l *lostReply) claim(token []byte) *lostConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.pending[string(token)]
	delete(l.pending, string(token))
	return c
}

// claimIn is claim for a marker embedded in a larger reply (a MySQL packet).
func (l *lostReply) claimIn(payload []byte) *lostConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	for tok, c := range l.pending {
		if bytes.Contains(payload, []byte(tok)) {
			delete(l.pending, tok)
			return c
		}
	}
	return nil
}

// settle ends a firing. A reply that was not lost gives the firing back.
func (l *lostReply) settle(c *lostConn, lost bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-c.done:
		return
	default:
	}
	c.lost = lost
	if lost {
		l.fired++
	} else {
		l.left++
	}
	delete(l.pending, c.token)
	close(c.done)
}

// firedCount is how many replies this fault has dropped.
func (l *lostReply) firedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fired
}

// tally is what the fault's history record counts: the replies dropped.
func (l *lostReply) tally() map[string]int { return map[string]int{"fired": l.firedCount()} }

// lostReplies holds every lost-reply fault's shared state.
var lostReplies = &registry[lostReply]{prefix: "lost-reply-"}

// applyLostReply registers a lost-reply fault's state and names its two
// toxics: the reply dropper first (downstream), so that it is on every
// connection before the request watcher (upstream) can fire.
func applyLostReply(id string, l *lostReply, watch, drop string) applied {
	key := lostReplies.register(l)
	attrs := map[string]string{"fault": key}
	return applied{
		toxics: []toxicSpec{
			{Name: id + "-drop", Type: drop, Stream: Downstream.stream(), Attributes: attrs},
			{Name: id + "-watch", Type: watch, Stream: Upstream.stream(), Attributes: attrs},
		},
		state:   l,
		release: func() { lostReplies.unregister(key) },
	}
}

// lostReplyParams are the params both lost-reply kinds record.
func lostReplyParams(times int, prob float64) map[string]string {
	p := map[string]string{}
	if times > 0 {
		p["times"] = fmt.Sprint(times)
	}
	if prob > 0 {
		p["probability"] = fmt.Sprint(prob)
	}
	return p
}
