package chaostest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// TestUserModule builds testdata/usermodule, a separate Go module that uses
// only harness/chaostest (as a team's repository would), and runs its test
// binary: the reference passes poison, the poison-as-transient mutant fails
// it with its findings printed, a black box skips crash-points for want of
// crash points, and a run interrupted or cut by the test's -timeout leaves
// nothing behind.
func TestUserModule(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs are skipped with -short")
	}
	if raceEnabled {
		t.Skip("the user module's runs are in the plain `go test` pass; under -race they would only run twice")
	}
	bin := buildUserModule(t)
	t.Run("verdicts", func(t *testing.T) { userModuleVerdicts(t, bin) })
	t.Run("interrupt", func(t *testing.T) { userModuleInterrupt(t, bin) })
	t.Run("timeout", func(t *testing.T) { userModuleTimeout(t, bin) })
}

// buildUserModule copies the module to a temporary directory, points its
// replace directive at this checkout, and compiles its test binary
// (GOFLAGS=-mod=mod, so a dependency added to outboxchaos since its go.sum
// was written comes from the module cache or proxy, and the checked-in
// files are never rewritten).
func buildUserModule(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "usermodule")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, f := range []string{"go.mod", "go.sum", "chaos_test.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "usermodule", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	goCmd(t, dir, "mod", "edit", "-replace=github.com/outboxchaos/outboxchaos="+root)
	bin := filepath.Join(t.TempDir(), "usermodule.test")
	goCmd(t, dir, "test", "-c", "-o", bin, ".")
	return bin
}

func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod "+os.Getenv("GOFLAGS"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %s in %s:\n%s", strings.Join(args, " "), dir, out)
}

// userTest starts the user module's test binary with its own TMPDIR, so
// that whatever it leaves behind is found there.
func userTest(t *testing.T, bin, tmp string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-test.v", "-test.count=1"}, args...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "OUTBOXCHAOS_ENV=local")
	return cmd
}

func userModuleVerdicts(t *testing.T, bin string) {
	tmp, out := t.TempDir(), t.TempDir()
	cmd := userTest(t, bin, tmp, "-chaostest.out="+out, "-test.run=^(TestReference|TestMutant|TestBlackBoxSkipsCrashPoints)$")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	log := buf.String()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the mutant's subtest must fail the binary:\n%s", log)
	require.Equal(t, 1, exit.ExitCode(), log)

	require.Contains(t, log, "--- PASS: TestReference/poison", log)
	require.Contains(t, log, "--- FAIL: TestMutant/poison", log)
	require.Contains(t, log, "--- SKIP: TestBlackBoxSkipsCrashPoints/crash-points", log)
	require.Contains(t, log, "skipped: the adapter exposes no crash points", log)
	mutant := subtestOutput(log, "TestMutant/poison")
	for _, want := range []string{
		"FAIL: poison against mutant-poison-as-transient, seed 7",
		"finding 1 of ", "breaks: I4", "events: ", "what happened to event ",
		"reproduce: outboxchaos run --scenario poison --adapter mutant:poison-as-transient --seed 7 --out " + filepath.Join(out, "TestMutant", "poison"),
	} {
		require.Contains(t, mutant, want, "the mutant's failure must say %q:\n%s", want, mutant)
	}
	require.Equal(t, "fail", storedVerdict(t, filepath.Join(out, "TestMutant", "poison")), "-chaostest.out keeps the run folder")
	require.Equal(t, "pass", storedVerdict(t, filepath.Join(out, "TestReference", "poison")))
	localtest.RequireNothingLeft(t, tmp, "")
}

// subtestOutput is what the log says between the subtest's RUN line and the
// next RUN line (its t.Log and t.Error output, indented).
func subtestOutput(log, name string) string {
	_, rest, ok := strings.Cut(log, "=== RUN   "+name+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "=== RUN"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

func storedVerdict(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	var r struct {
		Verdict string `json:"verdict"`
	}
	require.NoError(t, json.Unmarshal(b, &r))
	return r.Verdict
}

// userModuleInterrupt sends SIGINT to the test binary during the load of
// the reference's run, as Ctrl-C does: the subtest fails saying so, and no
// process and no folder is left.
func userModuleInterrupt(t *testing.T, bin string) {
	tmp := t.TempDir()
	cmd := userTest(t, bin, tmp, "-test.run=^TestReference$")
	pipe, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = cmd.Stdout
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	var log strings.Builder
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "load:") {
			break
		}
	}
	require.Contains(t, log.String(), "load:", "the run never reached its load phase")
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() {
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
		}
		done <- cmd.Wait()
	}()
	select {
	case err = <-done:
	case <-time.After(90 * time.Second):
		t.Fatalf("the test binary did not exit within 90 s of SIGINT:\n%s", log.String())
	}
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit) && exit.ExitCode() == 1, "an interrupted run fails: %v\n%s", err, log.String())
	require.Contains(t, log.String(), "interrupted by interrupt", log.String())
	require.Contains(t, log.String(), "--- FAIL: TestReference/poison", log.String())
	localtest.RequireNothingLeft(t, tmp, "")
}

// userModuleTimeout gives the binary a -test.timeout shorter than its
// 30 s Redis outage: the run stops a grace period before the deadline, the
// subtest fails saying why, the binary exits 1 (not the timeout's panic)
// and no process and no folder is left.
func userModuleTimeout(t *testing.T, bin string) {
	tmp := t.TempDir()
	cmd := userTest(t, bin, tmp, "-test.run=^TestLongOutage$", "-test.timeout=15s")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	log := buf.String()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit) && exit.ExitCode() == 1, "a run cut by the timeout fails: %v\n%s", err, log)
	require.NotContains(t, log, "panic: test timed out", log)
	require.Contains(t, log, "the test's -timeout is near: stopped early so that cleanup can run", log)
	localtest.RequireNothingLeft(t, tmp, "")
}
