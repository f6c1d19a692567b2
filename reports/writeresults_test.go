package reports

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

// WriteRunResults hands back exactly what results.json holds, so a caller
// never has to read the file it just wrote.
func TestWriteRunResultsReturnsWhatTheFileHolds(t *testing.T) {
	for name, fixture := range map[string]func() (history.Run, []check.Result){"pass": passBaseline, "fail": failSeveral} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			run, results := fixture()
			got, err := WriteRunResults(dir, run, results)
			require.NoError(t, err)
			stored, err := verdict.Read(filepath.Join(dir, FileResults))
			require.NoError(t, err)
			require.Equal(t, asJSON(t, stored), asJSON(t, got))
			require.Equal(t, name == "fail", len(got.Findings) > 0, "findings of %s: %v", name, got.Findings)
		})
	}
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
