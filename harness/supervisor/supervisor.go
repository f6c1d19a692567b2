package supervisor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/clockskew"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

const (
	exitWait  = 30 * time.Second // longest wait for a SIGKILLed process to be reaped
	drainWait = 5 * time.Second  // longest wait for output after the exit
)

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("supervisor closed")

// Supervisor runs dispatcher instances. Its methods are safe for concurrent
// use.
type Supervisor struct {
	adapter Adapter
	rec     *history.Recorder
	logDir  string

	mu      sync.Mutex
	closed  bool
	slots   map[string]*slot
	used    map[string]bool // instance ids handed out
	exits   []Exit
	waiters sync.WaitGroup

	crash   chan CrashEvent
	closing chan struct{}
}

type slot struct {
	env    map[string]string
	extra  []string // process variables added after the adapter's Spec (SetProcessEnv)
	starts int
	proc   *Proc
}

// New returns a supervisor starting instances through a, recording to rec,
// writing each instance's output to logDir/<instance-id>.log.
func New(a Adapter, rec *history.Recorder, logDir string) *Supervisor {
	return &Supervisor{
		adapter: a, rec: rec, logDir: logDir,
		slots: map[string]*slot{}, used: map[string]bool{},
		crash: make(chan CrashEvent, 64), closing: make(chan struct{}),
	}
}

var slotName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// Start starts an instance in slot with the contract variables env (plus
// OUTBOX_INSTANCE_ID, set to a fresh id). The slot must not have a live
// instance. ctx bounds the start only: the process runs until Kill, Term or
// Close.
func (s *Supervisor) Start(ctx context.Context, slotID string, env map[string]string) (*Proc, error) {
	if !slotName.MatchString(slotID) {
		return nil, fmt.Errorf("start: slot %q: use letters, digits, '-' or '_' (like \"d1\")", slotID)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start %s: %w", slotID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("start %s: %w", slotID, ErrClosed)
	}
	sl := s.slots[slotID]
	if sl == nil {
		sl = &slot{}
		s.slots[slotID] = sl
	}
	if sl.proc != nil && sl.proc.Alive() {
		return nil, fmt.Errorf("start %s: instance %s is still running (pid %d): kill or restart it", slotID, sl.proc.ID, sl.proc.PID)
	}
	sl.env = maps.Clone(env)
	p, err := s.spawn(slotID, s.nextID(slotID, sl), env)
	if err != nil {
		return nil, err
	}
	sl.proc = p
	return p, nil
}

// nextID hands out "d1", then "d1r1", "d1r2", ... never an id used before.
func (s *Supervisor) nextID(slotID string, sl *slot) string {
	for {
		id := slotID
		if sl.starts > 0 {
			id = fmt.Sprintf("%sr%d", slotID, sl.starts)
		}
		sl.starts++
		if !s.used[id] {
			s.used[id] = true
			return id
		}
	}
}

// spawn starts the process; s.mu is held.
func (s *Supervisor) spawn(slotID, id string, env map[string]string) (*Proc, error) {
	inst := Instance{Slot: slotID, ID: id, Env: maps.Clone(env)}
	if inst.Env == nil {
		inst.Env = map[string]string{}
	}
	inst.Env[EnvInstanceID] = id
	spec, err := s.adapter.Spec(inst)
	if err != nil {
		return nil, fmt.Errorf("start %s: adapter %s spec: %w", id, s.adapter.Name(), err)
	}
	if spec.Path == "" {
		return nil, fmt.Errorf("start %s: adapter %s gave no executable path", id, s.adapter.Name())
	}
	if sl := s.slots[slotID]; sl != nil && len(sl.extra) > 0 {
		spec.Env = clockskew.Merge(spec.Env, sl.extra)
	}
	if err := os.MkdirAll(s.logDir, 0o755); err != nil {
		return nil, fmt.Errorf("start %s: log dir: %w", id, err)
	}
	logPath := filepath.Join(s.logDir, id+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start %s: open log: %w", id, err)
	}
	p := &Proc{Slot: slotID, ID: id, LogPath: logPath, done: make(chan struct{})}
	p.out = newOutput(logFile, func(point string, at time.Time) {
		s.record(p, "crashpoint", point, at)
	})
	if err := s.exec(p, spec); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s: %w", id, err)
	}
	s.record(p, "start", "slot "+slotID, p.Started)
	s.waiters.Add(1)
	go s.wait(p)
	return p, nil
}

