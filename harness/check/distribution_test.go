package check

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestNewDistribution(t *testing.T) {
	require.Nil(t, NewDistribution(nil))
	require.Nil(t, NewDistribution([]time.Duration{}))

	one := NewDistribution([]time.Duration{1500 * time.Millisecond})
	require.Equal(t, &Distribution{Count: 1, P50: 1.5, P99: 1.5, Max: 1.5}, one)

	// 1..100 ms, shuffled: nearest rank gives 50 ms and 99 ms.
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	ds[0], ds[57] = ds[57], ds[0]
	in := append([]time.Duration(nil), ds...)
	d := NewDistribution(ds)
	require.Equal(t, in, ds, "the input is not reordered")
	require.Equal(t, 100, d.Count)
	require.InDelta(t, 0.050, d.P50, 1e-9)
	require.InDelta(t, 0.099, d.P99, 1e-9)
	require.InDelta(t, 0.100, d.Max, 1e-9)

	// Rounded to the microsecond; a slow outlier shows in max and p99 only
	// when it is more than 1% of the samples.
	d = NewDistribution([]time.Duration{1234567 * time.Nanosecond, 2 * time.Millisecond, 9 * time.Second})
	require.Equal(t, 3, d.Count)
	require.InDelta(t, 0.002, d.P50, 1e-9)
	require.InDelta(t, 9.0, d.P99, 1e-9)
	require.InDelta(t, 9.0, d.Max, 1e-9)
	d = NewDistribution([]time.Duration{1234567 * time.Nanosecond})
	require.InDelta(t, 0.001235, d.P50, 1e-12)
}
