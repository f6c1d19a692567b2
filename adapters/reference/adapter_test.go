package refadapter

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/clockskew"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// fakePackage is the supervisor's stand-in dispatcher: a main package of this
// module that builds whatever state the reference dispatcher is in.
const fakePackage = "github.com/outboxchaos/outboxchaos/harness/supervisor/testdata/fakedispatcher"

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestDeclaresTheWholeContract(t *testing.T) {
	a := New()
	require.Equal(t, "reference", a.Name())
	require.NoError(t, a.Schema().Validate())
	require.Equal(t, "outbox_events", a.Schema().Outbox.Table)
	c := a.Capabilities()
	require.NoError(t, c.Validate())
	require.ElementsMatch(t, supervisor.TuningVariables(), c.Tuning)
	require.True(t, c.CrashPoints)
	require.True(t, c.GracefulTerm)
	require.Equal(t, clockskew.GoOverlay, c.Clock)
}

func TestOptionsRejected(t *testing.T) {
	_, err := NewWithOptions(Options{Go: "/nonexistent/go"})
	require.ErrorContains(t, err, "go command")
	_, err = NewWithOptions(Options{ModuleDir: filepath.Join(t.TempDir(), "absent")})
	require.ErrorContains(t, err, "module dir")
	_, err = NewWithOptions(Options{Package: "example.com/a b"})
	require.ErrorContains(t, err, "main package")
}

func TestPrepareWithoutGoSaysSo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := New().Prepare(testCtx(t), t.TempDir())
	require.ErrorContains(t, err, "go command \"go\" not found")
}

func TestSpecNeedsPrepare(t *testing.T) {
	_, err := New().Spec(supervisor.Instance{Slot: "d1", ID: "d1"})
	require.ErrorContains(t, err, "Prepare has not run")
}

func TestPrepareBuildsOnceAndRunsThroughSupervisor(t *testing.T) {
	a, err := NewWithOptions(Options{Name: "fake", Package: fakePackage})
	require.NoError(t, err)
	work := t.TempDir()
	require.NoError(t, a.Prepare(testCtx(t), work))
	bin := filepath.Join(work, "bin", "fakedispatcher")
	require.Equal(t, bin, a.Binary())
	requireELF(t, bin)

	// Built once: a second Prepare keeps what is there.
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho kept\n"), 0o755))
	again, err := NewWithOptions(Options{Name: "fake", Package: fakePackage})
	require.NoError(t, err)
	require.NoError(t, again.Prepare(testCtx(t), work))
	got, err := os.ReadFile(bin)
	require.NoError(t, err)
	require.Equal(t, "#!/bin/sh\necho kept\n", string(got))
	// Gone: built again.
	require.NoError(t, os.Remove(bin))
	require.NoError(t, again.Prepare(testCtx(t), work))
	requireELF(t, bin)

	t.Setenv("OUTBOX_FAILPOINTS", "after-claim=crash") // the harness's own: must not leak
	spec, err := a.Spec(supervisor.Instance{Slot: "d1", ID: "d1", Env: map[string]string{
		"OUTBOX_INSTANCE_ID": "d1", "OUTBOX_LEASE": "2s"}})
	require.NoError(t, err)
	require.Equal(t, bin, spec.Path)
	require.Equal(t, work, spec.Dir)
	require.Contains(t, spec.Env, "OUTBOX_LEASE=2s")
	require.NotContains(t, strings.Join(spec.Env, "\n"), "OUTBOX_FAILPOINTS")

	rec := history.NewRecorder(history.Meta{})
	sup := supervisor.New(a, rec, filepath.Join(work, "logs"))
	t.Cleanup(func() { require.NoError(t, sup.Close()) })
	p, err := sup.Start(testCtx(t), "d1", map[string]string{"OUTBOX_LEASE": "2s"})
	require.NoError(t, err)
	localtest.WaitLog(t, p.LogPath, "fake d1 ready")
	code, err := sup.Term("d1", time.Minute)
	require.NoError(t, err)
	require.Equal(t, 0, code)
}

func TestPrepareBuildsReferenceDispatcher(t *testing.T) {
	probe := exec.CommandContext(testCtx(t), "go", "build", "-o", os.DevNull, Package)
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("reference dispatcher does not build yet (%v):\n%s", err, lastLines(string(out), 10))
	}
	a := New()
	work := t.TempDir()
	require.NoError(t, a.Prepare(testCtx(t), work))
	bin := filepath.Join(work, "bin", "dispatcher")
	require.Equal(t, bin, a.Binary())
	requireELF(t, bin)
	require.True(t, builds.built(Package, bin))

	// The contract env reaches the binary: a bad value is a config error,
	// reported with the dispatcher's one-line reason.
	sup := supervisor.New(a, history.NewRecorder(history.Meta{}), filepath.Join(work, "logs"))
	t.Cleanup(func() { require.NoError(t, sup.Close()) })
	p, err := sup.Start(testCtx(t), "d1", map[string]string{"OUTBOX_LEASE": "not-a-duration"})
	require.NoError(t, err)
	e, err := p.Wait(testCtx(t))
	require.NoError(t, err)
	require.True(t, e.Unexpected())
	require.NotZero(t, e.Code, "a config error exits non-zero: %s", e)
	require.NotEmpty(t, e.LastStderr, "a config error says why on stderr")
	t.Logf("reference config error: %s", e)
}

func TestPrepareReportsBuildErrors(t *testing.T) {
	a, err := NewWithOptions(Options{Package: "github.com/outboxchaos/outboxchaos/no/such/cmd"})
	require.NoError(t, err)
	err = a.Prepare(testCtx(t), t.TempDir())
	require.ErrorContains(t, err, "go build github.com/outboxchaos/outboxchaos/no/such/cmd")
	require.ErrorContains(t, err, "no/such/cmd")
	require.Empty(t, a.Binary())
}

func requireELF(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(b, []byte("\x7fELF")), "%s is not an executable", path)
}
