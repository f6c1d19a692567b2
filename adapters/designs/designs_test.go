package designs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/designs"
	"github.com/outboxchaos/outboxchaos/adapters/mutants/dispatcher"
	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
)

func TestTheCatalogNamesEveryModeOfTheBase(t *testing.T) {
	var catalogued []string
	for _, d := range designs.All() {
		require.NotEmpty(t, d.About, d.Name)
		catalogued = append(catalogued, d.Name)
	}
	require.Equal(t, dispatcher.Modes(), catalogued)
}

func TestADesignFixesItsPollIntervalAndBatchSize(t *testing.T) {
	a, err := designs.Adapter(names.ModeNestSingle)
	require.NoError(t, err)
	require.Equal(t, names.ModeNestSingle, a.Name())
	c := a.Capabilities()
	require.NoError(t, c.Validate())
	require.False(t, c.Honours("OUTBOX_POLL_INTERVAL"), "the design fixes its poll interval")
	require.False(t, c.Honours("OUTBOX_BATCH_SIZE"))
	require.True(t, c.Honours("OUTBOX_LEASE"))
	_, err = designs.Adapter("fast")
	require.ErrorContains(t, err, `unknown design "fast": use one of nest-single, global-lock-batch20`)
}
