package workload

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"
)

// A lost connection is ridden out, whatever the driver calls it; a
// statement the server refused is not one.
func TestLostConnectionKnowsPostgresClosedConnections(t *testing.T) {
	// pgx's error for a connection it closed after the postmaster was
	// killed, as database/sql hands it on from BeginTx.
	require.True(t, lostConnection(fmt.Errorf("begin: %w", pgconn.ErrConnClosed)))
	require.True(t, lostConnection(&pgconn.PgError{Code: "57P01"}))
	require.True(t, lostConnection(&pgconn.PgError{Code: "08006"}))
	require.False(t, lostConnection(&pgconn.PgError{Code: "23505"}))
	require.False(t, lostConnection(errors.New("conn closed")), "by identity, not by its words")
	require.False(t, lostConnection(nil))
}
