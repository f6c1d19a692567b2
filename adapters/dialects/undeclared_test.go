package dialects_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// undeclared copies dialect d's manifest named file to a temporary file
// without its conventions block, as a first manifest is written; a
// relative build or start dir is made absolute, since the copy lives
// elsewhere.
func undeclared(t *testing.T, d, file string) string {
	t.Helper()
	m := readYAML(t, filepath.Join(d, file))
	delete(m, "conventions")
	abs, err := filepath.Abs(d)
	require.NoError(t, err)
	for _, step := range []string{"build", "start"} {
		s, _ := m[step].(map[string]any)
		if s == nil {
			continue
		}
		dir, _ := s["dir"].(string)
		if dir == "" {
			dir = "."
		}
		if !filepath.IsAbs(dir) {
			s["dir"] = filepath.Join(abs, dir)
		}
	}
	b, err := yaml.Marshal(m)
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), file)
	require.NoError(t, os.WriteFile(out, b, 0o644))
	return out
}

// TestNoBackoffPlantIsCaughtWithNoDeclaration: the no-backoff plants of
// go-reason (its own Lua) and node-owner-round (bullmq's Queue.add), their
// manifests stripped of conventions, in queue-error. Their retries of a
// refused add come with no backoff; the proxy saw each add's error reply,
// so the returns are transient failures, not releases, and I6 fails with
// no declaration. The same history without its command log is unknown.
func TestNoBackoffPlantIsCaughtWithNoDeclaration(t *testing.T) {
	if testing.Short() {
		t.Skip("runs queue-error twice: not in -short")
	}
	e := openEnv(t)
	for _, d := range []string{"go-reason", "node-owner-round"} {
		t.Run(d, func(t *testing.T) {
			needNode(t, d)
			a := load(t, undeclared(t, d, "manifest-no-backoff.yaml"))
			require.False(t, a.Conventions().Declared(), "the copy declares no conventions")
			o := run(t, e, a, t.TempDir(), "queue-error", 200)
			require.True(t, o.History.Meta.Commands, "the run recorded its commands")
			failed := 0
			for _, c := range o.History.Commands {
				if c.Outcome == history.CommandError && len(c.Jobs) > 0 {
					failed++
				}
			}
			require.Positive(t, failed, "the proxy saw refused adds")
			r := result(t, o, "I6")
			require.Equal(t, check.Fail, r.Verdict, r.Reason)
			require.NotEmpty(t, r.Violations)
			t.Logf("caught by I6 with no declaration: %s", r.Violations[0].Summary)

			h := o.History
			h.Meta.Commands = false
			without := check.Check(check.I6, h)
			require.Equal(t, check.Unknown, without.Verdict, without.Reason)
		})
	}
}
