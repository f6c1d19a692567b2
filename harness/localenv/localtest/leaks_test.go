package localtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// The leak check sees a goroutine that stays, and stops seeing it once it
// ends.
func TestLeakCheckSeesAGoroutineThatStays(t *testing.T) {
	opts := append(LeakIgnores(), goleak.IgnoreCurrent())
	stay := make(chan struct{})
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		<-stay
	}()
	require.False(t, waitSettled(opts, 300*time.Millisecond), "a blocked goroutine is a leak")
	require.Error(t, goleak.Find(opts...))
	close(stay)
	<-gone
	require.True(t, waitSettled(opts, leakPatience), "an ended goroutine is not")
}
