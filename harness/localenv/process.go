package localenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// proc is one run of a server binary.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited and been reaped
	err  error         // Wait's result, valid after done
}

// spawn starts bin with args in dir, appending stdout and stderr to
// logPath, and records the pid in dir for the stale-directory sweep.
func spawn(bin string, args []string, dir, logPath string) (*proc, error) {
	return spawnAs(bin, args, dir, logPath, nil)
}

// spawnAs is spawn running the process with cred's user and group (nil:
// this process's own).
func spawnAs(bin string, args []string, dir, logPath string, cred *syscall.Credential) (*proc, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open log %s: %w", logPath, err)
	}
	defer logf.Close() // the child keeps its own descriptor
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = serverSysProcAttr()
	cmd.SysProcAttr.Credential = cred
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("exec %s: %w", bin, err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := recordServerPid(dir, cmd.Process.Pid); err != nil {
		p.kill()
		return nil, fmt.Errorf("record server pid: %w", err)
	}
	return p, nil
}

// exited reports whether the process has exited.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signalGroup sends sig to the process group of the server (it is the
// group leader), ignoring a group that is already gone.
func (p *proc) signalGroup(sig syscall.Signal) error {
	err := syscall.Kill(-p.cmd.Process.Pid, sig)
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("send %v to pid %d: %w", sig, p.cmd.Process.Pid, err)
	}
	return nil
}

// kill sends SIGKILL to the process, its group and every server process
// working under its directory (the backends a postmaster forked into
// sessions of their own), and waits until the process has exited and the
// others are gone. The process is stopped first, so it forks nothing new
// while they are listed: all of them die, as in a crash of the machine.
func (p *proc) kill() error {
	if !p.exited() {
		_ = p.cmd.Process.Signal(syscall.SIGSTOP)
	}
	forked := serverProcessesUnder(p.cmd.Dir)
	err := p.signalGroup(syscall.SIGKILL)
	for _, pid := range forked {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	<-p.done
	waitGone(forked, staleKillPatience)
	return err
}

// terminate sends sig (SIGTERM when 0) and waits for exit; when ctx ends
// first it falls back to kill. It reports whether the fallback was needed.
func (p *proc) terminate(ctx context.Context, sig syscall.Signal) (killed bool, err error) {
	if sig == 0 {
		sig = syscall.SIGTERM
	}
	if err := p.signalGroup(sig); err != nil {
		return false, err
	}
	select {
	case <-p.done:
		return false, nil
	case <-ctx.Done():
		return true, p.kill()
	}
}

// exitDescription describes how an exited process ended.
func (p *proc) exitDescription() string {
	if p.err == nil {
		return "exited with status 0"
	}
	return p.err.Error()
}
