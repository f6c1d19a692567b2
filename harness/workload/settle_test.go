package workload

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// A connection pgx has closed (its socket broke when the postmaster was
// killed) answers every later call with "conn closed": the producer takes
// it for a lost connection and settles the event, as it does a MySQL
// ErrBadConn; a statement the server refused is not one.
func TestLostConnectionKnowsPgxsClosedConn(t *testing.T) {
	_, url := localtest.Postgres(t)
	ctx := localtest.Context(t)
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "SELECT 1 FROM no_such_table")
	require.Error(t, err)
	require.False(t, lostConnection(err), "a refused statement: %v", err)
	require.NoError(t, conn.Close(ctx))
	_, err = conn.Begin(ctx)
	require.Error(t, err)
	require.True(t, lostConnection(fmt.Errorf("begin: %w", err)), "a closed conn: %v", err)
}
