package supervisor

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"
)

// ErrTermTimeout says an instance did not exit within Term's timeout and
// was SIGKILLed.
var ErrTermTimeout = errors.New("no exit after SIGTERM: killed with SIGKILL")

const stateWait = 10 * time.Second // longest wait for /proc to show a stop or continue

// Kill SIGKILLs the slot's instance and waits for it to exit.
func (s *Supervisor) Kill(slotID string) error {
	p, err := s.alive(slotID)
	if err != nil {
		return fmt.Errorf("kill: %w", err)
	}
	return s.kill(p, CauseKill, "")
}

// kill records a kill, SIGKILLs p's group (then SIGCONTs it, so a stopped
// member dies too) and waits for the exit.
func (s *Supervisor) kill(p *Proc, cause, detail string) error {
	p.setCause(cause)
	s.record(p, "kill", detail, time.Now().UTC())
	if err := signalGroup(p, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill %s: %w", p.ID, err)
	}
	_ = signalGroup(p, syscall.SIGCONT)
	return waitExit(p, exitWait, "SIGKILL")
}

// Pause SIGSTOPs the slot's instance and returns once it is stopped.
func (s *Supervisor) Pause(slotID string) error {
	p, err := s.alive(slotID)
	if err != nil {
		return fmt.Errorf("pause: %w", err)
	}
	if p.Paused() {
		return fmt.Errorf("pause: instance %s is already paused", p.ID)
	}
	if err := s.stop(p, ""); err != nil {
		return fmt.Errorf("pause: %w", err)
	}
	if err := waitState(p, true); err != nil {
		return fmt.Errorf("pause: %w", err)
	}
	return nil
}

func (s *Supervisor) stop(p *Proc, detail string) error {
	s.record(p, "stop", detail, time.Now().UTC())
	p.setPaused(true)
	if err := signalGroup(p, syscall.SIGSTOP); err != nil {
		return fmt.Errorf("stop %s: %w", p.ID, err)
	}
	return nil
}

// Resume SIGCONTs the slot's paused instance and returns once it runs.
func (s *Supervisor) Resume(slotID string) error {
	p, err := s.alive(slotID)
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	if !p.Paused() {
		return fmt.Errorf("resume: instance %s is not paused", p.ID)
	}
	if err := s.cont(p); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	if err := waitState(p, false); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	return nil
}

func (s *Supervisor) cont(p *Proc) error {
	s.record(p, "cont", "", time.Now().UTC())
	p.setPaused(false)
	if err := signalGroup(p, syscall.SIGCONT); err != nil {
		return fmt.Errorf("cont %s: %w", p.ID, err)
	}
	return nil
}

// Term sends SIGTERM to the slot's instance (and SIGCONT when it is paused)
// and waits up to timeout for it to exit. Past the timeout it SIGKILLs the
// instance and returns its code with an error wrapping ErrTermTimeout. The
// code is -1 when a signal ended the process.
func (s *Supervisor) Term(slotID string, timeout time.Duration) (exitCode int, err error) {
	if timeout <= 0 {
		return 0, fmt.Errorf("term %s: timeout %s: give a positive timeout", slotID, timeout)
	}
	p, err := s.alive(slotID)
	if err != nil {
		return 0, fmt.Errorf("term: %w", err)
	}
	p.setCause(CauseTerm)
	s.record(p, "term", "", time.Now().UTC())
	if err := signalGroup(p, syscall.SIGTERM); err != nil {
		return 0, fmt.Errorf("term %s: %w", p.ID, err)
	}
	if p.Paused() {
		if err := s.cont(p); err != nil {
			return 0, fmt.Errorf("term: %w", err)
		}
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.done:
		return p.exit.Code, nil
	case <-timer.C:
	}
	if err := s.kill(p, CauseTermTimeout, fmt.Sprintf("no exit within %s of SIGTERM", timeout)); err != nil {
		return 0, fmt.Errorf("term: %w", err)
	}
	return p.exit.Code, fmt.Errorf("term %s after %s: %w", p.ID, timeout, ErrTermTimeout)
}

// Restart kills the slot's instance when it is alive and starts the slot
// again with the same env and a new instance id.
func (s *Supervisor) Restart(ctx context.Context, slotID string) (*Proc, error) {
	p, ok := s.Current(slotID)
	if !ok {
		return nil, fmt.Errorf("restart: slot %q was never started", slotID)
	}
	if p.Alive() {
		if err := s.kill(p, CauseKill, "restart"); err != nil {
			return nil, fmt.Errorf("restart: %w", err)
		}
	}
	s.mu.Lock()
	env := s.slots[slotID].env
	s.mu.Unlock()
	return s.Start(ctx, slotID, env)
}

// signalGroup signals p's process group; a group already gone is not an
// error.
func signalGroup(p *Proc, sig syscall.Signal) error {
	err := syscall.Kill(-p.PID, sig)
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %s to group %d: %w", sig, p.PID, err)
	}
	return nil
}

func waitExit(p *Proc, timeout time.Duration, what string) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.done:
		return nil
	case <-timer.C:
		return fmt.Errorf("instance %s (pid %d) did not exit within %s of %s", p.ID, p.PID, timeout, what)
	}
}

// waitState polls /proc until p is stopped (or no longer stopped), p exits,
// or stateWait passes. Without /proc it returns at once.
func waitState(p *Proc, stopped bool) error {
	deadline := time.Now().Add(stateWait)
	for {
		state, ok := procState(p.PID)
		if !ok {
			return nil // no /proc, or the process is gone: nothing to wait for
		}
		if isStopped(state) == stopped {
			return nil
		}
		if !p.Alive() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("instance %s (pid %d) still in state %q after %s", p.ID, p.PID, state, stateWait)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func isStopped(state byte) bool { return state == 'T' || state == 't' }
