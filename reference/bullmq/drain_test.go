package bullmq_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/check"
	harnessenv "github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
	"github.com/outboxchaos/outboxchaos/reports"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

// The outage scenarios whose queues the real Workers drain. `make
// chaos-long` names the long ones instead, with EnvDrainScenarios.
const (
	EnvDrainScenarios = "OUTBOXCHAOS_DRAIN_SCENARIOS" // comma-separated scenario names
	EnvDrainOut       = "OUTBOXCHAOS_DRAIN_OUT"       // keep the run folders under this directory
	defaultDrain      = "redis-outage,mysql-outage"
)

// TestOutageQueuesDrainedByRealWorkers is issue 12's bar, from the consumer's
// side: the reference rides out an outage (redis-outage, mysql-outage; the
// long ones in `make chaos-long`) with no consumer running, then real
// bullmq Workers (v5 and v6 in turn) drain the queues it left. Every valid
// event ends published ("valid events failed: 0" in results.json and on the
// page), and every job its published events name runs exactly once: the
// Workers complete each id once, and nothing is left waiting or active.
//
// Without node (or its packages) the test skips, except when
// EnvDrainScenarios names the scenarios (`make chaos-long`): then the runs
// and their counts are still checked, and only the drain is skipped.
func TestOutageQueuesDrainedByRealWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs outage scenarios end to end")
	}
	node, missing := findNode()
	names := strings.Split(defaultDrain, ",")
	if v := strings.TrimSpace(os.Getenv(EnvDrainScenarios)); v != "" {
		names = strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' })
	} else if missing != "" {
		t.Skip(missing)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	e, err := harnessenv.Open(ctx, harnessenv.Config{Kind: harnessenv.KindLocal, RedisPersistence: true})
	cancel()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	for i, name := range names {
		alias := bullmqAliases[i%len(bullmqAliases)]
		t.Run(name+"/"+alias, func(t *testing.T) {
			out := runWithoutConsumer(t, e, name)
			run, err := history.Load(out)
			require.NoError(t, err)
			requireNoValidEventFailed(t, out)
			expected := publishedJobs(t, run)
			require.NotEmpty(t, expected, "the run published nothing")
			if missing != "" {
				t.Skip(missing + "; the run itself passed")
			}
			url := harnessenv.RedisURL(e, e.RedisAddr())
			for _, q := range run.Meta.Queues {
				drainQueue(t, node, alias, url, run.Meta.Prefix, q, expected[q])
				requireQueueEmpty(t, e, run.Meta.Prefix, q)
			}
		})
	}
}

// runWithoutConsumer runs the named scenario against the reference with the
// harness's consumer off, so that the jobs stay for the real Workers, and
// returns the run folder. The verdict must be a pass.
func runWithoutConsumer(t *testing.T, e harnessenv.Env, name string) string {
	t.Helper()
	s, err := scenarios.Get(name)
	require.NoError(t, err)
	s.Consumer = false
	out := filepath.Join(t.TempDir(), "run")
	if dir := os.Getenv(EnvDrainOut); dir != "" {
		out = filepath.Join(dir, name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.Drain+10*time.Minute)
	defer cancel()
	o, err := runner.Run(ctx, runner.Options{
		Scenario: s, Adapter: refadapter.New(), Env: e, Seed: 12, Out: out,
		WorkDir: filepath.Join(t.TempDir(), "work"), Progress: testProgress{t},
	})
	require.NoError(t, err)
	require.Empty(t, o.Skipped)
	// The runner returns the history and the results; the report is the
	// caller's to write, as the CLI and chaostest do.
	_, err = reports.WriteRunResults(o.Dir, o.History, o.Results)
	require.NoError(t, err, "write the report")
	require.Equal(t, check.Pass, o.Verdict, "%s: %s (run folder %s)", name, o.Reason, out)
	return out
}

// requireNoValidEventFailed reads "valid events failed" back from
// results.json and the page.
func requireNoValidEventFailed(t *testing.T, out string) {
	t.Helper()
	res, err := verdict.Read(filepath.Join(out, reports.FileResults))
	require.NoError(t, err)
	require.Zero(t, res.Counts.ValidFailed, "valid events failed")
	require.Zero(t, res.Counts.Unfinished)
	require.Equal(t, res.Counts.Valid, res.Counts.Published, "every valid event published")
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), "valid events failed: 0")
	t.Logf("valid %d, published %d, valid failed %d, jobs created %d, run %s",
		res.Counts.Valid, res.Counts.Published, res.Counts.ValidFailed, res.Counts.JobsCreated, res.Duration.D())
}

// publishedJobs lists, per queue, the jobs of the run's valid events (as
// the workload produced them; an already-queued event's job was dispatched
// before the run, so it has no BullMQ job): what the Workers must run, each
// once. Every one of those events ended published.
func publishedJobs(t *testing.T, run history.Run) map[string][]string {
	t.Helper()
	status := map[int64]string{}
	for _, row := range run.Final.Outbox {
		status[row.ID] = row.Status
	}
	seen := map[string]bool{}
	out := map[string][]string{}
	for _, ev := range run.Events {
		if ev.Kind != history.KindValid || seen[ev.JobID] {
			continue
		}
		require.Equal(t, history.StatusPublished, status[ev.ID], "valid event %d (job %s)", ev.ID, ev.JobID)
		seen[ev.JobID] = true
		out[ev.Queue] = append(out[ev.Queue], ev.JobID)
	}
	return out
}

// drainQueue runs a real Worker on queue until it has completed as many
// jobs as want lists, and requires exactly want's ids, each once.
func drainQueue(t *testing.T, node, alias, url, prefix, queue string, want []string) {
	t.Helper()
	if len(want) == 0 {
		return
	}
	w := startNode(t, node, "worker.js", map[string]any{
		"pkg": alias, "url": url, "queue": queue, "prefix": prefix, "count": len(want),
		"drainDelay": 1, "timeoutMs": 80000,
	})
	w.waitReady()
	var got []string
	for _, d := range w.completed() {
		got = append(got, d.ID)
	}
	sort.Strings(got)
	sorted := append([]string(nil), want...)
	sort.Strings(sorted)
	require.Equal(t, sorted, got, "queue %s: the real Worker must run every published job once", queue)
}

// requireQueueEmpty: after the Worker completed the published jobs, no job
// waits or runs: there was no second job for any of them.
func requireQueueEmpty(t *testing.T, e harnessenv.Env, prefix, queue string) {
	t.Helper()
	rdb := redis.NewClient(harnessenv.RedisOptions(e))
	defer rdb.Close()
	for _, list := range []string{"wait", "active", "paused", "prioritized", "delayed"} {
		key := prefix + ":" + queue + ":" + list
		n, err := rdb.Exists(ctxFor(t), key).Result()
		require.NoError(t, err)
		require.Zero(t, n, "%s holds jobs no published event accounts for", key)
	}
}

// testProgress sends the runner's progress lines to the test log.
type testProgress struct{ t *testing.T }

func (w testProgress) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
