package contract

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSchemaStatementsAreTheTwoTables(t *testing.T) {
	stmts := SchemaStatements()
	require.Len(t, stmts, 2)
	require.True(t, strings.HasPrefix(stmts[0], "CREATE TABLE ai_jobs"), stmts[0])
	require.True(t, strings.HasPrefix(stmts[1], "CREATE TABLE outbox_events"), stmts[1])
}

func TestCrashPointsKnown(t *testing.T) {
	for _, p := range CrashPoints() {
		require.True(t, p.Known(), p)
	}
	require.False(t, CrashPoint("after-lunch").Known())
}
