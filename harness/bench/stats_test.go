package bench

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPercentileIsNearestRank(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 200; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	require.Equal(t, 100*time.Millisecond, percentile(ds, 0.50))
	require.Equal(t, 198*time.Millisecond, percentile(ds, 0.99))
	require.Equal(t, 200*time.Millisecond, percentile(ds, 1))
	one := []time.Duration{7 * time.Millisecond}
	require.Equal(t, 7*time.Millisecond, percentile(one, 0.5))
	require.Equal(t, 7*time.Millisecond, percentile(one, 0.99))
}

func TestSpansSummarizeSortsEachPart(t *testing.T) {
	sp := spans{
		total:  []time.Duration{30, 10, 20, 150 * time.Millisecond},
		wait:   []time.Duration{25, 5, 15, 50 * time.Millisecond},
		work:   []time.Duration{5, 5, 5, 100 * time.Millisecond},
		second: []int64{1, 1, 2, 3},
	}
	l := sp.summarize()
	require.Equal(t, 4, l.Events)
	require.Equal(t, time.Duration(20), l.P50)
	require.Equal(t, 150*time.Millisecond, l.P99)
	require.Equal(t, 150*time.Millisecond, l.Max)
	require.Equal(t, time.Duration(15), l.WaitP50)
	require.Equal(t, 50*time.Millisecond, l.WaitP99)
	require.Equal(t, time.Duration(5), l.WorkP50)
	require.Equal(t, 100*time.Millisecond, l.WorkP99)
	require.Equal(t, 3, l.Seconds)
	require.Equal(t, 1, l.SlowSeconds, "only second 3 holds an event over 100ms")
}

func TestMedianRowKeepsEveryRoundAndTheLargestPeak(t *testing.T) {
	lat := &Latency{Events: 5}
	rs := []Row{
		{Name: "r", EPS: 300, PeakRSSMB: 10, Latency: lat},
		{Name: "r", EPS: 100, PeakRSSMB: 30},
		{Name: "r", EPS: 200, PeakRSSMB: 20, SQLPerEvent: 0.5},
	}
	m := medianRow(rs)
	require.Equal(t, 200.0, m.EPS)
	require.Equal(t, 0.5, m.SQLPerEvent, "the other fields are the median round's")
	require.Equal(t, []float64{300, 100, 200}, m.RoundEPS, "rounds in run order")
	require.Equal(t, 30.0, m.PeakRSSMB)
	require.Same(t, lat, m.Latency, "the latency of the round that measured it")
}

func TestLongJudgesGrowthBetweenHalves(t *testing.T) {
	sample := func(mb ...float64) RSSSample { return RSSSample{RSSMB: mb} }
	flat := LongResult{Samples: []RSSSample{sample(5, 6), sample(20, 19), sample(21, 20), sample(22, 21), sample(21, 22)}}
	flat.judge()
	require.True(t, flat.Flat, flat.Summary())
	require.Equal(t, 6.0, flat.FirstMB, "the largest instance of the first sample")
	require.Equal(t, 22.0, flat.LastMB)
	require.Equal(t, 22.0, flat.PeakMB)

	growing := LongResult{Samples: []RSSSample{sample(20), sample(22), sample(30), sample(40)}}
	growing.judge()
	require.False(t, growing.Flat, growing.Summary())
	require.InDelta(t, 40.0/22.0, growing.Growth, 1e-9)

	short := LongResult{Samples: []RSSSample{sample(20), sample(21)}}
	short.judge()
	require.False(t, short.Flat)
	require.Contains(t, short.Summary(), "too few samples")
}

func TestGoalsReportNumbersAndBounds(t *testing.T) {
	rep := Report{Machine: Machine{Cores: 2}, Rows: []Row{
		{Name: "floor", Kind: KindFloor, EPS: 10000, SQLPerEvent: 0.015},
		{Name: "reference x1", Kind: KindReference, Instances: 1, EPS: 4000, SQLPerEvent: 0.05, CoresBusy: 1.9},
		{Name: "reference x2", Kind: KindReference, Instances: 2, EPS: 3000, CoresBusy: 1.95,
			Latency: &Latency{Offered: 1000, Achieved: 1000, Events: 10, P50: 40 * time.Millisecond, P99: 150 * time.Millisecond, Max: time.Second, WaitP99: 60 * time.Millisecond, WorkP99: 120 * time.Millisecond}},
		{Name: "global-lock-batch20 x1", Kind: KindDesign, Instances: 1, EPS: 20},
	}}
	gs := goals(&rep, Config{Designs: []Design{{Name: "global-lock-batch20", GoalFactor: 100}}})
	byName := map[string]Goal{}
	for _, g := range gs {
		byName[g.Name] = g
	}
	floor := byName["throughput at least half of the raw floor"]
	require.Equal(t, GoalNotMet, floor.Status)
	require.Contains(t, floor.Detail, "0.40 x the floor")
	require.Contains(t, floor.Detail, "1.90 of 2 cores were busy")

	require.Equal(t, GoalMet, byName["throughput at least 100 x global-lock-batch20"].Status)

	lat := byName["p99 commit-to-published under 100ms at 1,000 events/s with 2 instances"]
	require.Equal(t, GoalNotMet, lat.Status)
	require.Contains(t, lat.Detail, "claim to published p99 120 ms")

	scaling := byName["adding instances never lowers throughput"]
	require.Equal(t, GoalNotMet, scaling.Status)
	require.Contains(t, scaling.Detail, "4,000 -> 3,000")

	require.Equal(t, GoalNotMeasured, byName["memory flat over a 1,000,000-event run"].Status)
}

func TestNumberFormats(t *testing.T) {
	require.Equal(t, "12,345", num(12345.4))
	require.Equal(t, "1,000,000", num(1e6))
	require.Equal(t, "999", num(999))
	require.Equal(t, "20.9", num(20.9))
	require.Equal(t, "1.5 ms", ms(1500*time.Microsecond))
	require.Equal(t, "144 ms", ms(144*time.Millisecond))
}

func TestProcUsageOfThisProcess(t *testing.T) {
	u, err := readUsage(os.Getpid())
	require.NoError(t, err)
	require.Greater(t, u.RSSKB, int64(0))
	require.GreaterOrEqual(t, u.HWMKB, u.RSSKB, "the high-water mark is at least the current RSS")
	_, err = readUsage(1 << 30)
	require.ErrorContains(t, err, "pid 1073741824")
}
