package nemesis

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// zombieDraws runs the zombie scenario's two pauses as the schedule does, at
// once, each drawing its failpoint seed twice, with the goroutines started in
// the order given and one of them delayed, and returns what each drew.
func zombieDraws(seed int64, d1First bool) map[string][]int64 {
	d := newDraws(seed)
	out := map[string][]int64{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	step := func(slot, point string, delay time.Duration) {
		defer wg.Done()
		time.Sleep(delay)
		for i := 0; i < 2; i++ {
			v := d.seedFor(slot + "/pause/" + point)
			mu.Lock()
			out[slot] = append(out[slot], v)
			mu.Unlock()
		}
	}
	wg.Add(2)
	if d1First {
		go step("d1", "after-enqueue", 0)
		go step("d2", "before-finalize-commit", 5*time.Millisecond)
	} else {
		go step("d2", "before-finalize-commit", 0)
		go step("d1", "after-enqueue", 5*time.Millisecond)
	}
	wg.Wait()
	return out
}

func TestParallelStepsDrawTheSameSeedsInAnyOrder(t *testing.T) {
	a := zombieDraws(42, true)
	b := zombieDraws(42, false)
	require.Equal(t, a, b, "a seed must replay the same draws whatever the scheduling")
	require.NotEqual(t, a["d1"][0], a["d1"][1], "a key's second draw differs from its first")
	require.NotEqual(t, a["d1"][0], a["d2"][0], "different steps draw different seeds")
	require.NotEqual(t, a, zombieDraws(43, true), "another seed draws other values")
}

func TestRandIsSafeForParallelSteps(t *testing.T) {
	n := &Nemesis{draws: newDraws(1), slots: []string{"d1", "d2", "d3"}}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				_ = n.Pick()
				_ = n.Rand().Intn(10)
			}
		}()
	}
	wg.Wait()
	// Sequential use replays by seed.
	x, y := &Nemesis{draws: newDraws(9), slots: []string{"d1", "d2"}}, &Nemesis{draws: newDraws(9), slots: []string{"d1", "d2"}}
	for i := 0; i < 20; i++ {
		require.Equal(t, x.Pick(), y.Pick())
	}
}
