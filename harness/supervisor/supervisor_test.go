package supervisor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/contract"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

func TestLifecycleKillPauseTermClose(t *testing.T) {
	s, rec, logDir := newSup(t)
	d1 := startReady(t, s, "d1", nil)
	d2 := startReady(t, s, "d2", nil)
	d3 := startReady(t, s, "d3", map[string]string{"FAKE_CHILD": "1"})
	require.Equal(t, []string{"d1", "d2", "d3"}, s.Alive())
	require.Equal(t, map[string]string{"d1": "d1", "d2": "d2", "d3": "d3"}, s.Instances())
	require.Len(t, map[int]bool{d1.PID: true, d2.PID: true, d3.PID: true}, 3)

	// SIGKILL d1.
	require.NoError(t, s.Kill("d1"))
	e, ok := d1.Exit()
	require.True(t, ok, "Kill returns after the exit")
	require.Equal(t, -1, e.Code)
	require.Equal(t, "killed", e.Signal)
	require.Equal(t, CauseKill, e.Cause)
	require.False(t, e.Unexpected())
	require.True(t, gone(d1.PID))
	require.Equal(t, []string{"d2", "d3"}, s.Alive())
	require.ErrorContains(t, s.Kill("d1"), "not running")

	// Pause and resume d2: /proc shows it stopped, then running and ticking.
	require.NoError(t, s.Pause("d2"))
	state, ok := procState(d2.PID)
	require.True(t, ok)
	require.Equal(t, byte('T'), state)
	require.True(t, d2.Paused())
	require.ErrorContains(t, s.Pause("d2"), "already paused")
	require.NoError(t, s.Resume("d2"))
	state, _ = procState(d2.PID)
	require.NotEqual(t, byte('T'), state)
	require.ErrorContains(t, s.Resume("d2"), "not paused")
	ticks := strings.Count(localtest.LogText(t, d2.LogPath), "tick ")
	localtest.EventuallyWithin(t, deadline, "d2 ticking after resume", func() bool {
		return strings.Count(localtest.LogText(t, d2.LogPath), "tick ") > ticks+1
	})

	// SIGTERM d2: graceful, exit 0.
	code, err := s.Term("d2", deadline)
	require.NoError(t, err)
	require.Equal(t, 0, code)
	require.Contains(t, localtest.LogText(t, d2.LogPath), "terminating")
	e, _ = d2.Exit()
	require.Equal(t, CauseTerm, e.Cause)
	require.Equal(t, "", e.Signal)

	// d3 has a child in its group: Close leaves neither.
	child := childPID(t, d3.LogPath)
	require.False(t, gone(child), "child %d runs before Close", child)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "Close is idempotent")
	require.Empty(t, s.Alive())
	for _, pid := range []int{d1.PID, d2.PID, d3.PID} {
		require.True(t, gone(pid), "pid %d still runs after Close", pid)
	}
	localtest.EventuallyWithin(t, deadline, "child gone", func() bool { return gone(child) })
	e, _ = d3.Exit()
	require.Equal(t, CauseClose, e.Cause)

	require.Equal(t, []string{"start", "kill", "exit"}, actions(rec, "d1"))
	require.Equal(t, []string{"start", "stop", "cont", "term", "exit"}, actions(rec, "d2"))
	require.Equal(t, []string{"start", "kill", "exit"}, actions(rec, "d3"))
	start := processEvent(t, rec, "d2", "start")
	require.Equal(t, d2.PID, start.PID)
	require.Equal(t, "exit code 0 after term", processEvent(t, rec, "d2", "exit").Detail)
	require.Equal(t, "signal killed after kill", processEvent(t, rec, "d1", "exit").Detail)
	require.Empty(t, s.UnexpectedExits())
	require.Len(t, s.Exits(), 3)

	for _, id := range []string{"d1", "d2", "d3"} {
		require.Contains(t, localtest.LogText(t, filepath.Join(logDir, id+".log")), "fake "+id+" ready")
	}
	_, err = s.Start(testCtx(t), "d4", nil)
	require.ErrorIs(t, err, ErrClosed)
	_, open := <-s.CrashPoints()
	require.False(t, open, "Close closes CrashPoints")
}

func childPID(t *testing.T, logPath string) int {
	t.Helper()
	localtest.WaitLog(t, logPath, "child pid ")
	var pid int
	for _, line := range strings.Split(localtest.LogText(t, logPath), "\n") {
		if rest, ok := strings.CutPrefix(line, "child pid "); ok {
			_, err := fmt.Sscan(rest, &pid)
			require.NoError(t, err)
		}
	}
	require.Positive(t, pid)
	return pid
}

