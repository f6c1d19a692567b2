package faultproxy

import (
	"sync"
	"sync/atomic"

	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

const halfOpenToxicType = "outboxchaos_half_open"

// HalfOpen makes the link half-open while it lasts: it accepts connections
// and bytes, answers nothing and closes nothing. Every byte, either way, is
// taken and dropped, as toxiproxy's "timeout" toxic with timeout 0 does,
// on the connections open when it starts (a statement or command in flight
// waits for an answer that never comes) and on those opened while it lasts
// (their handshake never ends: MySQL's greeting, the first command of a
// Redis client, PostgreSQL's startup). With Handshake, the connections
// open when it starts are closed first, so the client's next statement or
// command goes over a new connection whose handshake it holds. Removing it
// closes every connection it held (doc.go, "Half-open links").
type HalfOpen struct {
	Handshake bool // close the open connections first: only handshakes are held
}

// Kind is "half-open".
func (HalfOpen) Kind() Kind { return "half-open" }

// String is "half-open", or "half-open handshake".
func (f HalfOpen) String() string {
	if f.Handshake {
		return "half-open handshake"
	}
	return "half-open"
}

// Params records handshake when set; the nemesis adds held, handshakes and
// closed at the end (Tally).
func (f HalfOpen) Params() map[string]string {
	p := map[string]string{}
	if f.Handshake {
		p["handshake"] = "true"
	}
	return p
}

// Validate has nothing to check: both settings are valid.
func (f HalfOpen) Validate() error { return invalid(f) }

func (f HalfOpen) apply(id string, _ int64) applied {
	h := &halfOpen{handshake: f.Handshake}
	key := halfOpens.register(h)
	return applied{
		toxics: []toxicSpec{
			{Name: id + "-up", Type: halfOpenToxicType, Stream: Upstream.stream(), Attributes: map[string]any{"fault": key, "up": true}},
			{Name: id + "-down", Type: halfOpenToxicType, Stream: Downstream.stream(), Attributes: map[string]any{"fault": key}},
		},
		state:   h,
		release: func() { halfOpens.unregister(key) },
		armed:   func() { h.armed.Store(true) },
	}
}

// halfOpens finds a half-open fault's state from its toxics' attributes.
var halfOpens = &registry[halfOpen]{prefix: "half-open-"}

// halfOpen is what a half-open fault's toxics share: whether the fault is
// fully installed (a stream whose state is made after that belongs to a
// connection opened while the fault lasts) and what they counted.
type halfOpen struct {
	handshake bool
	armed     atomic.Bool

	mu         sync.Mutex
	held       int // streams of connections open at the start that it took bytes from
	handshakes int // streams of connections opened while it lasted that it took bytes from
	closed     int // connections open at the start that it closed (Handshake)
}

// tally is the fault's counts, as its history record names them.
func (h *halfOpen) tally() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return map[string]int{"held": h.held, "handshakes": h.handshakes, "closed": h.closed}
}

func (h *halfOpen) count(n *int) {
	h.mu.Lock()
	*n++
	h.mu.Unlock()
}

// halfOpenToxic takes every chunk of one direction of a connection and
// drops it. One instance serves every connection of one direction of the
// fault; halfOpenStream is each connection's own state.
type halfOpenToxic struct {
	Fault string `json:"fault"`
	Up    bool   `json:"up"` // the client-to-server direction
}

// halfOpenStream is one connection's direction under the fault.
type halfOpenStream struct {
	fault   *halfOpen
	up      bool // the client-to-server direction
	fresh   bool // the connection was opened while the fault lasted
	counted bool // it took bytes from this stream already
}

// NewState is made when the toxic joins an open connection, or when a new
// connection starts while it is on: the fault's armed flag tells which.
func (t *halfOpenToxic) NewState() interface{} {
	h := halfOpens.lookup(t.Fault)
	return &halfOpenStream{fault: h, up: t.Up, fresh: h != nil && h.armed.Load()}
}

// Pipe drops every chunk until it is interrupted or the input ends. With
// Handshake, a connection open at the start is closed at once: its output
// ends, so toxiproxy closes this direction's destination, and the closes
// spread to the other direction; the input is still read, so that the
// toxics before it never block on it.
func (t *halfOpenToxic) Pipe(stub *toxics.ToxicStub) {
	s, _ := stub.State.(*halfOpenStream)
	if s != nil && s.fault != nil && s.fault.handshake && !s.fresh && !stub.Closed() {
		stub.Close()
		s.counted = true // a closed connection holds nothing
		if s.up {
			s.fault.count(&s.fault.closed) // once per connection
		}
	}
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			s.took(c)
		}
	}
}

// took counts the first chunk the fault took from this stream.
func (s *halfOpenStream) took(_ *stream.StreamChunk) {
	if s == nil || s.counted || s.fault == nil {
		return
	}
	s.counted = true
	if s.fresh {
		s.fault.count(&s.fault.handshakes)
	} else {
		s.fault.count(&s.fault.held)
	}
}

// Cleanup closes the connection when the fault is removed, as toxiproxy's
// timeout toxic does: the client's read that waited ends (EOF). The input
// is drained until it ends, so the toxic before this one never blocks on
// a stub that is gone.
func (t *halfOpenToxic) Cleanup(stub *toxics.ToxicStub) {
	stub.Close()
	go func(in <-chan *stream.StreamChunk) {
		for c := range in {
			if c == nil {
				return
			}
		}
	}(stub.Input)
}
