package supervisor

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// trapLink is a fake MySQL link: it records what happened to the instance
// at the moment the trap blackholes and heals it.
type trapLink struct {
	mu           sync.Mutex
	p            *Proc
	steps        []string
	rec          *history.Recorder
	stoppedAtCut bool
	aliveAtCut   bool
	aliveAtHeal  bool
	blackholeErr error
	healErr      error
}

func (l *trapLink) blackhole() (func() error, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.steps = append(l.steps, "blackhole")
	for _, e := range l.rec.Snapshot().Processes {
		l.stoppedAtCut = l.stoppedAtCut || (e.Instance == l.p.ID && e.Action == "stop")
	}
	l.aliveAtCut = l.p.Alive()
	if l.blackholeErr != nil {
		return nil, l.blackholeErr
	}
	return l.heal, nil
}

func (l *trapLink) heal() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.steps = append(l.steps, "heal")
	l.aliveAtHeal = l.p.Alive()
	return l.healErr
}

func TestTrapWindowKillsInTheWindow(t *testing.T) {
	s, rec, _ := newSup(t)
	startReady(t, s, "d1", nil)
	p := startReady(t, s, "d2", nil)
	link := &trapLink{p: p, rec: rec}
	jobs := make(chan Hit, 1)
	jobs <- Hit{Job: "job-17", Params: map[string]string{"events": "5", "job": "overridden"}}

	trap, err := s.TrapWindow(testCtx(t), "d2", jobs, link.blackhole)
	require.NoError(t, err)
	require.Equal(t, []string{"blackhole", "heal"}, link.steps)
	require.True(t, link.aliveAtCut, "the link is cut while the instance still exists")
	require.True(t, link.stoppedAtCut, "the instance is sent SIGSTOP before the link is cut")
	require.False(t, link.aliveAtHeal, "the link heals only after the instance is dead")
	require.Equal(t, Trap{Slot: "d2", Instance: "d2", JobID: "job-17", FaultID: trap.FaultID,
		Start: trap.Start, End: trap.End}, trap)
	require.True(t, gone(p.PID))
	require.Equal(t, []string{"d1"}, s.Alive())

	run := rec.Snapshot()
	require.Len(t, run.Faults, 1)
	f := run.Faults[0]
	require.Equal(t, trap.FaultID, f.ID)
	require.Equal(t, FaultWindowTrap, f.Kind)
	require.Equal(t, "d2", f.Target)
	require.Equal(t, map[string]string{"job": "job-17", "slot": "d2", "link": "mysql/d2", "events": "5"}, f.Params)
	require.False(t, f.Start.IsZero())
	require.False(t, f.End.Before(f.Start))
	require.Equal(t, []string{"start", "stop", "kill", "exit"}, actions(rec, "d2"))
	require.Equal(t, "window-trap job job-17", processEvent(t, rec, "d2", "kill").Detail)
	e, _ := p.Exit()
	require.Equal(t, CauseKill, e.Cause)
	require.Equal(t, []string{"start"}, actions(rec, "d1"))
}

func TestTrapWindowHealsWhenKillFollowsFailedBlackhole(t *testing.T) {
	s, rec, _ := newSup(t)
	p := startReady(t, s, "d1", nil)
	link := &trapLink{p: p, rec: rec, blackholeErr: errors.New("proxy gone")}
	jobs := make(chan Hit, 1)
	jobs <- Hit{Job: "job-1"}
	_, err := s.TrapWindow(testCtx(t), "d1", jobs, link.blackhole)
	require.ErrorContains(t, err, "blackhole mysql link: proxy gone")
	require.True(t, gone(p.PID), "the instance is killed anyway")
	require.Equal(t, []string{"blackhole"}, link.steps, "nothing to heal")
	f := rec.Snapshot().Faults[0]
	require.False(t, f.End.IsZero(), "the fault window is closed")

	p2 := startReady(t, s, "d2", nil)
	link2 := &trapLink{p: p2, rec: rec, healErr: errors.New("stuck")}
	jobs <- Hit{Job: "job-2"}
	_, err = s.TrapWindow(testCtx(t), "d2", jobs, link2.blackhole)
	require.ErrorContains(t, err, "heal mysql link: stuck")
	require.Equal(t, []string{"blackhole", "heal"}, link2.steps)
}

func TestTrapWindowGivesUp(t *testing.T) {
	s, rec, _ := newSup(t)
	p := startReady(t, s, "d1", nil)
	link := &trapLink{p: p, rec: rec}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := s.TrapWindow(ctx, "d1", make(chan Hit), link.blackhole)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	closed := make(chan Hit)
	close(closed)
	_, err = s.TrapWindow(testCtx(t), "d1", closed, link.blackhole)
	require.ErrorContains(t, err, "closed before any job")

	_, err = s.TrapWindow(testCtx(t), "d1", nil, link.blackhole)
	require.ErrorContains(t, err, "job channel")
	_, err = s.TrapWindow(testCtx(t), "d1", closed, nil)
	require.ErrorContains(t, err, "blackhole function")

	// The instance dies while the trap waits.
	done := make(chan error, 1)
	go func() {
		_, err := s.TrapWindow(testCtx(t), "d1", make(chan Hit), link.blackhole)
		done <- err
	}()
	require.NoError(t, s.Kill("d1"))
	select {
	case err = <-done:
	case <-time.After(deadline):
		t.Fatal("trap did not give up when the instance exited")
	}
	// Depending on who wins the race, the trap saw the exit while waiting or
	// found the slot dead already: either way it gave up without springing.
	require.Error(t, err)
	require.Regexp(t, "exited before any job|not running", err.Error())

	_, err = s.TrapWindow(testCtx(t), "d1", closed, link.blackhole)
	require.ErrorContains(t, err, "not running")
	require.Empty(t, link.steps, "no trap sprang")
	require.Empty(t, rec.Snapshot().Faults)
}
