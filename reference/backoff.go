package reference

import (
	"math/rand"
	"sync"
	"time"
)

// BackoffCeiling is the delay before the next claim after a transient
// failure of the attempts-th claim, before jitter:
// min(max, base * 2^(attempts-1)). attempts below 1 count as 1.
func BackoffCeiling(attempts int, base, max time.Duration) time.Duration {
	d := base
	for i := 1; i < attempts && d < max; i++ {
		if d > max/2 {
			return max // doubling would pass the cap (or overflow)
		}
		d *= 2
	}
	return min(d, max)
}

// jitter draws backoff delays. Each delay is uniform in [d/2, d] where d is
// BackoffCeiling, so successive delays never shrink until the cap: the
// lower bound of attempt n+1 is the upper bound of attempt n.
type jitter struct {
	mu  sync.Mutex
	rnd *rand.Rand
}

func newJitter(seed int64) *jitter {
	return &jitter{rnd: rand.New(rand.NewSource(seed))}
}

// delay returns the jittered backoff for a transient failure of the
// attempts-th claim.
func (j *jitter) delay(attempts int, base, max time.Duration) time.Duration {
	d := BackoffCeiling(attempts, base, max)
	half := d / 2
	j.mu.Lock()
	extra := time.Duration(j.rnd.Int63n(int64(d-half) + 1))
	j.mu.Unlock()
	return half + extra
}
