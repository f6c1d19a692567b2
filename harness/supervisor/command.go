package supervisor

import (
	"context"
	"os/exec"
	"syscall"
	"time"
)

// Command prepares spec as a helper process of the run that is not a
// dispatcher instance (a team's producer command): in its own process
// group, killed with the harness, and, when ctx ends or it is waited for,
// its whole group SIGKILLed so nothing of it outlives the run. The caller
// sets its pipes and starts it.
func Command(ctx context.Context, spec Spec) *exec.Cmd {
	cmd := exec.CommandContext(ctx, spec.Path, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = append([]string{}, spec.Env...)
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}
