package failpoint

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// recorder is a Runtime that records instead of killing or sleeping.
type recorder struct {
	stderr bytes.Buffer
	kills  int
	sleeps []time.Duration
}

func (r *recorder) runtime() Runtime {
	return Runtime{
		Stderr: &r.stderr,
		Kill:   func() { r.kills++ },
		Sleep:  func(d time.Duration) { r.sleeps = append(r.sleeps, d) },
	}
}

func TestParseEmptyIsOff(t *testing.T) {
	s, err := Parse("  ", 1)
	require.NoError(t, err)
	require.Nil(t, s)
	require.False(t, s.Hit(AfterClaim), "a nil set never fires")
	require.Empty(t, s.Enabled())
}

func TestParseValid(t *testing.T) {
	s, err := Parse("after-enqueue=crash@nth:3; after-claim=sleep(2s)@prob:0.25;before-finalize-commit=crash;after-finalize-commit=sleep(5ms)@always;", 1)
	require.NoError(t, err)
	require.Equal(t, []Name{AfterClaim, AfterEnqueue, AfterFinalizeCommit, BeforeFinalizeCommit}, s.Enabled())
	require.Equal(t, action{kind: actionCrash}, s.entries[AfterEnqueue].action)
	require.Equal(t, trigger{kind: triggerNth, nth: 3}, s.entries[AfterEnqueue].trigger)
	require.Equal(t, action{kind: actionSleep, sleep: 2 * time.Second}, s.entries[AfterClaim].action)
	require.Equal(t, trigger{kind: triggerProb, prob: 0.25}, s.entries[AfterClaim].trigger)
	require.Equal(t, trigger{kind: triggerAlways}, s.entries[BeforeFinalizeCommit].trigger)
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"after-enqueue":                       "has no '='",
		"after-enqeue=crash":                  `unknown failpoint "after-enqeue"`,
		"after-claim=explode":                 `unknown action "explode"`,
		"after-claim=sleep(abc)":              "want a positive Go duration",
		"after-claim=sleep(-1s)":              "want a positive Go duration",
		"after-claim=sleep(1s":                `unknown action "sleep(1s"`,
		"after-claim=crash@nth:0":             "want nth:<N> with N >= 1",
		"after-claim=crash@nth:x":             "want nth:<N> with N >= 1",
		"after-claim=crash@prob:0":            "0 < p <= 1",
		"after-claim=crash@prob:1.5":          "0 < p <= 1",
		"after-claim=crash@sometimes":         `unknown trigger "sometimes"`,
		"after-claim=crash;after-claim=crash": "given twice",
		";;":                                  "has no entries",
	}
	for spec, want := range cases {
		_, err := Parse(spec, 1)
		require.ErrorContains(t, err, want, "spec %q", spec)
	}
}

func TestCrashPrintsOneLineAndKills(t *testing.T) {
	s, err := Parse("after-enqueue=crash", 1)
	require.NoError(t, err)
	var r recorder
	s.WithRuntime(r.runtime())
	require.False(t, s.Hit(AfterClaim), "a name without an entry never fires")
	require.Zero(t, r.kills)
	require.True(t, s.Hit(AfterEnqueue))
	require.Equal(t, 1, r.kills)
	require.Equal(t, "failpoint after-enqueue: crash\n", r.stderr.String())
}

func TestSleepUsesTheDuration(t *testing.T) {
	s, err := Parse("after-claim=sleep(1500ms)", 1)
	require.NoError(t, err)
	var r recorder
	s.WithRuntime(r.runtime())
	s.Hit(AfterClaim)
	s.Hit(AfterClaim)
	require.Equal(t, []time.Duration{1500 * time.Millisecond, 1500 * time.Millisecond}, r.sleeps)
	require.Zero(t, r.kills)
}

func TestNthFiresOnlyOnTheNthHit(t *testing.T) {
	s, err := Parse("after-claim=crash@nth:3", 1)
	require.NoError(t, err)
	var r recorder
	s.WithRuntime(r.runtime())
	var fired []int
	for i := 1; i <= 6; i++ {
		if s.Hit(AfterClaim) {
			fired = append(fired, i)
		}
	}
	require.Equal(t, []int{3}, fired)
	require.Equal(t, 1, r.kills)
}

func TestProbIsSeededAndRoughlyP(t *testing.T) {
	pattern := func(seed int64) []bool {
		s, err := Parse("after-claim=sleep(1ms)@prob:0.25", seed)
		require.NoError(t, err)
		var r recorder
		s.WithRuntime(r.runtime())
		out := make([]bool, 2000)
		for i := range out {
			out[i] = s.Hit(AfterClaim)
		}
		return out
	}
	a, b, c := pattern(1), pattern(1), pattern(2)
	require.Equal(t, a, b, "the same seed replays the same firings")
	require.NotEqual(t, a, c, "another seed draws differently")
	n := 0
	for _, f := range a {
		if f {
			n++
		}
	}
	require.InDelta(t, 500, n, 120, "about a quarter of 2000 hits fire")
}

func TestProbOneAlwaysFires(t *testing.T) {
	s, err := Parse("after-claim=sleep(1ms)@prob:1", 7)
	require.NoError(t, err)
	var r recorder
	s.WithRuntime(r.runtime())
	for i := 0; i < 100; i++ {
		require.True(t, s.Hit(AfterClaim))
	}
}
