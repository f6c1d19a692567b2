package manifest

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseText(t *testing.T) {
	tx, err := parseText("a ${X} $$ b${Y_2}c")
	require.NoError(t, err)
	require.Equal(t, []string{"X", "Y_2"}, tx.refs())
	require.Equal(t, "a 1 $ b2c", tx.expand(map[string]string{"X": "1", "Y_2": "2"}))
	require.Equal(t, "a  $ bc", tx.expand(nil), "a missing variable expands to empty")

	for in, want := range map[string]string{
		"$X":     "lone $",
		"${X":    "unclosed ${",
		"${1X}":  "not a variable name",
		"${}":    "not a variable name",
		"tail $": "lone $",
	} {
		_, err := parseText(in)
		require.ErrorContains(t, err, want, in)
	}
}

// Every variable docs/contract.md names is one a manifest may use, and no
// other.
func TestContractVariablesCoverTheContract(t *testing.T) {
	doc, err := os.ReadFile("../../docs/contract.md")
	require.NoError(t, err)
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`(OUTBOX_[A-Z_]+)`").FindAllStringSubmatch(string(doc), -1) {
		named[m[1]] = true
	}
	require.ElementsMatch(t, slices.Sorted(maps.Keys(named)), ContractVariables())
}
