package main

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every command answers --help (and -h) on stdout with its synopsis and
// each flag with a line of help, and exits 0.
func TestHelpPrintsEachCommandsFlagsAndExitsZero(t *testing.T) {
	bin := buildCLI(t)
	flags := map[string][]string{
		"run":    {"--scenario NAME", "--adapter ADAPTER", "--seed SEED", "--out DIR"},
		"chaos":  {"--scenario NAMES", "--shard i/n", "--adapter ADAPTER"},
		"list":   {"no flags"},
		"report": {"report DIR"},
		"doctor": {"--adapter ADAPTER"},
		"bench":  {"--quick", "--instances"},
	}
	for cmd, want := range flags {
		for _, h := range []string{"--help", "-h"} {
			var stdout, stderr bytes.Buffer
			c := exec.Command(bin, cmd, h)
			c.Stdout, c.Stderr = &stdout, &stderr
			require.NoError(t, c.Run(), "%s %s: %s", cmd, h, stderr.String())
			require.Contains(t, stdout.String(), "usage: outboxchaos "+cmd, cmd)
			require.NotContains(t, stdout.String()+stderr.String(), "help requested", cmd)
			for _, w := range want {
				require.Contains(t, stdout.String(), w, "%s %s", cmd, h)
			}
		}
	}
}

func TestChaosScenarioSelectsThoseScenariosInCatalogOrder(t *testing.T) {
	list, err := selectScenarios("zombie, baseline")
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, "baseline", list[0].Name)
	require.Equal(t, "zombie", list[1].Name)

	all, err := selectScenarios("")
	require.NoError(t, err)
	require.Greater(t, len(all), 10)

	_, err = selectScenarios("zombie,zombi")
	require.ErrorContains(t, err, `unknown scenario "zombi"`)
	require.ErrorContains(t, err, "crash-window", "the error lists the names there are")
}

// An unknown --scenario name stops chaos before it opens an environment.
func TestChaosRefusesAnUnknownScenario(t *testing.T) {
	var stderr bytes.Buffer
	c := exec.Command(buildCLI(t), "chaos", "--scenario", "baseline,nope", "--out", t.TempDir())
	c.Stderr = &stderr
	err := c.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 3, exit.ExitCode())
	require.Contains(t, stderr.String(), `unknown scenario "nope"`)
	require.Contains(t, stderr.String(), "baseline, crash-window")
}
