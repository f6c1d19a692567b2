package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/scenarios"
)

func TestSelectKeepsCatalogOrderAndRefusesUnknownNames(t *testing.T) {
	list, err := scenarios.Select("redis-outage-30s", "zombie", "baseline", "zombie")
	require.NoError(t, err)
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{"baseline", "zombie", "redis-outage-30s"}, names, "catalog order, then the long ones, each once")

	all, err := scenarios.Select()
	require.NoError(t, err)
	require.Len(t, all, len(scenarios.All()))

	_, err = scenarios.Select("baseline", "zombi")
	require.ErrorContains(t, err, `unknown scenario "zombi"`)
	require.ErrorContains(t, err, "crash-window", "the error lists the names there are")
}
