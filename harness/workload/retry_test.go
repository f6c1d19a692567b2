package workload

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A step of a taken job is retried for as long as its job's time allows:
// Redis held over its memory limit refuses the consumer's scripts for
// seconds, longer than five doubling tries (3.1 s) last.
func TestRetryRidesOutAStateLongerThanFiveTries(t *testing.T) {
	var tl tally
	failures := 6 // waits 0.1+0.2+0.4+0.8+1+1 s: past the old five tries
	err := tl.retry(context.Background(), func() error {
		if failures > 0 {
			failures--
			return errors.New("OOM command not allowed when used memory > 'maxmemory'.")
		}
		return nil
	})
	require.NoError(t, err)
	require.EqualValues(t, 6, tl.errs.Load(), "every refusal is counted")
}

func TestRetryGivesUpWhenItsJobsTimeEnds(t *testing.T) {
	var tl tally
	ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
	defer cancel()
	refused := errors.New("LOADING Redis is loading the dataset in memory")
	err := tl.retry(ctx, func() error { return refused })
	require.ErrorIs(t, err, refused, "the last error is returned")
	require.Positive(t, tl.errs.Load())
}
