package failpoint

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRealCrashIsSIGKILL runs this test binary again as a child that hits a
// crash failpoint with the real runtime: the child must die of SIGKILL,
// having printed exactly the crash line and nothing after it (no deferred
// code runs).
func TestRealCrashIsSIGKILL(t *testing.T) {
	if os.Getenv("FAILPOINT_CRASH_CHILD") == "1" {
		s, err := Parse("before-finalize-commit=crash", 1)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		defer fmt.Fprintln(os.Stderr, "deferred code ran")
		s.Hit(BeforeFinalizeCommit)
		fmt.Fprintln(os.Stderr, "survived the crash")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRealCrashIsSIGKILL$")
	cmd.Env = append(os.Environ(), "FAILPOINT_CRASH_CHILD=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	require.True(t, errors.As(err, &exitErr), "child must fail, got %v; stderr %q", err, stderr.String())
	ws, ok := exitErr.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	require.True(t, ws.Signaled(), "child must die of a signal")
	require.Equal(t, syscall.SIGKILL, ws.Signal())
	require.Equal(t, "failpoint before-finalize-commit: crash\n", stderr.String())
}
