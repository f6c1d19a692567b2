package supervisor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// fakeBin is the fake dispatcher built once for the package's tests.
var fakeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "supervisor-test-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	fakeBin = filepath.Join(dir, "fakedispatcher")
	if out, err := exec.Command(goTool(), "build", "-o", fakeBin, "./testdata/fakedispatcher").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build fake dispatcher: %v\n%s", err, out)
		os.Exit(3)
	}
	// The leak check fails the package when a supervised process leaves
	// its waiter, an output reader or a signal goroutine running.
	localtest.MainNoLeaks(removeAfter{m: m, dir: dir})
}

// removeAfter runs the tests, then removes the fake dispatcher's directory.
type removeAfter struct {
	m   *testing.M
	dir string
}

func (r removeAfter) Run() int {
	code := r.m.Run()
	_ = os.RemoveAll(r.dir)
	return code
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "/usr/local/go/bin/go"
}

// fakeAdapter starts the fake dispatcher.
type fakeAdapter struct {
	bin     string
	specErr error
}

var _ Adapter = (*fakeAdapter)(nil)

func (a *fakeAdapter) Name() string                          { return "fake" }
func (a *fakeAdapter) Prepare(context.Context, string) error { return nil }
func (a *fakeAdapter) Schema() schema.Mapping                { return schema.Reference() }
func (a *fakeAdapter) Capabilities() Capabilities {
	return Capabilities{Tuning: []string{"OUTBOX_LEASE"}, CrashPoints: true, GracefulTerm: true}
}

func (a *fakeAdapter) Spec(inst Instance) (Spec, error) {
	if a.specErr != nil {
		return Spec{}, a.specErr
	}
	return Spec{Path: a.bin, Env: HarnessEnviron(inst.Env)}, nil
}

// newSup returns a supervisor over the fake dispatcher, closed at cleanup.
func newSup(t *testing.T) (*Supervisor, *history.Recorder, string) {
	t.Helper()
	rec := history.NewRecorder(history.Meta{Scenario: t.Name()})
	logDir := filepath.Join(t.TempDir(), "logs")
	s := New(&fakeAdapter{bin: fakeBin}, rec, logDir)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s, rec, logDir
}

const deadline = 30 * time.Second

func testCtx(t *testing.T) context.Context { return localtest.ContextWithin(t, deadline) }

// startReady starts slot and waits until the fake has installed its signal
// handling.
func startReady(t *testing.T, s *Supervisor, slot string, env map[string]string) *Proc {
	t.Helper()
	p, err := s.Start(testCtx(t), slot, env)
	require.NoError(t, err)
	localtest.WaitLog(t, p.LogPath, fmt.Sprintf("fake %s ready pid %d", p.ID, p.PID))
	return p
}

// actions lists the recorded process actions of one instance, in order.
func actions(rec *history.Recorder, instance string) []string {
	var out []string
	for _, e := range rec.Snapshot().Processes {
		if e.Instance == instance {
			out = append(out, e.Action)
		}
	}
	return out
}

func processEvent(t *testing.T, rec *history.Recorder, instance, action string) history.ProcessEvent {
	t.Helper()
	for _, e := range rec.Snapshot().Processes {
		if e.Instance == instance && e.Action == action {
			return e
		}
	}
	t.Fatalf("no %s event for instance %s", action, instance)
	return history.ProcessEvent{}
}

// gone reports whether pid no longer runs (absent, or a zombie nobody reaps).
func gone(pid int) bool {
	state, ok := procState(pid)
	return !ok || state == 'Z' || state == 'X'
}
