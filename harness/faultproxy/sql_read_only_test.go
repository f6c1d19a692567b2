package faultproxy

import (
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

func TestSQLReadOnlyAnswersWritesWith1290AndLetsReadsRun(t *testing.T) {
	ctx := localtest.Context(t)
	direct, p, dsn := mysqlLink(t, 3, counterTable...)
	db := localtest.MySQLVia(t, dsn, p.Addr())
	require.NoError(t, db.PingContext(ctx))

	id := added(t, p, SQLReadOnly{})
	var v int
	require.NoError(t, db.QueryRowContext(ctx, "SELECT v FROM t WHERE id = ?", 1).Scan(&v), "a plain read runs")
	for _, q := range []string{"UPDATE t SET v = v + 1 WHERE id = 1", "INSERT INTO t VALUES (2, 0)", "DELETE FROM t WHERE id = 1", "/* c */ REPLACE INTO t VALUES (3, 0)"} {
		_, err := db.ExecContext(ctx, q)
		var me *mysql.MySQLError
		require.True(t, errors.As(err, &me), "%s: want a MySQL error reply, got %v", q, err)
		require.Equal(t, uint16(1290), me.Number, q)
		require.Equal(t, "HY000", string(me.SQLState[:]), q)
	}
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	require.NoError(t, tx.QueryRowContext(ctx, "SELECT v FROM t WHERE id = 1 FOR UPDATE").Scan(&v), "a locking read runs on a read-only server")
	require.NoError(t, tx.Rollback())

	var n int
	require.NoError(t, direct.QueryRowContext(ctx, "SELECT COUNT(*), MAX(v) FROM t").Scan(&n, &v))
	require.Equal(t, []int{1, 0}, []int{n, v}, "no refused write ran")
	tally, err := p.Tally(id)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"refused": 4, "answered": 4}, tally)

	require.NoError(t, p.Remove(id))
	_, err = db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = 1")
	require.NoError(t, err, "writes run again once the fault is removed")
}

func TestSQLReadOnlyPostgresAnswersWritesWith25006(t *testing.T) {
	ctx := localtest.Context(t)
	direct, p, u := pgLink(t, 3, counterTable...)
	db := pgVia(t, u)
	require.NoError(t, db.PingContext(ctx))

	id := added(t, p, SQLReadOnly{}.OnStore(StorePostgres))
	var v int
	require.NoError(t, db.QueryRowContext(ctx, "SELECT v FROM t WHERE id = $1", 1).Scan(&v), "a plain read runs")
	_, err := db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = $1", 1)
	require.Equal(t, "25006", pgError(t, err).Code)
	_, err = db.ExecContext(ctx, "INSERT INTO t VALUES ($1, 0)", 2)
	require.Equal(t, "25006", pgError(t, err).Code)
	err = db.QueryRowContext(ctx, "SELECT v FROM t WHERE id = $1 FOR UPDATE", 1).Scan(&v)
	require.Equal(t, "25006", pgError(t, err).Code, "a read-only transaction refuses a locking read")

	var n int
	require.NoError(t, direct.QueryRowContext(ctx, "SELECT COUNT(*), MAX(v) FROM t").Scan(&n, &v))
	require.Equal(t, []int{1, 0}, []int{n, v}, "no refused write ran")
	tally, err := p.Tally(id)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"refused": 3, "answered": 3}, tally)
	require.NoError(t, p.Remove(id))
	_, err = db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = $1", 1)
	require.NoError(t, err, "writes run again once the fault is removed")
}

func TestIsWriteStatement(t *testing.T) {
	for sql, want := range map[string]bool{
		"UPDATE outbox SET status = 'published'": true, " insert into t values (1)": true,
		"-- x\nDELETE FROM t": true, "(UPDATE t SET v = 1)": true, "REPLACE INTO t VALUES (1)": true,
		"SELECT * FROM t FOR UPDATE": false, "SELECT 1": false, "COMMIT": false, "": false,
	} {
		require.Equal(t, want, isWriteStatement(sql), sql)
	}
	for sql, want := range map[string]bool{
		"INSERT INTO t VALUES (1)": true, "SELECT * FROM t FOR UPDATE SKIP LOCKED": true,
		"WITH c AS (SELECT id FROM t) UPDATE t SET v = 1": true, "SELECT pg_advisory_lock(1)": false, "SELECT 1": false,
	} {
		require.Equal(t, want, isPGWriteStatement(sql), sql)
	}
}
