package draft

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A prefix is a release or a recovery by its words alone, never by a guess
// beyond them; one that reads as both, or neither, is shown and not
// declared.
func TestClassifiesPrefixesByTheirWordsAlone(t *testing.T) {
	g := classifyPrefixes([]prefixSeen{
		{prefix: "released: lease nearly over", rows: 3},
		{prefix: "released: shutting down", rows: 2},
		{prefix: "lease expired, owner room-2", rows: 1},
		{prefix: "retry 1: add job: timeout", rows: 4},
		{prefix: "retry 2: add job: timeout", rows: 1},
		{prefix: "stale release: x", rows: 1},
		{prefix: "  ", rows: 9},
	})
	require.Equal(t, []prefixSeen{{prefix: "released: ", word: "released", rows: 5}}, g.releases)
	require.Equal(t, []prefixSeen{{prefix: "lease expired, owner ", word: "lease expired", rows: 1}}, g.recoveries)
	require.Equal(t, []prefixSeen{{prefix: "retry ", rows: 5}, {prefix: "stale release: ", rows: 1}}, g.others)
}
