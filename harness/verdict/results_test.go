package verdict

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadRefusesOtherVersions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	require.NoError(t, os.WriteFile(path, []byte(`{"schema_version": 3}`), 0o644))
	_, err := Read(path)
	require.ErrorContains(t, err, "schema version 3, this build reads 2")
	// A results.json of schema 1 (before not-exercised and findings) is
	// refused with the way out: re-check the stored history.
	require.NoError(t, os.WriteFile(path, []byte(`{"schema_version": 1, "verdict": "pass", "invariants": []}`), 0o644))
	_, err = Read(path)
	require.ErrorContains(t, err, "schema version 1, this build reads 2")
	require.ErrorContains(t, err, "outboxchaos report "+dir)
	require.NoError(t, os.WriteFile(path, []byte(`{`), 0o644))
	_, err = Read(path)
	require.Error(t, err)
	_, err = Read(filepath.Join(t.TempDir(), "missing.json"))
	require.ErrorContains(t, err, "read results")
}
