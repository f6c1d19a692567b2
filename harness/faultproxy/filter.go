package faultproxy

import (
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

// filter rewrites one direction of one connection. It lives in the
// toxic's per-connection state (toxics.StatefulToxic), so what it holds
// survives the interrupts toxiproxy sends whenever toxics are added or
// removed. Only the toxic's Pipe goroutine calls it.
type filter interface {
	// process consumes one chunk and returns the bytes to forward now.
	process(data []byte) []byte
	// signal is closed when the filter has something to do without new
	// input (a verdict arrived, a hold timed out); nil when none.
	signal() <-chan struct{}
	// wake handles a closed signal and returns the bytes to forward.
	wake() []byte
	// flush ends the filter (end of stream or toxic removed): it returns
	// the bytes it still holds, and keep=false when the connection must be
	// closed instead (its reply was lost, it cannot carry on).
	flush() (data []byte, keep bool)
}

// passFilter forwards everything; it stands in when a toxic's shared state
// is gone (the fault was removed while a connection was starting).
type passFilter struct{}

func (passFilter) process(data []byte) []byte { return data }
func (passFilter) signal() <-chan struct{}    { return nil }
func (passFilter) wake() []byte               { return nil }
func (passFilter) flush() ([]byte, bool)      { return nil, true }

func stubFilter(stub *toxics.ToxicStub) filter {
	if f, ok := stub.State.(filter); ok {
		return f
	}
	return passFilter{}
}

// runFilter is the Pipe of every protocol-aware toxic.
func runFilter(stub *toxics.ToxicStub) {
	f := stubFilter(stub)
	for {
		select {
		case <-stub.Interrupt:
			return
		case <-f.signal():
			send(stub, f.wake(), time.Now())
		case c := <-stub.Input:
			if c == nil {
				if data, keep := f.flush(); keep {
					send(stub, data, time.Now())
				}
				stub.Close()
				return
			}
			send(stub, f.process(c.Data), c.Timestamp)
		}
	}
}

// cleanupFilter runs when the toxic is removed (after its Pipe returned):
// held bytes go on, or the connection is closed if its reply was lost.
func cleanupFilter(stub *toxics.ToxicStub) {
	data, keep := stubFilter(stub).flush()
	if !keep {
		stub.Close()
		return
	}
	if len(data) > 0 {
		// The next toxic is running; give up after toxiproxy's own bound.
		_ = stub.WriteOutput(&stream.StreamChunk{Data: data, Timestamp: time.Now()}, 5*time.Second)
	}
}

func send(stub *toxics.ToxicStub, data []byte, ts time.Time) {
	if len(data) > 0 {
		stub.Output <- &stream.StreamChunk{Data: data, Timestamp: ts}
	}
}

// toxicKind is what sets one protocol-aware toxic apart: the registry of
// its fault's shared state, and the filter it runs on each connection.
type toxicKind[S any] interface {
	registry() *registry[S]
	filter(state *S) filter
}

// filterToxic is a protocol-aware toxic of kind K. toxiproxy builds its
// instances from JSON, so the fault's shared state is found by the key in
// Fault; once the fault is gone a new connection gets a passFilter.
type filterToxic[S any, K toxicKind[S]] struct {
	Fault string `json:"fault"`
}

func (t *filterToxic[S, K]) Pipe(stub *toxics.ToxicStub)    { runFilter(stub) }
func (t *filterToxic[S, K]) Cleanup(stub *toxics.ToxicStub) { cleanupFilter(stub) }
func (t *filterToxic[S, K]) NewState() interface{} {
	var k K
	if s := k.registry().lookup(t.Fault); s != nil {
		return k.filter(s)
	}
	return passFilter{}
}
