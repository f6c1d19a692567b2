//go:build !linux

package localenv

import "syscall"

// serverSysProcAttr puts a server in its own process group. Outside Linux
// there is no parent-death signal: the stale-directory sweep of the next run
// is the only guard against orphans.
func serverSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
