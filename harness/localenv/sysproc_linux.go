//go:build linux

package localenv

import "syscall"

// serverSysProcAttr puts a server in its own process group and has the
// kernel SIGKILL it when the process that started it dies.
func serverSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
