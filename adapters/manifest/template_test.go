package manifest

import (
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

func TestContractVariablesCoverTheContract(t *testing.T) {
	vars := ContractVariables()
	require.Len(t, vars, 15)
	require.Contains(t, vars, "OUTBOX_MYSQL_URL")
	require.Contains(t, vars, "OUTBOX_PUBLISH_TIMEOUT")
	require.Contains(t, vars, "OUTBOX_FAILPOINT_SEED")
}
