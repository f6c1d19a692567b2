package examples_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
)

// TestExamplesThroughFailureWrite runs failure-write (last_error narrowed
// to VARCHAR(48), poison events whose queue name, 64 characters of ASCII or
// of two to four bytes each, a reason may quote) against every example.
// The reference and the Node.js example (which fit last_error to the
// column they read from information_schema) pass with both kinds landed.
// roomservice fails I4, as the README says: it cuts its message to 1024
// bytes, a refused "mark failed" leaves the row to its lease, and the event
// is delivered and refused again for ever.
func TestExamplesThroughFailureWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs are skipped with -short")
	}
	for _, ex := range examples() {
		t.Run(ex.name, func(t *testing.T) {
			if ex.node {
				requireNode(t)
			}
			o := runSized(t, ex, "failure-write")
			require.NotEmpty(t, o.Landing)
			got, why := verdicts(o)
			t.Logf("%s: verdict %s, landing %s\n%s", ex.name, o.Verdict, o.Landing[0].Reason, why)
			if ex.name == "roomservice" {
				require.Equal(t, check.Fail, got["I4"], why)
				require.Equal(t, check.Fail, o.Verdict)
				return
			}
			require.True(t, o.Landing[0].Met, o.Landing[0].Reason)
			require.Equal(t, allPass(), held(got), why)
			require.Equal(t, check.Pass, o.Verdict, o.Reason)
		})
	}
}
