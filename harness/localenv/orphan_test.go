package localenv

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const orphanChildEnv = "LOCALENV_ORPHAN_CHILD"

// TestServerDiesWithItsOwner runs a child process that starts a Redis and is
// then SIGKILLed: the server must die with it (parent-death signal) and the
// next sweep must remove the child's directory.
func TestServerDiesWithItsOwner(t *testing.T) {
	if os.Getenv(orphanChildEnv) == "1" {
		runOrphanChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerDiesWithItsOwner$")
	cmd.Env = append(os.Environ(), orphanChildEnv+"=1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	var pid int
	var dir string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "ORPHAN %d %s", &pid, &dir); err == nil {
			break
		}
	}
	require.NotZero(t, pid, "child did not report its server")
	require.True(t, strings.HasPrefix(filepath.Base(dir), dirPrefix))
	require.True(t, processAlive(pid, 0))

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	require.Eventually(t, func() bool { return !processAlive(pid, 0) }, time.Minute, 20*time.Millisecond,
		"redis-server %d outlived its owner", pid)
	require.Contains(t, sweepStale(filepath.Dir(dir)), dir)
	require.NoDirExists(t, dir)
}

func runOrphanChild() {
	r, err := StartRedis(context.Background(), RedisOptions{})
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	fmt.Println("ORPHAN " + strconv.Itoa(r.Pid()) + " " + r.Dir())
	time.Sleep(time.Hour) // wait to be killed
}
