package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/clockskew"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

func loadText(t *testing.T, text string) (*Adapter, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.yaml")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return Load(p)
}

func TestClockAndOrderingCapabilities(t *testing.T) {
	a, err := loadText(t, "name: n\nstart: {command: sh}\nschema: reference\ncapabilities: {clock: faketime, ordering: per-aggregate}\n")
	require.NoError(t, err)
	require.Equal(t, clockskew.Faketime, a.Capabilities().Clock)
	require.Equal(t, supervisor.OrderingPerAggregate, a.Capabilities().Ordering)

	a, err = loadText(t, "name: n\nstart: {command: sh}\nschema: reference\ncapabilities: {clock: none}\n")
	require.NoError(t, err)
	require.Empty(t, a.Capabilities().Clock, "none is no mechanism")

	a, err = loadText(t, "name: n\nbuild: {command: go, args: [version]}\nstart: {command: sh}\nschema: reference\ncapabilities: {clock: go-overlay}\n")
	require.NoError(t, err)
	require.Equal(t, clockskew.GoOverlay, a.Capabilities().Clock)
}

func TestClockAndOrderingMistakes(t *testing.T) {
	for _, c := range []struct{ caps, field, says string }{
		{"{clock: libfaketime}", "capabilities.clock", `"libfaketime" is not a clock mechanism`},
		{"{clock: go-overlay}", "capabilities.clock", "clock: go-overlay needs a build step"},
		{"{ordering: per-agregate}", "capabilities.ordering", "did you mean per-aggregate?"},
		{"{ordering: global}", "capabilities.ordering", `"global" is not an ordering promise`},
	} {
		_, err := loadText(t, "name: n\nstart: {command: sh}\nschema: reference\ncapabilities: "+c.caps+"\n")
		require.ErrorContains(t, err, c.field, c.caps)
		require.ErrorContains(t, err, c.says, c.caps)
	}
}

func TestGoOverlayReachesTheBuild(t *testing.T) {
	env, err := withClockOverlay(t.Context(), []string{"A=1", "GOFLAGS=-mod=mod"}, t.TempDir())
	require.NoError(t, err)
	var flags string
	for _, kv := range env {
		if v, ok := cutKey(kv, "GOFLAGS"); ok {
			flags = v
		}
	}
	require.Regexp(t, `^-mod=mod -overlay=/.*/clock-overlay/overlay.json$`, flags)
}

func cutKey(kv, key string) (string, bool) {
	if len(kv) > len(key) && kv[:len(key)+1] == key+"=" {
		return kv[len(key)+1:], true
	}
	return "", false
}

// CommandLines are what a report reads to guess a missing clock: the
// commands with their variables unexpanded.
func TestCommandLinesKeepTheirVariables(t *testing.T) {
	a, err := Load("testdata/good.yaml")
	require.NoError(t, err)
	start, build := a.CommandLines()
	require.Equal(t, []string{"${WORK_DIR}/bin/room", "--node=${OUTBOX_INSTANCE_ID}", "--price=$5"}, start)
	require.Equal(t, "sh", build[0])
	require.Equal(t, "${WORK_DIR}", build[len(build)-1])
}

// durability: wait is a promise the dispatcher can keep only if it learns
// how many replicas to wait for: the variable must reach it.
func TestDurabilityCapability(t *testing.T) {
	a, err := loadText(t, "name: n\nstart: {command: sh}\nschema: reference\ncapabilities: {durability: wait}\n")
	require.NoError(t, err)
	require.Equal(t, supervisor.DurabilityWait, a.Capabilities().Durability)

	a, err = loadText(t, "name: n\nstart: {command: sh, pass_contract_env: false, env: {REPLICAS: '${OUTBOX_REDIS_REPLICAS}'}}\nschema: reference\ncapabilities: {durability: wait}\n")
	require.NoError(t, err)
	require.Equal(t, supervisor.DurabilityWait, a.Capabilities().Durability)

	for _, c := range []struct{ start, caps, says string }{
		{"{command: sh}", "{durability: wiat}", "did you mean wait?"},
		{"{command: sh}", "{durability: fsync}", `"fsync" is not a durability promise`},
		{"{command: sh, pass_contract_env: false}", "{durability: wait}", "never receives OUTBOX_REDIS_REPLICAS"},
	} {
		_, err := loadText(t, "name: n\nstart: "+c.start+"\nschema: reference\ncapabilities: "+c.caps+"\n")
		require.ErrorContains(t, err, "capabilities.durability", c.caps)
		require.ErrorContains(t, err, c.says, c.caps)
	}
}
