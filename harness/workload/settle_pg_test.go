package workload

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// A PostgreSQL server killed under the producer's open transaction (the
// store's restart in mysql-restart) shows as the statement's error and
// then, at the COMMIT, as pgx's "conn closed": both are a lost connection,
// which the producer rides out (settle), never the run's end.
func TestLostConnectionOnPostgreSQL(t *testing.T) {
	db, _ := localtest.Postgres(t)
	ctx := localtest.Context(t)
	_, err := db.ExecContext(ctx, "CREATE TABLE t (n int)")
	require.NoError(t, err)
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	var pid int
	require.NoError(t, tx.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid))
	_, err = db.ExecContext(ctx, "SELECT pg_terminate_backend($1)", pid)
	require.NoError(t, err)

	_, err = tx.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	require.Error(t, err)
	require.True(t, lostConnection(err), "the statement's error: %v (%T)", err, err)
	err = tx.Commit()
	require.Error(t, err)
	require.True(t, lostConnection(err), "the COMMIT's error: %v (%T)", err, err)
	require.False(t, lostConnection(nil))
}
