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

// TestServerDiesWithItsOwner runs a child process that starts a server and
// is then SIGKILLed: the server must die with it (parent-death signal),
// PostgreSQL's backends with their postmaster, and the next sweep must
// remove the child's directory.
func TestServerDiesWithItsOwner(t *testing.T) {
	if kind := os.Getenv(orphanChildEnv); kind != "" {
		runOrphanChild(kind)
		return
	}
	for _, kind := range []string{"redis", "postgres"} {
		t.Run(kind, func(t *testing.T) { dieWithOwner(t, kind) })
	}
}

func dieWithOwner(t *testing.T, kind string) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerDiesWithItsOwner$")
	cmd.Env = append(os.Environ(), orphanChildEnv+"="+kind)
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
	forked := serverProcessesUnder(dir)
	require.Contains(t, forked, pid)

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	for _, p := range forked {
		require.Eventually(t, func() bool { return !processAlive(p, 0) }, time.Minute, 20*time.Millisecond,
			"%s process %d outlived its owner", kind, p)
	}
	require.Contains(t, sweepStale(filepath.Dir(dir)), dir)
	require.NoDirExists(t, dir)
}

func runOrphanChild(kind string) {
	var srv interface {
		Pid() int
		Dir() string
	}
	var err error
	switch kind {
	case "postgres":
		srv, err = StartPostgres(context.Background(), PostgresOptions{})
	default:
		srv, err = StartRedis(context.Background(), RedisOptions{})
	}
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	fmt.Println("ORPHAN " + strconv.Itoa(srv.Pid()) + " " + srv.Dir())
	time.Sleep(time.Hour) // wait to be killed
}
