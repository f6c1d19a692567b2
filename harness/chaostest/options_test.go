package chaostest

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/scenarios"
)

// Bad input stops Run before any server starts, with the CLI's own words.
func TestBadAdapterOrScenarioIsAClearError(t *testing.T) {
	_, err := newSuite(t, "nope", nil)
	require.ErrorContains(t, err, `adapter "nope": not known`)
	_, err = newSuite(t, "reference", []Option{Scenarios("baseline", "zombi")})
	require.ErrorContains(t, err, `unknown scenario "zombi"`)
	require.ErrorContains(t, err, "crash-window", "the error lists the names there are")
	_, err = newSuite(t, "missing.yaml", nil)
	require.ErrorContains(t, err, "missing.yaml")
}

func TestOptionsSelectScenariosAndSeed(t *testing.T) {
	s, err := newSuite(t, "mutant:no-jobid", []Option{Scenarios("zombie"), Scenarios("baseline"), Seed(42)})
	require.NoError(t, err)
	require.Equal(t, int64(42), s.seed)
	require.Len(t, s.list, 2)
	require.Equal(t, "baseline", s.list[0].Name, "catalog order")
	require.Equal(t, "zombie", s.list[1].Name)
	require.Equal(t, "mutant:no-jobid", s.arg)

	all, err := newSuite(t, "reference", nil)
	require.NoError(t, err)
	require.Len(t, all.list, len(scenarios.All()), "no Scenarios: the whole catalog")
	require.NotZero(t, all.seed, "no Seed: one from the clock")

	arg, err := replayAdapter("deploy/outboxchaos.yaml")
	require.NoError(t, err)
	require.True(t, filepath.IsAbs(arg), "the replay command names a manifest by its absolute path: %s", arg)
}

// The -short subset needs nothing an adapter may lack, and -short skips the
// rest.
func TestShortSubset(t *testing.T) {
	for _, name := range ShortScenarios {
		s, err := scenarios.Get(name)
		require.NoError(t, err)
		require.Empty(t, s.Needs, "%s is in the -short subset but needs %v", name, s.Needs)
		require.Empty(t, shortSkip(name))
	}
	if testing.Short() {
		require.Contains(t, shortSkip("crash-window"), "-short runs only the fast subset (baseline, lost-reply-redis, poison)")
	} else {
		require.Empty(t, shortSkip("crash-window"))
	}
}
