package nemesis

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/faultproxy"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// New names everything a run forgot to hand over, all at once.
func TestNewSaysWhatIsMissing(t *testing.T) {
	_, err := New(Config{})
	require.ErrorContains(t, err, "nemesis: no supervisor")
	require.ErrorContains(t, err, "no recorder")
	require.ErrorContains(t, err, "no slots")

	_, err = New(Config{Recorder: history.NewRecorder(history.Meta{}), Slots: []string{"d1", "d2"},
		SlotEnv: map[string]map[string]string{"d1": {}},
		Links:   map[string]*faultproxy.Proxy{"mysql/d1": {}, "redis/d1": {}, "mysql/d2": {}}})
	require.ErrorContains(t, err, "slot d2 has no environment")
	require.ErrorContains(t, err, "slot d2 has no redis link")
	require.NotContains(t, err.Error(), "slot d1")

	_, err = New(Config{Store: "oracle"})
	require.ErrorContains(t, err, `store "oracle": want "mysql" or "postgres"`)
	_, err = New(Config{Store: faultproxy.StorePostgres, Slots: []string{"d1"}, SlotEnv: map[string]map[string]string{"d1": {}},
		Links: map[string]*faultproxy.Proxy{"mysql/d1": {}, "redis/d1": {}}})
	require.ErrorContains(t, err, "slot d1 has no postgres link", "a PostgreSQL run's links are named after its store")
}
