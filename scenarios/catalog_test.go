package scenarios_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/reference"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

// The design's catalog, by name: a scenario missing here is missing in CI.
var designCatalog = []string{
	"baseline", "crash-window", "contention", "lease-expiry", "zombie", "redis-latency",
	"redis-outage", "mysql-latency", "mysql-outage", "lost-reply-redis", "lost-reply-mysql-commit",
	"poison", "graceful-shutdown", "dedupe-horizon", "redis-restart", "random",
}

func TestCatalogIsCompleteAndValid(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range scenarios.All() {
		require.NoError(t, s.Validate())
		require.False(t, seen[s.Name], "scenario %s defined twice", s.Name)
		seen[s.Name] = true
	}
	for _, name := range designCatalog {
		require.True(t, seen[name], "design.md's scenario %s is not in the catalog", name)
	}
}

func TestGetUnknownScenarioListsNames(t *testing.T) {
	_, err := scenarios.Get("crashwindow")
	require.ErrorContains(t, err, `unknown scenario "crashwindow"`)
	require.ErrorContains(t, err, "crash-window")
}

func TestScenarioValidationNamesTheProblem(t *testing.T) {
	s, err := scenarios.Get("baseline")
	require.NoError(t, err)
	s.Instances = 0
	require.ErrorContains(t, s.Validate(), "instances 0")
	s, _ = scenarios.Get("baseline")
	s.Tuning.BackoffMax = 1
	require.ErrorContains(t, s.Validate(), "backoff max must be >= backoff base")
}

// Each scenario built to put an invariant to the test says so, so that a run
// in which its fault did not produce anything to check is unknown, not a
// pass.
func TestScenariosNameWhatTheyExercise(t *testing.T) {
	want := map[string][]string{
		"crash-window": {"I1"}, "dedupe-horizon": {"I1"}, "lease-expiry": {"I8"},
		"zombie": {"I5"}, "poison": {"I4"},
	}
	for name, ids := range want {
		s, err := scenarios.Get(name)
		require.NoError(t, err)
		require.Equal(t, ids, s.Exercises, name)
	}
	for _, s := range scenarios.All() {
		for _, id := range s.Exercises {
			_, waived := s.Waived[id]
			require.False(t, waived, "%s exercises and waives %s", s.Name, id)
		}
	}
}

// The long outages run only in `make chaos-long`: valid, reachable by name,
// never in the default catalog, and at the reference's default tuning.
func TestLongScenariosAreOutsideTheCatalog(t *testing.T) {
	inCatalog := map[string]bool{}
	for _, s := range scenarios.All() {
		inCatalog[s.Name] = true
	}
	require.Equal(t, []string{"redis-outage-30s", "redis-outage-2m", "mysql-outage-30s", "mysql-outage-2m"}, scenarios.LongNames())
	for _, s := range scenarios.Long() {
		require.NoError(t, s.Validate())
		require.False(t, inCatalog[s.Name], "%s would slow down make chaos", s.Name)
		require.Empty(t, s.Waived, "%s: the reference must keep every invariant through it", s.Name)
		require.Equal(t, referenceDefaults(), s.Tuning, "%s runs at the reference's own defaults", s.Name)
		require.Contains(t, makeLongList(t), s.Name, "make chaos-long does not run %s", s.Name)
		got, err := scenarios.Get(s.Name)
		require.NoError(t, err)
		require.Equal(t, s.Name, got.Name)
	}
}

// referenceDefaults is the reference's default tuning as the reference
// derives it: the long outages' copy of it must not drift.
func referenceDefaults() history.Tuning {
	c := reference.DefaultConfig().WithDerived()
	return history.Tuning{
		PollInterval: history.Duration(c.PollInterval), BatchSize: c.BatchSize, Lease: history.Duration(c.Lease),
		MaxAttempts: c.MaxAttempts, BackoffBase: history.Duration(c.BackoffBase), BackoffMax: history.Duration(c.BackoffMax),
		PublishTimeout: history.Duration(c.PublishTimeout),
	}
}

// makeLongList is the Makefile's LONG_SCENARIOS.
func makeLongList(t *testing.T) []string {
	b, err := os.ReadFile("../Makefile")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "LONG_SCENARIOS :="); ok {
			return strings.Fields(rest)
		}
	}
	t.Fatal("the Makefile has no LONG_SCENARIOS")
	return nil
}
