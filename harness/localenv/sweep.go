package localenv

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

var sweepOnce sync.Once

// sweepStaleOnce runs the stale-directory sweep the first time a server
// starts in this process.
func sweepStaleOnce() {
	sweepOnce.Do(func() { sweepStale(os.TempDir()) })
}

// serverComms are the process names the sweep may kill.
var serverComms = map[string]bool{"mariadbd": true, "mysqld": true, "redis-server": true, "postgres": true}

// sweepStale removes outboxchaos-* directories under root whose owner
// process is dead, killing their server first. It returns the directories
// removed. Errors are ignored: a directory that cannot be removed now is
// tried again by the next process.
func sweepStale(root string) []string {
	dirs, _ := filepath.Glob(filepath.Join(root, dirPrefix+"*"))
	var removed []string
	for _, dir := range dirs {
		o, ok := readOwner(dir)
		if !ok || processAlive(o.pid, o.start) {
			continue
		}
		killStaleServer(dir)
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

// killStaleServer SIGKILLs the server recorded in dir if it still runs, is a
// server binary and works in dir (its working directory or command line is
// under dir, so a recycled pid is never killed), and every other server
// process working under dir (PostgreSQL's backends), then waits up to 5 s
// for them to go. Redis rewrites its command line, hence the working
// directory.
func killStaleServer(dir string) {
	var pids []int
	if pid := readServerPid(dir); processAlive(pid, 0) {
		comm, cmdline, cwd := processCommand(pid)
		if serverComms[comm] && (strings.Contains(cmdline, dir) || within(cwd, dir)) {
			pids = append(pids, pid)
		}
	}
	pids = append(pids, serverProcessesUnder(dir)...)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	waitGone(pids, staleKillPatience)
}

// staleKillPatience is how long a SIGKILLed server process gets to go.
const staleKillPatience = 5 * time.Second

// waitGone polls until none of pids is alive or patience has passed.
func waitGone(pids []int, patience time.Duration) {
	deadline := time.Now().Add(patience)
	for _, pid := range pids {
		for processAlive(pid, 0) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
}