// exec starts the process with its output piped to p.out.
func (s *Supervisor) exec(p *Proc, spec Spec) error {
	outR, outW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(outR, outW)
		return fmt.Errorf("stderr pipe: %w", err)
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = append([]string{}, spec.Env...) // never nil: nothing inherited
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.SysProcAttr = sysProcAttr()
	err = cmd.Start()
	closeAll(outW, errW) // the child holds its own copies
	if err != nil {
		closeAll(outR, errR)
		return fmt.Errorf("exec %s: %w", spec.Path, err)
	}
	p.cmd, p.PID, p.Started = cmd, cmd.Process.Pid, time.Now().UTC()
	p.out.follow(outR, false)
	p.out.follow(errR, true)
	return nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// wait reaps the process, records its exit and reports a crash point.
func (s *Supervisor) wait(p *Proc) {
	defer s.waiters.Done()
	_ = p.cmd.Wait() // the exit status is read from ProcessState below
	// Leave nothing of the group behind, even after a graceful exit.
	_ = syscall.Kill(-p.PID, syscall.SIGKILL)
	p.out.drain(drainWait)
	e := s.exitOf(p)
	s.record(p, "exit", exitDetail(e), e.At)
	s.mu.Lock()
	s.exits = append(s.exits, e)
	s.mu.Unlock()
	p.mu.Lock()
	p.exit, p.paused = e, false
	p.mu.Unlock()
	close(p.done)
	if e.Cause == CauseCrashpoint {
		ce := CrashEvent{Slot: p.Slot, Instance: p.ID, Point: e.Crashpoint, Exit: e}
		_, _, _, ce.At = p.out.snapshot()
		select {
		case s.crash <- ce:
		case <-s.closing:
		}
	}
}

func (s *Supervisor) exitOf(p *Proc) Exit {
	tail, lastErr, point, _ := p.out.snapshot()
	e := Exit{Slot: p.Slot, Instance: p.ID, PID: p.PID, At: time.Now().UTC(),
		Code: p.cmd.ProcessState.ExitCode(), Crashpoint: point, Tail: tail, LastStderr: lastErr}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		e.Signal = ws.Signal().String()
	}
	p.mu.Lock()
	e.Cause = p.cause
	p.mu.Unlock()
	if e.Cause == "" && point != "" {
		e.Cause = CauseCrashpoint
	}
	return e
}

func exitDetail(e Exit) string {
	d := e.Status()
	switch {
	case e.Cause == "":
		if last := e.lastLine(); last != "" {
			d += ": " + last
		}
	case e.Cause == CauseCrashpoint:
		d += " after crash point " + e.Crashpoint
	default:
		d += " after " + e.Cause
	}
	return d
}

func (s *Supervisor) record(p *Proc, action, detail string, at time.Time) {
	if s.rec == nil {
		return
	}
	s.rec.AddProcess(history.ProcessEvent{Instance: p.ID, Action: action, At: at, PID: p.PID, Detail: detail})
}

// Current returns the slot's latest instance, alive or not.
func (s *Supervisor) Current(slotID string) (*Proc, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sl := s.slots[slotID]
	if sl == nil || sl.proc == nil {
		return nil, false
	}
	return sl.proc, true
}

// alive returns the slot's live instance or an error saying why there is none.
func (s *Supervisor) alive(slotID string) (*Proc, error) {
	p, ok := s.Current(slotID)
	if !ok {
		return nil, fmt.Errorf("slot %q was never started", slotID)
	}
	if !p.Alive() {
		e, _ := p.Exit()
		return nil, fmt.Errorf("slot %s is not running: %s", slotID, e)
	}
	return p, nil
}

// Alive returns the slots whose instance runs (paused ones included), sorted.
func (s *Supervisor) Alive() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id, sl := range s.slots {
		if sl.proc != nil && sl.proc.Alive() {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// Instances maps every slot ever started to its latest instance id.
func (s *Supervisor) Instances() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for id, sl := range s.slots {
		if sl.proc != nil {
			out[id] = sl.proc.ID
		}
	}
	return out
}

// Exits returns every exit so far, in the order they happened.
func (s *Supervisor) Exits() []Exit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Exit(nil), s.exits...)
}

// UnexpectedExits returns the exits the harness did not cause.
func (s *Supervisor) UnexpectedExits() []Exit {
	var out []Exit
	for _, e := range s.Exits() {
		if e.Unexpected() {
			out = append(out, e)
		}
	}
	return out
}

// CrashPoints delivers a CrashEvent for each instance that crashed at a
// failpoint on its own, after its exit is recorded. The channel is buffered;
// when nobody reads, a delivery waits (until Close) without holding up
// anything else. It is closed by Close.
func (s *Supervisor) CrashPoints() <-chan CrashEvent { return s.crash }

// Close kills every instance (SIGKILL, then SIGCONT so a stopped one dies
// too), waits for all of them, and closes CrashPoints. It is idempotent.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.closing)
	var procs []*Proc
	for _, sl := range s.slots {
		if sl.proc != nil && sl.proc.Alive() {
			procs = append(procs, sl.proc)
		}
	}
	s.mu.Unlock()
	var errs []error
	for _, p := range procs {
		if err := s.kill(p, CauseClose, "close"); err != nil {
			errs = append(errs, err)
		}
	}
	s.waiters.Wait()
	close(s.crash)
	return errors.Join(errs...)
}

// SetProcessEnv makes every later start of slot run with the variables kv
// (KEY=VALUE) added to the environment the adapter's Spec gives, whatever
// the adapter passes on: a key already there is replaced, LD_PRELOAD is
// prepended to. It is how one instance gets a skewed clock
// (harness/clockskew); nil clears it. A live instance is not changed:
// restart it.
func (s *Supervisor) SetProcessEnv(slotID string, kv []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sl := s.slots[slotID]
	if sl == nil {
		sl = &slot{}
		s.slots[slotID] = sl
	}
	sl.extra = append([]string(nil), kv...)
}
