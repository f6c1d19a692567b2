package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "outboxchaos")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

func TestBadInputGetsAClearErrorAndExitCode3(t *testing.T) {
	bin := buildCLI(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"run"}, "--scenario is required"},
		{[]string{"run", "--scenario", "nope"}, `unknown scenario "nope"`},
		{[]string{"run", "--scenario", "baseline", "--adapter", "nope"}, `adapter "nope"`},
		{[]string{"chaos", "--shard", "3/2"}, "--shard \"3/2\""},
		{[]string{"report"}, "give exactly one run folder"},
		{[]string{"report", t.TempDir()}, "meta.json"},
	}
	for _, c := range cases {
		cmd := exec.Command(bin, c.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%v", c.args)
		require.Equal(t, 3, exit.ExitCode(), "%v", c.args)
		require.Contains(t, stderr.String(), c.want, "%v", c.args)
	}
}

func TestListPrintsEveryScenario(t *testing.T) {
	out, err := exec.Command(buildCLI(t), "list").Output()
	require.NoError(t, err)
	for _, name := range []string{"baseline", "crash-window", "dedupe-horizon", "redis-restart"} {
		require.Contains(t, string(out), name)
	}
}

// An interrupted run leaves no process and no temporary directory behind:
// the CLI runs with its own TMPDIR, gets SIGINT in the middle of the load,
// and afterwards nothing on the machine mentions that directory.
func TestInterruptedRunLeavesNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs are skipped with -short")
	}
	bin := buildCLI(t)
	tmp := t.TempDir()
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "run", "--scenario", "crash-window", "--seed", "3", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "OUTBOXCHAOS_ENV=local")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stderr)
	loading := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), "load:") {
			loading = true
			break
		}
	}
	require.True(t, loading, "the run never reached the load phase")
	time.Sleep(300 * time.Millisecond) // let the schedule arm a crash point
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	go func() {
		for sc.Scan() {
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the CLI did not exit within 90 s of SIGINT")
	}
	localtest.RequireNothingLeft(t, tmp, "outboxchaos-", filepath.Dir(out))
}

// --shard i/n splits the catalog round-robin: the n shards together run
// every scenario exactly once.
func TestShardsCoverTheCatalogOnce(t *testing.T) {
	all := scenarios.All()
	seen := map[string]int{}
	for i := 1; i <= 3; i++ {
		part, err := shard(all, fmt.Sprintf("%d/3", i))
		require.NoError(t, err)
		require.NotEmpty(t, part)
		for _, s := range part {
			seen[s.Name]++
		}
	}
	require.Len(t, seen, len(all))
	for name, n := range seen {
		require.Equal(t, 1, n, name)
	}
	for _, bad := range []string{"0/3", "4/3", "x/3", "1", "1/0"} {
		_, err := shard(all, bad)
		require.ErrorContains(t, err, "want i/n", bad)
	}
}

// report folds the landing requirements into the verdict it prints and
// exits with, as a run does: a stored run whose fault did not land is
// unknown (exit 2), however its invariants came out.
func TestReportCountsTheLanding(t *testing.T) {
	bin := buildCLI(t)
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "runs", "pass-baseline"))))
	out, err := exec.Command(bin, "report", dir).Output()
	require.NoError(t, err, "the stored baseline passes: %s", out)
	require.Contains(t, string(out), ": PASS")

	metaPath := filepath.Join(dir, "meta.json")
	var meta map[string]any
	raw, err := os.ReadFile(metaPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &meta))
	meta["landing"] = []map[string]any{{"fault": "crash-window", "at_least": 1}}
	raw, err = json.Marshal(meta)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(metaPath, raw, 0o644))

	out, err = exec.Command(bin, "report", dir).Output()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", out)
	require.Equal(t, 2, exit.ExitCode(), "%s", out)
	require.Contains(t, string(out), ": UNKNOWN")
	require.Contains(t, string(out), "crash-window did not land")
}
