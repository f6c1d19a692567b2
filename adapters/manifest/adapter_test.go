package manifest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestSpecNeedsPrepare(t *testing.T) {
	a, err := Load("testdata/good.yaml")
	require.NoError(t, err)
	_, err = a.Spec(supervisor.Instance{Slot: "d1", ID: "d1"})
	require.ErrorContains(t, err, "Prepare has not run")
}

func TestPrepareBuildsAndSpecMapsTheEnvironment(t *testing.T) {
	a, err := Load("testdata/good.yaml")
	require.NoError(t, err)
	work := filepath.Join(t.TempDir(), "work")
	require.NoError(t, a.Prepare(testCtx(t), work))
	bin := filepath.Join(work, "bin", "room")
	st, err := os.Stat(bin)
	require.NoError(t, err, "the build step wrote the program into WORK_DIR")
	require.NotZero(t, st.Mode()&0o111)

	t.Setenv("OUTBOX_LEASE", "99s") // the harness's own: must not leak
	inst := supervisor.Instance{Slot: "d1", ID: "d1", Env: map[string]string{
		"OUTBOX_INSTANCE_ID": "d1", "OUTBOX_LEASE": "2s", "OUTBOX_MYSQL_DSN": "root@tcp(127.0.0.1:1)/x"}}
	spec, err := a.Spec(inst)
	require.NoError(t, err)
	require.Equal(t, bin, spec.Path)
	require.Equal(t, []string{"--node=d1", "--price=$5"}, spec.Args)
	require.Equal(t, filepath.Dir(a.Path()), spec.Dir)
	env := strings.Join(spec.Env, "\n")
	require.Contains(t, spec.Env, "ROOM_LEASE=lease=2s")
	require.Contains(t, spec.Env, "ROOM_DSN=root@tcp(127.0.0.1:1)/x")
	require.Contains(t, spec.Env, "ROOM_FAILPOINTS=", "a variable the instance lacks expands to empty")
	require.Contains(t, spec.Env, "ROOM_MANIFEST="+filepath.Dir(a.Path()))
	require.NotContains(t, env, "OUTBOX_", "pass_contract_env: false passes no contract variable")
	require.Contains(t, env, "PATH=", "the harness's environment is kept")

	// Built once per work directory: a second Prepare does not rebuild.
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho kept\n"), 0o755))
	require.NoError(t, a.Prepare(testCtx(t), work))
	got, err := os.ReadFile(bin)
	require.NoError(t, err)
	require.Equal(t, "#!/bin/sh\necho kept\n", string(got))
}

func TestInstanceRunsThroughSupervisor(t *testing.T) {
	a, err := Load("testdata/good.yaml")
	require.NoError(t, err)
	work := t.TempDir()
	require.NoError(t, a.Prepare(testCtx(t), work))
	sup := supervisor.New(a, history.NewRecorder(history.Meta{}), filepath.Join(work, "logs"))
	t.Cleanup(func() { require.NoError(t, sup.Close()) })
	p, err := sup.Start(testCtx(t), "d1", map[string]string{"OUTBOX_LEASE": "3s", "OUTBOX_MYSQL_DSN": "dsn-1"})
	require.NoError(t, err)
	log := localtest.WaitLog(t, p.LogPath, "room ready")
	require.Contains(t, log, "args=--node=d1 --price=$5")
	require.Contains(t, log, "lease=lease=3s dsn=dsn-1 outbox=none")
	code, err := sup.Term("d1", time.Minute)
	require.NoError(t, err)
	require.Equal(t, 0, code)
}

func TestPrepareReportsBuildFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.yaml")
	body := "name: x\nbuild: {command: sh, args: [-c, 'echo compiling; echo boom >&2; exit 3']}\n" +
		"start: {command: sh}\nschema: reference\n"
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	a, err := Load(p)
	require.NoError(t, err)
	err = a.Prepare(testCtx(t), t.TempDir())
	require.ErrorContains(t, err, "build step")
	require.ErrorContains(t, err, "exit status 3")
	require.ErrorContains(t, err, "boom")
	_, err = a.Spec(supervisor.Instance{Slot: "d1", ID: "d1"})
	require.ErrorContains(t, err, "Prepare has not run", "a failed build leaves nothing to start")
}
