package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/runner"
)

func TestFoldOutcomes(t *testing.T) {
	o := func(v check.Verdict) runner.Outcome { return runner.Outcome{Verdict: v} }
	code, tally := foldOutcomes([]runner.Outcome{o(check.Pass), o(check.Fail), o(check.Unknown)})
	require.Equal(t, 1, code, "a fail outranks an unknown that comes after it")
	require.Equal(t, "1 pass, 1 fail, 1 unknown", tally)
	code, _ = foldOutcomes([]runner.Outcome{o(check.Unknown), o(check.Fail)})
	require.Equal(t, 1, code)
	code, tally = foldOutcomes([]runner.Outcome{o(check.Pass), {Skipped: "the adapter exposes no crash points", Verdict: check.Unknown}})
	require.Equal(t, 0, code, "a skipped scenario is no verdict")
	require.Equal(t, "1 pass, 0 fail, 0 unknown, 1 skipped", tally)
	code, tally = foldOutcomes([]runner.Outcome{o(check.Pass), o("")})
	require.Equal(t, 2, code, "a run that decided nothing is not a pass")
	require.Equal(t, "1 pass, 0 fail, 1 unknown", tally)
	require.Equal(t, "", reasonSuffix(check.Pass, "x"))
	require.Equal(t, ": I8 had nothing to check", reasonSuffix(check.Unknown, " I8 had nothing to check"))
}

// `report DIR` re-checks a stored history whatever results.json the folder
// holds: one written at an older schema version is replaced by the current
// one.
func TestReportRechecksAnOldRunFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "baseline")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "runs", "pass-baseline"))))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results.json"), []byte(`{"schema_version": 1, "verdict": "pass"}`), 0o644))
	cmd := exec.Command(buildCLI(t), "report", dir)
	out, err := cmd.CombinedOutput()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err, string(out))
	}
	var res struct {
		SchemaVersion int           `json:"schema_version"`
		Verdict       check.Verdict `json:"verdict"`
		Findings      []any         `json:"findings"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &res))
	require.Equal(t, 2, res.SchemaVersion)
	require.NotNil(t, res.Findings)
	want := map[check.Verdict]int{check.Pass: 0, check.Fail: 1, check.Unknown: 2}[res.Verdict]
	require.Equal(t, want, code, "exit code matches the re-checked verdict %s: %s", res.Verdict, out)
	require.Contains(t, string(out), dir+": ")
}
