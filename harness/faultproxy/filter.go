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

// maxPending bounds the chunks a filter holds for a next toxic that is not
// taking them; past it the filter stops reading, as toxiproxy's toxics do.
const maxPending = 256

// outputBound is how long the end of a connection waits for the next toxic
// to take each held chunk: toxiproxy's own bound when a toxic is removed.
const outputBound = 5 * time.Second

// runFilter is the Pipe of every protocol-aware toxic.
//
// A signal that is already closed when input arrives is handled before that
// input: Go's select picks at random among ready cases, and a verdict the
// other direction reached first (a NOSCRIPT given back, so the client's EVAL
// that follows must be watched again) must not lose to it.
//
// What the filter forwards waits in a queue while the next toxic does not
// take it, and the input is still read meanwhile. When the connection's
// writer is gone (its client closed), nothing takes the output again; the
// input ends soon after, and the filter then gives up within outputBound
// instead of waiting forever. An interrupt is taken only with the queue
// empty, so that nothing held is lost when toxiproxy rewires the chain.
func runFilter(stub *toxics.ToxicStub) {
	p := &pipe{stub: stub, f: stubFilter(stub)}
	for {
		var out chan<- *stream.StreamChunk
		var head *stream.StreamChunk
		interrupt, in := stub.Interrupt, stub.Input
		if len(p.queue) > 0 {
			out, head, interrupt = stub.Output, p.queue[0], nil
		}
		if len(p.queue) >= maxPending {
			in = nil
		}
		select {
		case <-interrupt:
			return
		case out <- head:
			p.queue = p.queue[1:]
		case <-p.f.signal():
			p.add(p.f.wake(), time.Now())
		case c := <-in:
			p.wakeReady()
			if c == nil {
				p.finish()
				return
			}
			p.add(p.f.process(c.Data), c.Timestamp)
		}
	}
}

// pipe is one run of a filter's Pipe: the filter, and the chunks it
// forwarded that the next toxic has not taken yet.
type pipe struct {
	stub  *toxics.ToxicStub
	f     filter
	queue []*stream.StreamChunk
}

func (p *pipe) add(data []byte, ts time.Time) {
	if len(data) > 0 {
		p.queue = append(p.queue, &stream.StreamChunk{Data: data, Timestamp: ts})
	}
}

// wakeReady handles every signal that is already closed, without waiting.
func (p *pipe) wakeReady() {
	for {
		select {
		case <-p.f.signal():
			p.add(p.f.wake(), time.Now())
		default:
			return
		}
	}
}

// finish ends the connection's direction once its input has ended: the
// filter's held bytes join the queue unless they must not go on (a lost
// reply), the queue goes on within outputBound per chunk, and the output is
// closed.
func (p *pipe) finish() {
	if data, keep := p.f.flush(); keep {
		p.add(data, time.Now())
	}
	for _, c := range p.queue {
		if p.stub.WriteOutput(c, outputBound) != nil {
			break // the writer is gone
		}
	}
	p.stub.Close()
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
		_ = stub.WriteOutput(&stream.StreamChunk{Data: data, Timestamp: time.Now()}, outputBound)
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
