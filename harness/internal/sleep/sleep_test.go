package sleep

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestForWaitsTheFullSpan(t *testing.T) {
	start := time.Now()
	require.NoError(t, For(context.Background(), 30*time.Millisecond))
	require.GreaterOrEqual(t, time.Since(start), 30*time.Millisecond)
}

func TestForEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	require.ErrorIs(t, For(ctx, time.Minute), context.Canceled)
	require.Less(t, time.Since(start), 10*time.Second)
}

func TestForWithoutASpanReportsOnlyTheContext(t *testing.T) {
	require.NoError(t, For(context.Background(), 0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, For(ctx, -time.Second), context.Canceled)
}
