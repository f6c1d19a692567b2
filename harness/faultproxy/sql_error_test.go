package faultproxy

import (
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// counterTable is a table of one counter row, v = 0, for the statements a
// test sends through the link.
var counterTable = []string{"CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t VALUES (1, 0)"}

func TestSQLErrorAnswersLockingStatementsWithoutRunningThem(t *testing.T) {
	for _, tc := range []struct {
		name     string
		prepared bool
	}{{"text protocol", false}, {"prepared statements", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := localtest.Context(t)
			direct, p, dsn := mysqlLink(t, 3, counterTable...)
			cfg, err := mysql.ParseDSN(dsn)
			require.NoError(t, err)
			cfg.InterpolateParams = !tc.prepared
			db := localtest.MySQLVia(t, cfg.FormatDSN(), p.Addr())
			require.NoError(t, db.PingContext(ctx), "the pooled connection is established before the fault")

			id := added(t, p, SQLError{})
			var v int
			require.NoError(t, db.QueryRowContext(ctx, "SELECT v FROM t WHERE id = ?", 1).Scan(&v), "a plain read runs")
			codes := map[uint16]string{}
			for i := 0; i < 8; i++ {
				_, err = db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = ?", 1)
				var me *mysql.MySQLError
				require.True(t, errors.As(err, &me), "want a MySQL error reply, got %v", err)
				codes[me.Number] = string(me.SQLState[:])
				tx, err := db.BeginTx(ctx, nil)
				require.NoError(t, err)
				err = tx.QueryRowContext(ctx, "SELECT v FROM t WHERE id = ? FOR UPDATE", 1).Scan(&v)
				require.True(t, errors.As(err, &me), "a locking read is refused too, got %v", err)
				require.NoError(t, tx.Rollback(), "the connection carries on after the error")
			}
			require.Equal(t, map[uint16]string{1213: "40001", 1205: "HY000"}, codes, "both errors are drawn, with their SQLSTATEs")
			require.NoError(t, direct.QueryRowContext(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v))
			require.Equal(t, 0, v, "no refused statement ran")
			refused, answered, err := p.Refused(id)
			require.NoError(t, err)
			require.Equal(t, []int{16, 16}, []int{refused, answered})
			tally, err := p.Tally(id)
			require.NoError(t, err)
			require.Equal(t, map[string]int{"refused": 16, "answered": 16}, tally)

			require.NoError(t, p.Remove(id))
			_, err = db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = ?", 1)
			require.NoError(t, err, "statements run again once the fault is removed")
		})
	}
}

func TestSQLErrorProbabilityRefusesAShare(t *testing.T) {
	ctx := localtest.Context(t)
	direct, p, dsn := mysqlLink(t, 5, counterTable...)
	db := localtest.MySQLVia(t, dsn, p.Addr())
	added(t, p, SQLError{Probability: 0.3})
	failed := 0
	for i := 0; i < 60; i++ {
		if _, err := db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = 1"); err != nil {
			failed++
		}
	}
	var v int
	require.NoError(t, direct.QueryRowContext(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v))
	require.Equal(t, 60-failed, v, "exactly the statements answered without an error ran")
	require.Greater(t, failed, 5)
	require.Less(t, failed, 35)
}

func TestIsLockingStatement(t *testing.T) {
	for sql, want := range map[string]bool{
		"UPDATE outbox_events SET status = 'processing'":                   true,
		"  /* claim */ update t set v = 1":                                 true,
		"DELETE FROM t":                                                    true,
		"SELECT id FROM t WHERE status = 'pending' FOR UPDATE SKIP LOCKED": true,
		"select id from t\n for   share":                                   true,
		"SELECT id FROM t LOCK IN SHARE MODE":                              true,
		"SELECT id FROM t":                                                 false,
		"COMMIT":                                                           false,
		"INSERT INTO t VALUES (1)":                                         false,
		"-- x\nSELECT 1":                                                   false,
	} {
		require.Equal(t, want, isLockingStatement(sql), sql)
	}
}

func TestSQLErrorPacket(t *testing.T) {
	p := errLockDeadlock.packet()
	n := int(p[0]) | int(p[1])<<8 | int(p[2])<<16
	require.Equal(t, len(p)-4, n)
	require.Equal(t, byte(1), p[3], "the first packet of the reply")
	require.Equal(t, []byte{0xff, 0xbd, 0x04, '#', '4', '0', '0', '0', '1'}, p[4:13])
	require.Equal(t, errLockDeadlock.message, string(p[13:]))
}
