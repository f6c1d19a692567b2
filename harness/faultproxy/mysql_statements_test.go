package faultproxy

import (
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

func TestMySQLLinkLogRecordsFailedStatements(t *testing.T) {
	for _, tc := range []struct {
		name     string
		prepared bool
	}{{"text protocol", false}, {"prepared statements", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := localtest.Context(t)
			direct, dsn := localtest.MySQLWith(t, counterTable...)
			cfg, err := mysql.ParseDSN(dsn)
			require.NoError(t, err)
			s := newServer(t, 3)
			sink := &commandSink{}
			require.NoError(t, s.RecordCommands(CommandLog{Needle: "j-run-", Record: sink.record}))
			p, err := s.Link("mysql/d1", cfg.Addr)
			require.NoError(t, err)
			cfg.InterpolateParams = !tc.prepared
			db := localtest.MySQLVia(t, cfg.FormatDSN(), p.Addr())
			db.SetMaxOpenConns(1)

			start := time.Now().UTC()
			_, err = db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = ?", 1)
			require.NoError(t, err, "a statement that runs is not recorded")
			_, err = db.ExecContext(ctx, "INSERT INTO t VALUES (?, 0)", 1)
			require.Error(t, err, "the server's own error: a duplicate key")
			id := added(t, p, SQLError{})
			_, err = db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = ?", 1)
			require.Error(t, err, "the fault's lock conflict")
			require.NoError(t, p.Remove(id))
			tx, err := db.BeginTx(ctx, nil)
			require.NoError(t, err)
			_, err = tx.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = ?", 1)
			require.NoError(t, err)
			require.NoError(t, tx.Commit(), "a COMMIT that lands is not recorded")

			sink.wait(t, 2)
			time.Sleep(200 * time.Millisecond) // a third record would have come by now
			got := sink.wait(t, 2)
			require.Len(t, got, 2, "only the two failed statements: %+v", got)
			require.Equal(t, []string{"INSERT", "UPDATE"}, []string{got[0].Name, got[1].Name})
			require.Contains(t, got[0].Reply, "1062 Duplicate entry")
			require.Equal(t, "refused by a fault (sql-error or sql-read-only)", got[1].Reply)
			for _, c := range got {
				require.Equal(t, "mysql/d1", c.Link)
				require.Equal(t, OutcomeError, c.Outcome)
				require.True(t, c.Write, "%s writes", c.Name)
				require.Empty(t, c.Jobs)
				require.False(t, c.Sent.Before(start))
				require.False(t, c.Replied.Before(c.Sent))
			}
			var v int
			require.NoError(t, direct.QueryRowContext(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v))
			require.Equal(t, 2, v)
		})
	}
}

func TestMySQLLinkLogRecordsAStatementWhoseConnectionEnds(t *testing.T) {
	ctx := localtest.Context(t)
	_, dsn := localtest.MySQLWith(t, counterTable...)
	cfg, err := mysql.ParseDSN(dsn)
	require.NoError(t, err)
	s := newServer(t, 4)
	sink := &commandSink{}
	require.NoError(t, s.RecordCommands(CommandLog{Needle: "j-run-", Record: sink.record}))
	p, err := s.Link("mysql/d2", cfg.Addr)
	require.NoError(t, err)
	db := localtest.MySQLVia(t, dsn, p.Addr())
	db.SetMaxOpenConns(1)
	require.NoError(t, db.PingContext(ctx))
	done := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(ctx, "UPDATE t SET v = SLEEP(3) WHERE id = 1")
		done <- err
	}()
	time.Sleep(500 * time.Millisecond)
	added(t, p, Down{})
	require.Error(t, <-done, "the link went down before the reply")
	got := sink.wait(t, 1)
	require.Len(t, got, 1)
	require.Equal(t, "mysql/d2", got[0].Link)
	require.Equal(t, "UPDATE", got[0].Name)
	require.Equal(t, OutcomeClosed, got[0].Outcome)
}

func TestSQLVerb(t *testing.T) {
	require.Equal(t, "UPDATE", sqlVerb(" /* c */ update t set v = 1"))
	require.Equal(t, "COMMIT", sqlVerb("COMMIT;"))
	require.Equal(t, "SELECT", sqlVerb("(SELECT 1)"))
	require.Equal(t, "?", sqlVerb("  "))
	require.True(t, isWriteVerb("COMMIT"))
	require.False(t, isWriteVerb("SELECT"))
}
