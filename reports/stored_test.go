package reports

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

var update = flag.Bool("update", false, "rewrite the stored runs under testdata/runs and their golden results")

// storedRunsDir is the repository's testdata/runs.
const storedRunsDir = "../testdata/runs"

// Files stored beside a run's history.
const (
	fileChecks = "checks.json"         // the checker results the rendering tests use
	fileGolden = "results.golden.json" // Build's output for the run and checks.json
)

var fixtures = map[string]func() (history.Run, []check.Result){
	"pass-baseline": passBaseline,
	"fail-several":  failSeveral,
}

// loadStored reads a stored run and its checks.json.
func loadStored(t testing.TB, name string) (history.Run, []check.Result) {
	t.Helper()
	dir := filepath.Join(storedRunsDir, name)
	run, err := history.Load(dir)
	require.NoError(t, err, "stored run %s: regenerate with go test ./reports -run TestStoredRuns -update", name)
	b, err := os.ReadFile(filepath.Join(dir, fileChecks))
	require.NoError(t, err)
	var results []check.Result
	require.NoError(t, json.Unmarshal(b, &results))
	return run, results
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
}

// jsonValue decodes JSON into generic values, for comparisons that ignore
// formatting and key order.
func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	return v
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// TestStoredRuns checks that the committed runs are what the generators
// produce and that Build's results for them match the golden files.
func TestStoredRuns(t *testing.T) {
	for name, gen := range fixtures {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(storedRunsDir, name)
			run, checks := gen()
			if *update {
				require.NoError(t, os.RemoveAll(dir))
				require.NoError(t, history.Write(dir, run))
				writeJSONFile(t, filepath.Join(dir, fileChecks), checks)
				writeJSONFile(t, filepath.Join(dir, fileGolden), Build(run, checks))
			}
			stored, storedChecks := loadStored(t, name)
			require.Equal(t, jsonValue(t, marshal(t, run)), jsonValue(t, marshal(t, stored)),
				"stored run %s differs from its generator: regenerate with -update", name)
			require.Equal(t, jsonValue(t, marshal(t, checks)), jsonValue(t, marshal(t, storedChecks)))
			golden, err := os.ReadFile(filepath.Join(dir, fileGolden))
			require.NoError(t, err)
			require.Equal(t, jsonValue(t, golden), jsonValue(t, marshal(t, Build(stored, storedChecks))),
				"results for %s differ from %s", name, fileGolden)
		})
	}
}

// TestBuildFailSeveral pins the numbers that the golden file holds, so a
// regenerated golden cannot silently go wrong.
func TestBuildFailSeveral(t *testing.T) {
	run, checks := loadStored(t, "fail-several")
	res := Build(run, checks)
	require.Equal(t, verdict.SchemaVersion, res.SchemaVersion)
	require.Equal(t, check.Fail, res.Verdict)
	require.Len(t, res.Invariants, 9)
	c := res.Counts
	require.Equal(t, 60, c.Events)
	require.Equal(t, 58, c.Valid)
	require.Equal(t, 2, c.Poison)
	require.Equal(t, 57, c.Published) // 58 valid minus stuck event 23
	require.Equal(t, 2, c.Failed)     // events 19 and 31
	require.Equal(t, 1, c.Unfinished) // event 23
	require.Equal(t, 58, c.JobsCreated)
	require.Equal(t, 3, c.Faults)
	require.Equal(t, 4, c.Instances) // d1, d2, d3, d3-r1
	require.Equal(t, 1, c.Gaps)
	require.Equal(t, 57, res.Latency.Samples)
	require.InDelta(t, 1145.0, res.Latency.MaxMs, 0.001) // event 7: committed 0.5s, published 1.645s
	require.LessOrEqual(t, res.Latency.P50Ms, res.Latency.P99Ms)
	require.LessOrEqual(t, res.Latency.P99Ms, res.Latency.MaxMs)
	require.Equal(t, "6.1s", res.Duration.D().String())
}

func TestBuildPassBaseline(t *testing.T) {
	run, checks := loadStored(t, "pass-baseline")
	res := Build(run, checks)
	require.Equal(t, check.Pass, res.Verdict)
	require.Equal(t, verdict.Counts{Events: 40, Valid: 40, Published: 40, JobsCreated: 40, Takes: 40, Transitions: 200, Instances: 2}, res.Counts)
	require.Equal(t, 40, res.Latency.Samples)
	require.InDelta(t, 37.1, res.Latency.MaxMs, 0.001) // claim after 34ms, add +1.8ms, publish +1.3ms
}
