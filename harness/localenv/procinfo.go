package localenv

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// procStat reads the state and start time (clock ticks since boot) of a
// process from /proc/PID/stat. ok is false when the process does not exist
// or /proc is unavailable.
func procStat(pid int) (state byte, start uint64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name is in parentheses and may contain spaces: the fixed
	// fields start after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := strings.Fields(s[i+1:])
	// fields[0] is field 3 (state); start time is field 22.
	if len(fields) < 20 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	start, err = strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], start, true
}

// processAlive reports whether pid runs and is not a zombie. When start is
// non-zero it must also match the process's start time, which guards
// against a recycled pid.
func processAlive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	state, st, ok := procStat(pid)
	if !ok {
		// No /proc: fall back to signal 0.
		err := syscall.Kill(pid, 0)
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	if state == 'Z' || state == 'X' {
		return false
	}
	return start == 0 || st == start
}

// processCommand returns the executable name, the NUL-separated command
// line and the working directory of pid ("" for what cannot be read).
func processCommand(pid int) (comm, cmdline, cwd string) {
	base := "/proc/" + strconv.Itoa(pid)
	c, _ := os.ReadFile(base + "/comm")
	l, _ := os.ReadFile(base + "/cmdline")
	cwd, _ = os.Readlink(base + "/cwd")
	return strings.TrimSpace(string(c)), string(l), cwd
}

// selfStart is the start time of this process (0 when unknown).
func selfStart() uint64 {
	_, st, _ := procStat(os.Getpid())
	return st
}

// serverProcessesUnder lists the live processes that run a server binary
// (serverComms) with their working directory at or under dir: a server and
// every process it forked there. PostgreSQL's backends and auxiliary
// processes start their own sessions and rename themselves, so neither the
// process group nor the command line finds them; their working directory is
// the data directory.
func serverProcessesUnder(dir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !processAlive(pid, 0) {
			continue
		}
		comm, _, cwd := processCommand(pid)
		if serverComms[comm] && within(cwd, dir) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	return path != "" && (path == dir || strings.HasPrefix(path, dir+string(filepath.Separator)))
}
