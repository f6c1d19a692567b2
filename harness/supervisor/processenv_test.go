package supervisor

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// envAdapter starts a shell that prints the variables a skew sets, with
// an LD_PRELOAD of its own, and waits.
type envAdapter struct{}

func (envAdapter) Name() string                          { return "env" }
func (envAdapter) Prepare(context.Context, string) error { return nil }
func (envAdapter) Schema() schema.Mapping                { return schema.Reference() }
func (envAdapter) Capabilities() Capabilities            { return Capabilities{} }
func (envAdapter) Spec(inst Instance) (Spec, error) {
	env := append(HarnessEnviron(inst.Env), "LD_PRELOAD=/own.so")
	return Spec{Path: "/bin/sh", Args: []string{"-c", `echo "id=$OUTBOX_INSTANCE_ID ft=$FAKETIME lp=$LD_PRELOAD"; exec sleep 60`}, Env: env}, nil
}

// SetProcessEnv reaches the slot's later starts only, after the adapter's
// Spec, and prepends to LD_PRELOAD; other slots never see it.
func TestSetProcessEnvReachesOneSlot(t *testing.T) {
	logDir := filepath.Join(t.TempDir(), "logs")
	s := New(envAdapter{}, history.NewRecorder(history.Meta{Scenario: t.Name()}), logDir)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	ctx := testCtx(t)
	_, err := s.Start(ctx, "d1", nil)
	require.NoError(t, err)
	s.SetProcessEnv("d2", []string{"FAKETIME=-10s", "LD_PRELOAD=/lib/faketime.so"})
	_, err = s.Start(ctx, "d2", nil)
	require.NoError(t, err)
	localtest.WaitLog(t, filepath.Join(logDir, "d1.log"), "id=d1 ft= lp=/own.so")
	localtest.WaitLog(t, filepath.Join(logDir, "d2.log"), "id=d2 ft=-10s lp=/lib/faketime.so:/own.so")

	require.NoError(t, s.Kill("d2"))
	s.SetProcessEnv("d2", nil)
	_, err = s.Start(ctx, "d2", nil)
	require.NoError(t, err)
	localtest.WaitLog(t, filepath.Join(logDir, "d2r1.log"), "id=d2r1 ft= lp=/own.so")
}
