package examples_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
)

// TestExamplesThroughTransientStates runs transient-states (Redis answers
// every write with READONLY, then LOADING, then OOM) against every example.
// The reference and the Node.js example pass with the fault landed.
// roomservice fails, by design, as the README says: it retries every
// failure after a fixed 100 ms (I6) and spends its attempts inside the
// states until events end failed (I2).
func TestExamplesThroughTransientStates(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs are skipped with -short")
	}
	for _, ex := range examples() {
		t.Run(ex.name, func(t *testing.T) {
			if ex.node {
				requireNode(t)
			}
			o := runSized(t, ex, "transient-states")
			require.NotEmpty(t, o.Landing)
			require.True(t, o.Landing[0].Met, o.Landing[0].Reason)
			got, why := verdicts(o)
			if ex.name == "roomservice" {
				require.Equal(t, check.Fail, got["I2"], why)
				require.Equal(t, check.Fail, got["I6"], why)
				require.Equal(t, check.Fail, o.Verdict)
				return
			}
			require.Equal(t, allPass(), held(got), why)
			require.Equal(t, check.Pass, o.Verdict, o.Reason)
		})
	}
}
