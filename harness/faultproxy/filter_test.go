package faultproxy

import (
	"testing"
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/stretchr/testify/require"
)

// orderFilter records the order of its calls; its signal is closed from
// the start until it is woken.
type orderFilter struct {
	sig   chan struct{}
	calls []string
}

func (f *orderFilter) process(data []byte) []byte {
	f.calls = append(f.calls, "process")
	return data
}

func (f *orderFilter) signal() <-chan struct{} { return f.sig }

func (f *orderFilter) wake() []byte {
	f.calls = append(f.calls, "wake")
	f.sig = nil
	return nil
}

func (f *orderFilter) flush() ([]byte, bool) { return nil, true }

// A verdict that arrived before the next request is acted on first, every
// time: select alone would pick either at random (the lost NOSCRIPT
// firing that CI once saw).
func TestRunFilterWakesBeforeInputThatCameAfterTheSignal(t *testing.T) {
	for i := 0; i < 64; i++ {
		f := &orderFilter{sig: make(chan struct{})}
		close(f.sig)
		in := make(chan *stream.StreamChunk, 2)
		out := make(chan *stream.StreamChunk, 2)
		in <- &stream.StreamChunk{Data: []byte("EVAL")}
		in <- nil
		stub := toxics.NewToxicStub(in, out)
		stub.State = f
		runFilter(stub)
		require.Equal(t, []string{"wake", "process"}, f.calls, "run %d", i)
		require.Equal(t, "EVAL", string((<-out).Data))
	}
}

// When the connection's writer is gone (its client closed), nothing takes
// the filter's output again. The filter still reads its input, and once the
// input ends it gives up instead of blocking forever (the goroutine a leak
// check once found in CI).
func TestRunFilterEndsWhenNothingTakesItsOutput(t *testing.T) {
	in := make(chan *stream.StreamChunk, 3)
	in <- &stream.StreamChunk{Data: []byte("a")}
	in <- &stream.StreamChunk{Data: []byte("b")}
	in <- nil
	stub := toxics.NewToxicStub(in, make(chan *stream.StreamChunk))
	stub.State = passFilter{}
	done := make(chan struct{})
	go func() { runFilter(stub); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * outputBound):
		t.Fatal("runFilter still blocked on an output nobody reads")
	}
	require.True(t, stub.Closed())
	require.Empty(t, in, "the input was read to its end")
}

// A next toxic that takes its input late still gets every chunk, in order,
// and the output then closes.
func TestRunFilterQueuesForASlowNextToxic(t *testing.T) {
	in := make(chan *stream.StreamChunk, 4)
	for _, s := range []string{"a", "b", "c"} {
		in <- &stream.StreamChunk{Data: []byte(s)}
	}
	in <- nil
	out := make(chan *stream.StreamChunk)
	stub := toxics.NewToxicStub(in, out)
	stub.State = passFilter{}
	go runFilter(stub)
	time.Sleep(50 * time.Millisecond)
	var got []string
	for c := range out {
		got = append(got, string(c.Data))
	}
	require.Equal(t, []string{"a", "b", "c"}, got)
}
