package check

import (
	"math"
	"sort"
	"time"
)

// NewDistribution summarises ds (in any order; not modified), or returns
// nil when there is nothing to summarise. Seconds are rounded to the
// microsecond.
func NewDistribution(ds []time.Duration) *Distribution {
	if len(ds) == 0 {
		return nil
	}
	sorted := append([]time.Duration(nil), ds...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	return &Distribution{
		Count: len(sorted),
		P50:   secondsOf(nearestRank(sorted, 50)),
		P99:   secondsOf(nearestRank(sorted, 99)),
		Max:   secondsOf(sorted[len(sorted)-1]),
	}
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
