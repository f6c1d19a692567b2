package check

import (
	"math"
	"sort"
	"time"
)

// Distribution summarizes measured durations: how many, the median, the
// 99th percentile and the maximum, in milliseconds (nearest rank).
type Distribution struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

// distribution summarizes ds; nil when there is nothing to summarize.
func distribution(ds []time.Duration) *Distribution {
	if len(ds) == 0 {
		return nil
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return &Distribution{Count: len(s), P50: millis(rank(s, 0.50)), P99: millis(rank(s, 0.99)), Max: millis(s[len(s)-1])}
}

// rank is the nearest-rank p-th quantile of sorted s.
func rank(s []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p*float64(len(s)))) - 1
	if i < 0 {
		i = 0
	}
	return s[i]
}

func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}
