//go:build linux

package supervisor

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr puts an instance in its own process group and has the kernel
// SIGKILL it when the harness dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// procState reads a process's state letter from /proc/PID/stat ('T' is
// stopped); ok is false when the process or /proc is gone.
func procState(pid int) (state byte, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name is in parentheses and may hold spaces: the state is
	// the first field after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) == 0 || len(fields[0]) != 1 {
		return 0, false
	}
	return fields[0][0], true
}