func TestTermTimeoutKills(t *testing.T) {
	s, rec, _ := newSup(t)
	p := startReady(t, s, "d1", map[string]string{"FAKE_IGNORE_TERM": "1"})
	began := time.Now()
	code, err := s.Term("d1", 300*time.Millisecond)
	require.ErrorIs(t, err, ErrTermTimeout)
	require.ErrorContains(t, err, "d1")
	require.GreaterOrEqual(t, time.Since(began), 300*time.Millisecond)
	require.Equal(t, -1, code)
	e, ok := p.Exit()
	require.True(t, ok)
	require.Equal(t, CauseTermTimeout, e.Cause)
	require.Equal(t, "killed", e.Signal)
	require.True(t, gone(p.PID))
	require.Equal(t, []string{"start", "term", "kill", "exit"}, actions(rec, "d1"))
	require.Contains(t, processEvent(t, rec, "d1", "kill").Detail, "no exit within 300ms of SIGTERM")

	_, err = s.Term("d1", 0)
	require.ErrorContains(t, err, "positive timeout")
}

func TestTermResumesPaused(t *testing.T) {
	s, rec, _ := newSup(t)
	p := startReady(t, s, "d1", nil)
	require.NoError(t, s.Pause("d1"))
	code, err := s.Term("d1", deadline)
	require.NoError(t, err)
	require.Equal(t, 0, code)
	require.False(t, p.Paused())
	require.Equal(t, []string{"start", "stop", "term", "cont", "exit"}, actions(rec, "d1"))
}

func TestRestartGivesNewInstanceID(t *testing.T) {
	s, rec, logDir := newSup(t)
	env := map[string]string{"OUTBOX_QUEUES": "ai-default"}
	first := startReady(t, s, "d1", env)
	second, err := s.Restart(testCtx(t), "d1")
	require.NoError(t, err)
	require.Equal(t, "d1r1", second.ID)
	require.NotEqual(t, first.PID, second.PID)
	localtest.WaitLog(t, second.LogPath, "fake d1r1 ready")
	require.Equal(t, filepath.Join(logDir, "d1r1.log"), second.LogPath)
	e, _ := first.Exit()
	require.Equal(t, CauseKill, e.Cause)
	require.Equal(t, map[string]string{"d1": "d1r1"}, s.Instances())
	require.Equal(t, []string{"start", "kill", "exit"}, actions(rec, "d1"))
	require.Equal(t, "restart", processEvent(t, rec, "d1", "kill").Detail)

	// A restart of a dead slot just starts it.
	require.NoError(t, s.Kill("d1"))
	third, err := s.Restart(testCtx(t), "d1")
	require.NoError(t, err)
	require.Equal(t, "d1r2", third.ID)
	localtest.WaitLog(t, third.LogPath, "fake d1r2 ready")
	require.Equal(t, []string{"start"}, actions(rec, "d1r2"))

	// A slot named like a restart id never reuses an id.
	other := startReady(t, s, "d1r3", nil)
	require.Equal(t, "d1r3", other.ID)
	_, err = s.Restart(testCtx(t), "d1")
	require.NoError(t, err)
	cur, _ := s.Current("d1")
	require.Equal(t, "d1r4", cur.ID)

	_, err = s.Restart(testCtx(t), "d9")
	require.ErrorContains(t, err, "never started")
}

func TestCrashPointDetected(t *testing.T) {
	s, rec, _ := newSup(t)
	vars, err := FailpointVars(7, Crash(contract.AfterEnqueue).OnNth(1))
	require.NoError(t, err)
	p, err := s.Start(testCtx(t), "d1", vars)
	require.NoError(t, err)
	var ev CrashEvent
	select {
	case ev = <-s.CrashPoints():
	case <-time.After(deadline):
		t.Fatal("no crash event")
	}
	require.Equal(t, "d1", ev.Slot)
	require.Equal(t, "d1", ev.Instance)
	require.Equal(t, string(contract.AfterEnqueue), ev.Point)
	require.False(t, ev.At.IsZero())
	require.Equal(t, "killed", ev.Exit.Signal)
	require.Equal(t, CauseCrashpoint, ev.Exit.Cause)
	require.False(t, ev.Exit.Unexpected())
	require.False(t, p.Alive())
	require.Equal(t, []string{"start", "crashpoint", "exit"}, actions(rec, "d1"))
	require.Equal(t, string(contract.AfterEnqueue), processEvent(t, rec, "d1", "crashpoint").Detail)
	require.Equal(t, "signal killed after crash point after-enqueue", processEvent(t, rec, "d1", "exit").Detail)
	require.Contains(t, localtest.LogText(t, p.LogPath), "failpoint after-enqueue: crash")
	require.Contains(t, ev.Exit.String(), "crash point after-enqueue")
}

