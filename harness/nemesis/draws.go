package nemesis

import (
	"hash/fnv"
	"math/rand"
	"strconv"
	"sync"
)

// draws is the nemesis's randomness. A schedule may run steps at once (the
// zombie scenario pauses two instances together), so the source is locked,
// and every seed a step hands to an instance (a failpoint's seed) is derived
// from the run's seed and the step's own key ("d1/after-enqueue" and how many
// times that key drew before), never from a shared sequence that goroutines
// would consume in the order the scheduler happens to run them. A seed thus
// replays the same draws whatever the scheduling.
type draws struct {
	seed int64
	mu   sync.Mutex
	seen map[string]int
	rng  *rand.Rand // over a lockedSource; for schedule choices
}

func newDraws(seed int64) *draws {
	return &draws{seed: seed, seen: map[string]int{},
		rng: rand.New(&lockedSource{src: rand.NewSource(seed).(rand.Source64)})}
}

// seedFor returns the seed of key's next draw: a hash of the run's seed, the
// key and the key's draw count, so parallel steps with different keys draw
// the same values in any order.
func (d *draws) seedFor(key string) int64 {
	d.mu.Lock()
	k := d.seen[key]
	d.seen[key] = k + 1
	d.mu.Unlock()
	h := fnv.New64a()
	h.Write([]byte(strconv.FormatInt(d.seed, 10)))
	h.Write([]byte{0})
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(k)))
	return int64(h.Sum64() &^ (1 << 63))
}

// lockedSource makes a rand.Source safe for the schedule's parallel steps.
// Steps that run at once and both draw from Rand get values in scheduling
// order: a schedule that needs those choices replayable draws them before it
// starts the steps.
type lockedSource struct {
	mu  sync.Mutex
	src rand.Source64
}

func (s *lockedSource) Int63() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src.Int63()
}

func (s *lockedSource) Uint64() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src.Uint64()
}

func (s *lockedSource) Seed(seed int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.src.Seed(seed)
}
