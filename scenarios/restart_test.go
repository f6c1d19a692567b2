package scenarios_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/mutants"
	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
	"github.com/outboxchaos/outboxchaos/reports"
)

// The controls of mysql-restart, whose mutants (memory-owner-registry,
// memory-owner-recovery) are caught in TestMutantsAreCaughtByTheirInvariant:
// the reference and the bug-free base ride out two SIGKILLs of the private
// mariadbd, the second with d1 paused across it, and every valid event is
// still published, each job created once.
func TestReferenceAndBaseRideOutAMySQLRestart(t *testing.T) {
	localtest.EndToEndGroup(t)
	base, err := mutants.BaseAdapter()
	require.NoError(t, err)
	s := catalogScenario(t, "mysql-restart")
	for _, a := range []supervisor.Adapter{refadapter.New(), base} {
		t.Run(a.Name(), func(t *testing.T) {
			e := endToEnd(t)
			started := time.Now()
			o := runScenario(t, e, s, runner.Options{Adapter: a, Seed: mutantSeed})
			require.Equal(t, check.Pass, o.Verdict, "%s: %s (run folder %s)", a.Name(), o.Reason, o.Dir)
			requireAllPass(t, o)
			res := reports.Build(o.History, o.Results) // what results.json holds
			require.Zero(t, res.Counts.ValidFailed, "valid events failed")
			require.Equal(t, 2, countFaults(t, o.Dir, "server-restart"), "both restarts ran")
			t.Logf("%s rides out mysql-restart in %.1f s: %s", a.Name(), time.Since(started).Seconds(), o.Landing[0].Reason)
		})
	}
}

// The external environment never kills a server; it says so, and the run
// is skipped with that reason instead of failing.
func TestMySQLRestartIsSkippedWhereMySQLCannotBeKilled(t *testing.T) {
	local := endToEnd(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ext, err := env.Open(ctx, env.Config{Kind: env.KindExternal, MySQLDSN: local.MySQLDSN(""),
		RedisURL: fmt.Sprintf("redis://%s/0", local.RedisAddr())})
	require.NoError(t, err)
	defer ext.Close()
	s := catalogScenario(t, "mysql-restart")
	o := runScenario(t, ext, s, runner.Options{Adapter: refadapter.New()})
	require.Contains(t, o.Skipped, "never kills or restarts it")
	require.Empty(t, runner.Missing(s, refadapter.New(), local), "the local environment can")
}

// countFaults counts the run's recorded faults of kind (faults.jsonl).
func countFaults(t *testing.T, dir, kind string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "faults.jsonl"))
	require.NoError(t, err)
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var f struct {
			Kind string `json:"kind"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &f))
		if f.Kind == kind {
			n++
		}
	}
	return n
}
