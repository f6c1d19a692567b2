package faultproxy

import (
	"math/rand"
	"sync"
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

const jitterToxicType = "outboxchaos_latency_jitter"

// jitterToxic delays each chunk by Latency plus a uniform draw in
// [-Jitter, +Jitter] taken from its own generator, seeded from the run's
// randomness when the fault is added (toxiproxy's latency toxic draws its
// jitter from the global generator, which no seed reproduces). One instance
// serves every connection of the fault, so draws are serialised.
type jitterToxic struct {
	LatencyNS int64 `json:"latency_ns"`
	JitterNS  int64 `json:"jitter_ns"`
	Seed      int64 `json:"seed"`

	once sync.Once
	mu   sync.Mutex
	rng  *rand.Rand
}

// GetBufferSize lets the toxic hold chunks while they wait, as toxiproxy's
// latency toxic does, so the delay does not also cap the throughput.
func (t *jitterToxic) GetBufferSize() int { return 1024 }

func (t *jitterToxic) delay() time.Duration {
	t.once.Do(func() { t.rng = rand.New(rand.NewSource(t.Seed)) })
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.LatencyNS
	if t.JitterNS > 0 {
		d += t.rng.Int63n(2*t.JitterNS+1) - t.JitterNS
	}
	return time.Duration(max(d, 0))
}

// Pipe forwards every chunk once its delay, counted from the chunk's
// arrival at the proxy, has passed. On interrupt it forwards the waiting
// chunk at once so no data is lost.
func (t *jitterToxic) Pipe(stub *toxics.ToxicStub) { pipeChunks(stub, t.forward) }

// forward sends c once its delay has passed; it returns false when
// interrupted meanwhile (c has then been sent at once).
func (t *jitterToxic) forward(stub *toxics.ToxicStub, c *stream.StreamChunk) bool {
	if wait := t.delay() - time.Since(c.Timestamp); wait > 0 {
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-stub.Interrupt:
			timer.Stop()
			stub.Output <- c
			return false
		}
	}
	stub.Output <- c
	return true
}

// pipeChunks is the Pipe of a toxic that handles each chunk on its own:
// it hands every chunk to handle until the input ends (then it closes the
// stub), an interrupt comes, or handle reports one (false).
func pipeChunks(stub *toxics.ToxicStub, handle func(*toxics.ToxicStub, *stream.StreamChunk) bool) {
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			if !handle(stub, c) {
				return
			}
		}
	}
}
