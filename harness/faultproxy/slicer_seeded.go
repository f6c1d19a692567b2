package faultproxy

import (
	"math/rand"
	"sync"
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

const slicerToxicType = "outboxchaos_slicer"

// seededSlicer cuts each chunk into slices of Average bytes plus a uniform
// draw in [-Variation, +Variation], with DelayMicros between slices. Its
// sizes come from a generator seeded from the run's randomness (toxiproxy's
// slicer draws from the global generator). Data and order are unchanged.
type seededSlicer struct {
	Average     int   `json:"average_size"`
	Variation   int   `json:"size_variation"`
	DelayMicros int   `json:"delay"`
	Seed        int64 `json:"seed"`

	once sync.Once
	mu   sync.Mutex
	rng  *rand.Rand
}

// size draws the next slice size, at least 1 and at most left.
func (t *seededSlicer) size(left int) int {
	t.once.Do(func() { t.rng = rand.New(rand.NewSource(t.Seed)) })
	t.mu.Lock()
	n := t.Average
	if t.Variation > 0 {
		n += t.rng.Intn(2*t.Variation+1) - t.Variation
	}
	t.mu.Unlock()
	return min(max(n, 1), left)
}

// Pipe slices every chunk; on interrupt it forwards the unsent rest whole.
func (t *seededSlicer) Pipe(stub *toxics.ToxicStub) { pipeChunks(stub, t.slice) }

// slice sends c in slices; it returns false when interrupted (the rest of c
// has then been forwarded).
func (t *seededSlicer) slice(stub *toxics.ToxicStub, c *stream.StreamChunk) bool {
	data := c.Data
	for len(data) > 0 {
		n := t.size(len(data))
		stub.Output <- &stream.StreamChunk{Data: data[:n], Timestamp: c.Timestamp}
		data = data[n:]
		if len(data) == 0 || t.DelayMicros == 0 {
			continue
		}
		timer := time.NewTimer(time.Duration(t.DelayMicros) * time.Microsecond)
		select {
		case <-timer.C:
		case <-stub.Interrupt:
			timer.Stop()
			stub.Output <- &stream.StreamChunk{Data: data, Timestamp: c.Timestamp}
			return false
		}
	}
	return true
}
