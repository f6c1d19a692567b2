package localenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// deadPid returns the pid of a process that has exited.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}

func writeOwner(t *testing.T, dir string, pid int, start uint64) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	content := fmt.Sprintf("%s\npid=%d\nstart=%d\n", ownerMagic, pid, start)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ownerFile), []byte(content), 0o644))
}

// spawnRedis starts a bare redis-server (no persistence) in dir, as a
// server of the harness would run there, killed when the test ends.
func spawnRedis(t *testing.T, dir string) *proc {
	t.Helper()
	port, err := freePort()
	require.NoError(t, err)
	bin, err := RedisBinary()
	require.NoError(t, err)
	p, err := spawn(bin, []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir, "--save", ""},
		dir, filepath.Join(dir, "redis.log"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.kill() })
	return p
}

func TestSweepRemovesOnlyDeadOwnersDirsAndKillsTheirServer(t *testing.T) {
	root := t.TempDir()
	stale := filepath.Join(root, "outboxchaos-redis-stale")
	writeOwner(t, stale, deadPid(t), 0)
	orphan := spawnRedis(t, stale)

	recycled := filepath.Join(root, "outboxchaos-mariadb-recycled")
	writeOwner(t, recycled, os.Getpid(), selfStart()+1) // our pid, another start time: dead owner
	ours := filepath.Join(root, "outboxchaos-redis-ours")
	writeOwner(t, ours, os.Getpid(), selfStart())
	foreign := filepath.Join(root, "outboxchaos-foreign")
	require.NoError(t, os.MkdirAll(foreign, 0o755))
	unrelated := filepath.Join(root, "other-dir")
	writeOwner(t, unrelated, deadPid(t), 0)

	removed := sweepStale(root)
	require.ElementsMatch(t, []string{stale, recycled}, removed)
	require.NoDirExists(t, stale)
	require.NoDirExists(t, recycled)
	require.DirExists(t, ours)
	require.DirExists(t, foreign, "a directory without owner file is never touched")
	require.DirExists(t, unrelated)
	select {
	case <-orphan.done:
	case <-time.After(time.Minute):
		t.Fatal("the stale directory's server was not killed")
	}
}

func TestSweepSparesAServerOutsideTheDir(t *testing.T) {
	root := t.TempDir()
	stale := filepath.Join(root, "outboxchaos-redis-stale")
	writeOwner(t, stale, deadPid(t), 0)
	other := t.TempDir()
	// A live redis-server in another directory whose pid is recorded in the
	// stale directory (as after pid reuse) must survive the sweep.
	p := spawnRedis(t, other)
	require.NoError(t, recordServerPid(stale, p.cmd.Process.Pid))

	require.Equal(t, []string{stale}, sweepStale(root))
	require.True(t, processAlive(p.cmd.Process.Pid, 0), "a server outside the stale directory was killed")
}

func TestOwnerFileRoundTrip(t *testing.T) {
	dir, err := newServerDir("test")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	o, ok := readOwner(dir)
	require.True(t, ok)
	require.Equal(t, os.Getpid(), o.pid)
	require.True(t, processAlive(o.pid, o.start))
}

// A PostgreSQL server whose owner died (a harness on a system without the
// parent-death signal) is killed by the sweep with every backend and
// auxiliary process it forked, none of which names the directory on its
// command line.
func TestSweepKillsAStalePostgresAndItsBackends(t *testing.T) {
	root, err := os.MkdirTemp("", "localenv-sweep-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	require.NoError(t, os.Chmod(root, 0o755)) // the postgres user works below it
	t.Setenv("TMPDIR", root)
	p := started(t, StartPostgres, PostgresOptions{})
	db := openPG(t, p.URL(""))
	require.NoError(t, db.Ping()) // a backend too
	forked := serverProcessesUnder(p.Dir())
	require.Greater(t, len(forked), 2)
	writeOwner(t, p.Dir(), deadPid(t), 0)

	require.Equal(t, []string{p.Dir()}, sweepStale(root))
	for _, pid := range forked {
		require.False(t, processAlive(pid, 0), "postgres process %d outlived the sweep", pid)
	}
	require.NoDirExists(t, p.Dir())
}
