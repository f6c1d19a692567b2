package bench_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/designs"
	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/bench"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

func TestMain(m *testing.M) { localtest.Main(m) }

func comparisonDesigns(t *testing.T) []bench.Design {
	t.Helper()
	var out []bench.Design
	for _, m := range designs.All() {
		a, err := designs.Adapter(m.Name)
		require.NoError(t, err)
		out = append(out, bench.Design{Name: m.Name, About: m.About, Adapter: a, Events: 40, GoalFactor: 1})
	}
	return out
}

// A Quick run against private servers fills every row with sane numbers and
// writes the markdown file. No timing threshold is asserted: the machine may
// be busy.
func TestQuickRunFillsEveryRow(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := bench.Measure(ctx, bench.Config{
		Quick: true, Events: 600, LatencyDuration: time.Second, Rate: 100, Instances: []int{1, 2},
		Reference: refadapter.New(), Designs: comparisonDesigns(t), SeedCap: 15 * time.Second,
		MariaDB: localtest.MariaDB(t), Redis: localtest.Redis(t),
		Out: &out, File: filepath.Join(dir, "bench.md"), WorkDir: dir, ProfileDir: dir, LongEvents: 3000,
	})
	require.NoError(t, err, out.String())

	names := []string{"floor", "reference x1", "reference x2", "nest-single x1", "global-lock-batch20 x1"}
	require.Len(t, rep.Rows, len(names))
	for i, row := range rep.Rows {
		require.Equal(t, names[i], row.Name)
		require.Greater(t, row.EPS, 0.0, row.Name)
		require.Greater(t, row.Published, 0, row.Name)
		require.LessOrEqual(t, row.Published, row.Preloaded, row.Name)
		require.Greater(t, row.SQLPerEvent, 0.0, row.Name)
		require.Greater(t, row.RedisPerEvent, 0.0, row.Name)
		if row.Kind != bench.KindFloor {
			require.Greater(t, row.PeakRSSMB, 1.0, row.Name)
		}
		if row.Kind == bench.KindReference {
			require.Equal(t, 600, row.Published, "a reference case publishes its whole preload")
			l := row.Latency
			require.NotNil(t, l, row.Name)
			require.Equal(t, 100, l.Events, row.Name)
			require.Greater(t, l.P50, time.Duration(0), row.Name)
			require.LessOrEqual(t, l.P50, l.P99, row.Name)
			require.LessOrEqual(t, l.P99, l.Max, row.Name)
			require.Greater(t, l.WorkP50, time.Duration(0), row.Name)
			require.LessOrEqual(t, l.WaitP50, l.WaitP99, row.Name)
			require.LessOrEqual(t, l.WaitP99, l.Max, "a part of a latency is no longer than the longest latency")
			require.LessOrEqual(t, l.WorkP99, l.Max, "a part of a latency is no longer than the longest latency")
		} else {
			require.Nil(t, row.Latency, row.Name)
		}
	}
	// The floor does no claim, so it sends fewer statements per event than
	// the reference, whose claim and finalize are transactions.
	require.Less(t, rep.Row("floor").SQLPerEvent, rep.Row("reference x1").SQLPerEvent)

	require.NotNil(t, rep.Long)
	require.Equal(t, 3000, rep.Long.Events)
	require.NotEmpty(t, rep.Long.Samples)
	require.Greater(t, rep.Long.PeakMB, 1.0)
	require.NotNil(t, rep.Profile)
	require.Greater(t, rep.Profile.Events, 0)
	require.FileExists(t, rep.Profile.CPUFile)

	goals := map[string]string{}
	for _, g := range rep.Goals {
		require.Contains(t, []string{bench.GoalMet, bench.GoalNotMet, bench.GoalNotMeasured}, g.Status, g.Name)
		require.NotEmpty(t, g.Detail, g.Name)
		goals[g.Name] = g.Status
	}
	require.Len(t, rep.Goals, 6, "floor share, one per design with a factor, latency, scaling, memory")
	require.Equal(t, bench.GoalNotMeasured, goals["p99 commit-to-published under 100ms at 1,000 events/s with 2 instances"],
		"the quick run offers 100/s, not the goal's 1,000/s")

	md, err := os.ReadFile(filepath.Join(dir, "bench.md"))
	require.NoError(t, err)
	for _, want := range []string{"# outboxchaos benchmark", "| floor |", "| reference x2 |", "| global-lock-batch20 x1 |", "## Goals", "Load average", "MariaDB " + localtest.MariaDB(t).Version()} {
		require.Contains(t, string(md), want)
	}
	require.Contains(t, out.String(), "| reference x1 |", "the table is printed too")
}

func TestConfigErrorsSayWhatToFix(t *testing.T) {
	ref := refadapter.New()
	cases := []struct {
		cfg  bench.Config
		want string
	}{
		{bench.Config{}, "Reference is nil"},
		{bench.Config{Reference: ref, Events: -1}, "Events -1"},
		{bench.Config{Reference: ref, Rate: -5}, "Rate -5"},
		{bench.Config{Reference: ref, Instances: []int{2, 1}}, "ascending"},
		{bench.Config{Reference: ref, Instances: []int{0}}, "each count must be 1..16"},
		{bench.Config{Reference: ref, BatchSize: 20000}, "BatchSize 20000"},
		{bench.Config{Reference: ref, Designs: []bench.Design{{Name: "floor", Adapter: ref}}}, "unique name"},
		{bench.Config{Reference: ref, Designs: []bench.Design{{Name: "x"}}}, "design x has no adapter"},
	}
	for _, c := range cases {
		_, err := bench.Measure(context.Background(), c.cfg)
		require.ErrorContains(t, err, c.want)
	}
}
