//go:build !linux

package supervisor

import "syscall"

// sysProcAttr puts an instance in its own process group. Only Linux has
// Pdeathsig; elsewhere Close is the only guarantee.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// procState is unknown without /proc.
func procState(int) (byte, bool) { return 0, false }
