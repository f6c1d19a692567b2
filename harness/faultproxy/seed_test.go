package faultproxy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// choices are the random choices a server makes for three seeded faults.
type choices struct {
	Delays []time.Duration
	Slices []int
	Fires  []bool
	Tokens []string
}

func drawChoices(t *testing.T, seed int64) choices {
	t.Helper()
	p, err := newServer(t, seed).Link("redis/d1", "127.0.0.1:1")
	require.NoError(t, err)
	jid := added(t, p, Latency{Latency: 100 * time.Millisecond, Jitter: 50 * time.Millisecond})
	sid := added(t, p, Slicer{Average: 100, Size: 50})
	lid := added(t, p, LostReplyRedisAdd{Times: 1000, Probability: 0.5})

	var c choices
	jitter := p.tp.Toxics.GetToxic(jid).Toxic.(*jitterToxic)
	slicer := p.tp.Toxics.GetToxic(sid).Toxic.(*seededSlicer)
	for range 20 {
		c.Delays = append(c.Delays, jitter.delay())
		c.Slices = append(c.Slices, slicer.size(1000))
	}
	lost := p.faults[lid].state.(*lostReply)
	for range 50 {
		f := lost.fire(false)
		c.Fires = append(c.Fires, f != nil)
		if f != nil {
			c.Tokens = append(c.Tokens, f.token)
		}
	}
	return c
}

func TestSameSeedMakesTheSameChoices(t *testing.T) {
	a, b, other := drawChoices(t, 7), drawChoices(t, 7), drawChoices(t, 8)
	require.Equal(t, a, b)
	require.NotEqual(t, a.Delays, other.Delays)
	require.NotEqual(t, a.Slices, other.Slices)
	require.NotEqual(t, a.Fires, other.Fires)

	for _, d := range a.Delays {
		require.GreaterOrEqual(t, d, 50*time.Millisecond)
		require.LessOrEqual(t, d, 150*time.Millisecond)
	}
	for _, n := range a.Slices {
		require.GreaterOrEqual(t, n, 50)
		require.LessOrEqual(t, n, 150)
	}
	require.Greater(t, len(a.Tokens), 5, "probability 0.5 fires about half the time")
	require.Less(t, len(a.Tokens), 45)
}
