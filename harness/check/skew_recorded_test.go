package check

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Recorded clock-skew runs (seed 20261129, `go test ./scenarios -run
// 'app-clock-lease|clock-skew/reference'`), trimmed by TestTrimRecordedSkew:
//
//	recorded-mutant-app-clock-lease  d2r1, 10 s behind, writes leases that
//	                                 ended 8 s before its claims
//	recorded-reference-clock-skew    the reference, d2r1 10 s behind: its
//	                                 leases are NOW(6) + lease
func TestRecordedClockSkew(t *testing.T) {
	bad := loadStored(t, "recorded-mutant-app-clock-lease")
	r := CheckExclusive(bad)
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Regexp(t, `^Event \d+ was claimed by d2r1 at [\d:.]+ with a lease ending at [\d:.]+, 8s before the claim on the database clock: the claim excluded nobody\. The harness had set d2r1's clock -10s off \(go-overlay\)\.$`, r.Violations[0].Summary)

	good := loadStored(t, "recorded-reference-clock-skew")
	for _, res := range Evaluate(good) {
		require.NotEqual(t, Fail, res.Verdict, "%s: %s", res.ID, res.Reason)
	}
	require.Equal(t, Pass, CheckExclusive(good).Verdict)
	ls := CheckLanding(good)
	require.True(t, ls[0].Met, ls[0].Reason)
}

// TestTrimRecordedSkew writes a trimmed copy of a recorded clock-skew run
// when OUTBOXCHAOS_TRIM_SKEW=SRC:NAME:N: its first N events and the first N
// the skewed instance claimed, stored as testdata/histories/NAME.
func TestTrimRecordedSkew(t *testing.T) {
	trimFromEnv(t, "OUTBOXCHAOS_TRIM_SKEW", "N", "clock-skew run", func(run history.Run, n int64) map[int64]bool {
		ix := newIndex(run)
		keep := map[int64]bool{}
		skewed := int64(0)
		for _, e := range ix.events {
			if e.ID <= n {
				keep[e.ID] = true
			}
			for _, h := range ix.holds[e.ID] {
				if _, ok := skewOf(run, h.Owner, h.Start); ok && h.Owner != "" && skewed < n && !keep[e.ID] {
					keep[e.ID] = true
					skewed++
				}
			}
		}
		return keep
	})
}
