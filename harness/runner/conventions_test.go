package runner

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/manifest"
	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// The conventions an adapter declares reach the run's Meta as declared.
func TestConventionsReachTheMeta(t *testing.T) {
	m, err := manifest.Load(filepath.Join("..", "..", "adapters", "manifest", "testdata", "good.yaml"))
	require.NoError(t, err)
	require.Equal(t, history.Conventions{ReleaseErrors: []string{"released: "}, RecoveryErrors: []string{"lease expired", "recovered"},
		RecoveryBound: history.Duration(12 * time.Second)}, conventionsOf(m))
	require.Equal(t, history.Conventions{ReleaseKeepsError: true, RecoveryKeepsError: true}, conventionsOf(refadapter.New()))
}
