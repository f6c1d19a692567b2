package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/require"

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
		"zombie": {"I5"}, "redis-outage": {"I6", "I7"}, "poison": {"I4"},
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
