package draft

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestErrorPrefixIsWhatAKindOfReturnShares(t *testing.T) {
	for text, want := range map[string]string{
		"released: lease nearly over":                     "released: ",
		"lease expired, owner room-2":                     "lease expired, owner ",
		"retry 3: add job: dial tcp: connection refused":  "retry ",
		"attempt 2 of 8: connect ECONNREFUSED":            "attempt ",
		"max_attempts: attempt 8 of 8: timeout":           "max_attempts: ",
		"shutting down: given back":                       "shutting down: ",
		"released":                                        "released",
		"42 is not a job":                                 "",
		"recovered after the lease of node-3 ran out: ok": "recovered after the ",
	} {
		require.Equal(t, want, errorPrefix(text), text)
	}
}

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
