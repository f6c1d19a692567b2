package examples_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
)

// TestExamplesThroughHalfOpen runs half-open (links that take every byte
// and answer nothing, the store's and Redis's, on connections in use and
// then on new connections only) against every example: each must pass,
// with the fault landed (a stuck owner's claim taken over by another
// instance while its link was held).
func TestExamplesThroughHalfOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs are skipped with -short")
	}
	for _, ex := range examples() {
		t.Run(ex.name, func(t *testing.T) {
			if ex.node {
				requireNode(t)
			}
			o := runSized(t, ex, "half-open")
			require.NotEmpty(t, o.Landing)
			require.True(t, o.Landing[0].Met, o.Landing[0].Reason)
			got, why := verdicts(o)
			require.Equal(t, allPass(), held(got), why)
			require.Equal(t, check.Pass, o.Verdict, o.Reason)
			t.Logf("%s passes half-open: %s", ex.name, o.Landing[0].Reason)
		})
	}
}