func TestUnexpectedExitRecorded(t *testing.T) {
	s, rec, _ := newSup(t)
	p, err := s.Start(testCtx(t), "d2", map[string]string{"OUTBOX_LEASE": "soon"})
	require.NoError(t, err)
	e, err := p.Wait(testCtx(t))
	require.NoError(t, err)
	require.Equal(t, 2, e.Code)
	require.True(t, e.Unexpected())
	require.Equal(t, `config: OUTBOX_LEASE "soon" is not a duration`, e.LastStderr)
	require.Equal(t, `instance d2 exited with code 2: config: OUTBOX_LEASE "soon" is not a duration`, e.String())
	require.Equal(t, []Exit{e}, s.UnexpectedExits())
	require.Equal(t, `exit code 2: config: OUTBOX_LEASE "soon" is not a duration`, processEvent(t, rec, "d2", "exit").Detail)
	require.Equal(t, []string{"start", "exit"}, actions(rec, "d2"))
	require.Empty(t, s.Alive())
	require.Equal(t, map[string]string{"d2": "d2"}, s.Instances())
}

func TestStartErrors(t *testing.T) {
	s, _, _ := newSup(t)
	ctx := testCtx(t)
	_, err := s.Start(ctx, "", nil)
	require.ErrorContains(t, err, "slot")
	_, err = s.Start(ctx, "../x", nil)
	require.ErrorContains(t, err, "slot")

	startReady(t, s, "d1", nil)
	_, err = s.Start(ctx, "d1", nil)
	require.ErrorContains(t, err, "still running")

	require.ErrorContains(t, s.Kill("nope"), "never started")
	require.ErrorContains(t, s.Pause("nope"), "never started")

	bad := New(&fakeAdapter{specErr: errors.New("no binary")}, nil, t.TempDir())
	t.Cleanup(func() { _ = bad.Close() })
	_, err = bad.Start(ctx, "d1", nil)
	require.ErrorContains(t, err, "no binary")

	missing := New(&fakeAdapter{bin: filepath.Join(t.TempDir(), "absent")}, nil, t.TempDir())
	t.Cleanup(func() { _ = missing.Close() })
	_, err = missing.Start(ctx, "d1", nil)
	require.ErrorContains(t, err, "exec")
	require.Empty(t, missing.Alive())
}

func TestClosePausedLeavesNothing(t *testing.T) {
	s, rec, _ := newSup(t)
	p := startReady(t, s, "d1", map[string]string{"FAKE_CHILD": "1"})
	child := childPID(t, p.LogPath)
	require.NoError(t, s.Pause("d1"))
	localtest.EventuallyWithin(t, deadline, "child stopped with its group", func() bool {
		state, _ := procState(child)
		return state == 'T'
	})
	require.NoError(t, s.Close())
	require.True(t, gone(p.PID))
	localtest.EventuallyWithin(t, deadline, "stopped child gone", func() bool { return gone(child) })
	require.Equal(t, []string{"start", "stop", "kill", "exit"}, actions(rec, "d1"))
}

func TestEnvironStripsHarnessContractVars(t *testing.T) {
	t.Setenv("OUTBOX_FAILPOINTS", "after-claim=crash")
	env := HarnessEnviron(map[string]string{"OUTBOX_INSTANCE_ID": "d1", "OUTBOX_LEASE": "2s"})
	require.Contains(t, env, "OUTBOX_INSTANCE_ID=d1")
	require.Contains(t, env, "OUTBOX_LEASE=2s")
	require.Contains(t, env, "PATH="+os.Getenv("PATH"))
	for _, kv := range env {
		require.NotContains(t, kv, "OUTBOX_FAILPOINTS")
	}
	require.Equal(t, []string{"A=1", "B=2", "OUTBOX_X=y"},
		Environ([]string{"B=2", "OUTBOX_X=old", "OUTBOX_Z=z", "A=1", "junk"}, map[string]string{"OUTBOX_X": "y"}))
}

func TestCapabilitiesValidate(t *testing.T) {
	require.NoError(t, Capabilities{Tuning: TuningVariables()}.Validate())
	err := Capabilities{Tuning: []string{"OUTBOX_LEASE", "LEASE"}}.Validate()
	require.ErrorContains(t, err, `"LEASE"`)
	require.True(t, Capabilities{Tuning: []string{"OUTBOX_LEASE"}}.Honours("OUTBOX_LEASE"))
	require.False(t, Capabilities{}.Honours("OUTBOX_LEASE"))
}
