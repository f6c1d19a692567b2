package check

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Recorded ordering runs (seed 20261129, `go test ./scenarios -run
// 'order-after-backoff|ordering/mutant-base'`), trimmed to a few
// aggregates each by TestTrimRecordedAggregates:
//
//	recorded-mutant-order-after-backoff  later events published while an
//	                                     earlier one of their aggregate
//	                                     waited out its backoff
//	recorded-base-ordering               the base: every aggregate in order
func TestRecordedOrdering(t *testing.T) {
	bad := loadStored(t, "recorded-mutant-order-after-backoff")
	r := CheckOrdering(bad)
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Regexp(t, `^Event \d+ of aggregate a-\w+-\d+ was published at [\d:.]+ before event \d+, committed before it, was done`, r.Violations[0].Summary)
	require.NotEmpty(t, r.Violations[0].Steps)

	good := loadStored(t, "recorded-base-ordering")
	r = CheckOrdering(good)
	require.Equal(t, Pass, r.Verdict, r.Reason)
	for _, res := range Evaluate(good) {
		require.NotEqual(t, Fail, res.Verdict, "%s: %s", res.ID, res.Reason)
	}
	require.True(t, CheckLanding(good)[1].Met, "order-retry landed in the base's run too")

	good.Meta.Ordering = ""
	require.Equal(t, NotExercised, CheckOrdering(good).Verdict, "the same history without the declaration")
}

// TestTrimRecordedAggregates writes a trimmed copy of a recorded ordering
// run when OUTBOXCHAOS_TRIM_AGGREGATES=SRC:NAME:K: the events of its first
// K aggregates and of the aggregate of its first I10 violation, stored as
// testdata/histories/NAME.
func TestTrimRecordedAggregates(t *testing.T) {
	trimFromEnv(t, "OUTBOXCHAOS_TRIM_AGGREGATES", "K", "ordering run", func(run history.Run, k int64) map[int64]bool {
		aggs := map[string]bool{}
		for i, a := range aggregates(run.Events) {
			if int64(i) < k {
				aggs[a.key] = true
			}
		}
		if vs := CheckOrdering(run).Violations; len(vs) > 0 {
			for _, e := range run.Events {
				if e.ID == vs[0].EventID {
					aggs[e.Aggregate] = true
				}
			}
		}
		keep := map[int64]bool{}
		for _, e := range run.Events {
			if aggs[e.Aggregate] {
				keep[e.ID] = true
			}
		}
		return keep
	})
}
