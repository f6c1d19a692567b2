package check

import (
	"math"
	"sort"
	"time"
)

// Quantiles summarises a sample of durations by nearest rank. It is the one
// definition of the harness's percentiles: check's Distribution (I8's
// recovery delays) and the reports' latencies are both made from it.
type Quantiles struct {
	Count         int
	P50, P99, Max time.Duration
}

// Summarize returns the quantiles of ds (in any order; not modified), and
// false when ds is empty.
func Summarize(ds []time.Duration) (Quantiles, bool) {
	if len(ds) == 0 {
		return Quantiles{}, false
	}
	sorted := append([]time.Duration(nil), ds...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	return Quantiles{
		Count: len(sorted),
		P50:   nearestRank(sorted, 50),
		P99:   nearestRank(sorted, 99),
		Max:   sorted[len(sorted)-1],
	}, true
}

// NewDistribution summarises ds (in any order; not modified), or returns
// nil when there is nothing to summarise. Seconds are rounded to the
// microsecond.
func NewDistribution(ds []time.Duration) *Distribution {
	q, ok := Summarize(ds)
	if !ok {
		return nil
	}
	return &Distribution{Count: q.Count, P50: secondsOf(q.P50), P99: secondsOf(q.P99), Max: secondsOf(q.Max)}
}

// nearestRank is the p-th percentile of sorted, by nearest rank: the
// smallest value with at least p percent of the values at or below it.
func nearestRank(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	return sorted[rank-1]
}

func secondsOf(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1e6
}
