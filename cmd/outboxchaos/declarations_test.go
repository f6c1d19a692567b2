package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/declare"
	"github.com/outboxchaos/outboxchaos/harness/runner"
)

// The end of run and chaos prints each scenario's lines unindented, as the
// results hold them, after one header; nothing when there are none.
func TestPrintDeclarations(t *testing.T) {
	conv := declare.Conventions([]string{"I6"}, []declare.Return{{Event: 4, LastError: "released: lease nearly over"}})
	clock := declare.ClockSuggestion("clock-skew", []string{"node", "main.js"}, nil)
	outs := []runner.Outcome{
		{Verdict: check.Pass},
		{Verdict: check.Unknown, Declarations: []declare.Suggestion{conv}},
		{Verdict: check.Unknown, Skipped: "the adapter declares no way to skew its clock", Declarations: []declare.Suggestion{clock}},
	}
	var b bytes.Buffer
	printDeclarations(&b, []string{"baseline", "redis-latency", "clock-skew"}, outs)
	out := b.String()
	require.Equal(t, 1, strings.Count(out, "What a declaration would settle"))
	require.Contains(t, out, "\n# redis-latency: "+conv.Why+"\n"+conv.YAML)
	require.Contains(t, out, "\n# clock-skew: "+clock.Why+"\n"+clock.YAML)
	require.NotContains(t, out, "baseline")
	require.Contains(t, skipHint(outs[2]), "printed at the end")
	require.Empty(t, skipHint(outs[0]))

	b.Reset()
	printDeclarations(&b, []string{"baseline"}, outs[:1])
	require.Empty(t, b.String())
}

// `outboxchaos report` on a stored run whose manifest declared nothing
// (go-nolock's recorded redis-latency run, its conventions removed) prints
// the conventions lines at the end, the same as results.json holds.
func TestReportPrintsTheMissingDeclaration(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "histories", "recorded-go-nolock-redis-latency")
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
	metaPath := filepath.Join(dir, "meta.json")
	raw, err := os.ReadFile(metaPath)
	require.NoError(t, err)
	var meta map[string]any
	require.NoError(t, json.Unmarshal(raw, &meta))
	delete(meta, "conventions")
	raw, err = json.Marshal(meta)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(metaPath, raw, 0o644))

	cmd := exec.Command(buildCLI(t), "report", dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, stderr.String())
	require.Equal(t, runner.ExitUnknown, exit.ExitCode(), stderr.String())

	var res struct {
		Declarations []declare.Suggestion `json:"declarations"`
	}
	raw, err = os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &res))
	require.Len(t, res.Declarations, 1)
	out := stdout.String()
	require.Contains(t, out, "UNKNOWN")
	require.Contains(t, out, "\n# redis-latency: "+res.Declarations[0].Why+"\n"+res.Declarations[0].YAML, out)
	require.Contains(t, out, "conventions:\n  releases:\n    last_error_prefixes:\n      - \"released: \"")
	t.Logf("report printed:\n%s", out)
}
