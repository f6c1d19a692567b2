package clockskew

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// probe is a Go program that prints its time.Now as Unix seconds.
const probe = "package main\n\nimport (\n\t\"fmt\"\n\t\"time\"\n)\n\nfunc main() { fmt.Println(time.Now().Unix()) }\n"

// buildProbe builds the probe with extra go build flags, without cgo.
func buildProbe(t *testing.T, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module probe\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(probe), 0o644))
	bin := filepath.Join(dir, "probe")
	cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", bin, ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

// unixOf runs a command printing Unix seconds with extra env and returns
// how far its clock is from ours.
func unixOf(t *testing.T, extra []string, name string, args ...string) time.Duration {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), extra...)
	out, err := cmd.Output()
	require.NoError(t, err, "%s %v", name, args)
	s, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	require.NoError(t, err, string(out))
	return time.Duration(s-time.Now().Unix()) * time.Second
}

// near: off within a few seconds of want (the machine is loaded).
func near(t *testing.T, want, off time.Duration, what string) {
	t.Helper()
	require.InDelta(t, want.Seconds(), off.Seconds(), 5, "%s: clock off by %s, want %s", what, off, want)
}

// TestMechanisms shows what skews which process here: libfaketime skews a
// libc program but not a Go binary; the overlay skews a static Go binary.
func TestMechanisms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go programs")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	skew := -time.Hour
	plain := buildProbe(t)
	t.Run("faketime", func(t *testing.T) {
		env, err := Env(Faketime, skew)
		if err != nil {
			t.Skipf("%v", err)
		}
		near(t, skew, unixOf(t, env, "date", "+%s"), "date under libfaketime")
		near(t, 0, unixOf(t, env, plain), "a static Go binary under libfaketime (it reads the vDSO, not libc)")
		if _, err := exec.LookPath("node"); err == nil {
			near(t, skew, unixOf(t, env, "node", "-e", "console.log(Math.floor(Date.now() / 1000))"), "Node.js under libfaketime")
		}
	})
	t.Run("go-overlay", func(t *testing.T) {
		ov, err := Overlay(context.Background(), "go", t.TempDir())
		require.NoError(t, err)
		skewed := buildProbe(t, "-overlay="+ov)
		env, err := Env(GoOverlay, skew)
		require.NoError(t, err)
		near(t, skew, unixOf(t, env, skewed), "the overlaid Go binary with FAKETIME")
		near(t, 0, unixOf(t, nil, skewed), "the overlaid Go binary without FAKETIME")
		near(t, -90*time.Second, unixOf(t, []string{"FAKETIME=-90"}, skewed), "FAKETIME in plain seconds")
	})
	t.Run("time-namespace", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("unshare --time needs root")
		}
		out, err := exec.Command("unshare", "--time", "--monotonic", "3600", "--boottime", "3600", plain).Output()
		if err != nil {
			t.Skipf("unshare --time: %v", err)
		}
		s, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		require.NoError(t, err)
		near(t, 0, time.Duration(s-time.Now().Unix())*time.Second, "a time namespace (it offsets monotonic and boottime, not the wall clock)")
	})
}

func TestOffsetAndEnv(t *testing.T) {
	off, err := Offset(-10 * time.Second)
	require.NoError(t, err)
	require.Equal(t, "-10s", off)
	off, err = Offset(90 * time.Second)
	require.NoError(t, err)
	require.Equal(t, "+90s", off)
	_, err = Offset(1500 * time.Millisecond)
	require.ErrorContains(t, err, "whole number of seconds")
	_, err = Offset(0)
	require.Error(t, err)
	env, err := Env(GoOverlay, -10*time.Second)
	require.NoError(t, err)
	require.Equal(t, []string{"FAKETIME=-10s"}, env)
	_, err = Env(None, -10*time.Second)
	require.ErrorContains(t, err, "capabilities.clock: none")
	require.NotEmpty(t, Missing(""))
	require.Empty(t, Missing(GoOverlay))
}

func TestMergeReplacesAndPrependsPreload(t *testing.T) {
	got := Merge([]string{"A=1", "LD_PRELOAD=/x.so", "FAKETIME=+1s"}, []string{"LD_PRELOAD=/f.so", "FAKETIME=-10s", "B=2"})
	require.Equal(t, []string{"A=1", "LD_PRELOAD=/f.so:/x.so", "FAKETIME=-10s", "B=2"}, got)
}
