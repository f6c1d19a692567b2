package faultproxy

import (
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// pgLoggedLink creates a fresh database with the counter table on the
// shared private PostgreSQL, and links a new server seeded with seed to it
// under name with its command log on. It returns the direct pool, the
// link, the database's URL through the link and the log's records.
func pgLoggedLink(t *testing.T, seed int64, name string) (*sql.DB, *Proxy, string, *commandSink) {
	t.Helper()
	s := newServer(t, seed)
	sink := &commandSink{}
	require.NoError(t, s.RecordCommands(CommandLog{Needle: "j-run-", Record: sink.record}))
	direct, p, u := pgLinkThrough(t, s, name, counterTable...)
	return direct, p, u, sink
}

// A PostgreSQL link's log records each statement that failed, the server's
// own error or a fault's refusal, in both protocols, and nothing that ran.
func TestPostgresLinkLogRecordsFailedStatements(t *testing.T) {
	for _, m := range pgModes {
		t.Run(m.name, func(t *testing.T) {
			ctx := localtest.Context(t)
			direct, p, u, sink := pgLoggedLink(t, 3, "postgres/d1")
			db := pgVia(t, withParam(t, u, "default_query_exec_mode", m.mode))

			start := time.Now().UTC()
			_, err := db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = $1", 1)
			require.NoError(t, err, "a statement that runs is not recorded")
			_, err = db.ExecContext(ctx, "INSERT INTO t VALUES ($1, 0)", 1)
			require.Equal(t, "23505", pgError(t, err).Code, "the server's own error: a duplicate key")
			id := added(t, p, SQLError{}.OnStore(StorePostgres))
			_, err = db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = $1", 1)
			pgError(t, err)
			require.NoError(t, p.Remove(id))
			tx, err := db.BeginTx(ctx, nil)
			require.NoError(t, err)
			_, err = tx.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = $1", 1)
			require.NoError(t, err)
			require.NoError(t, tx.Commit(), "a COMMIT that lands is not recorded")

			sink.wait(t, 2)
			time.Sleep(200 * time.Millisecond) // a third record would have come by now
			got := sink.wait(t, 2)
			require.Len(t, got, 2, "only the two failed statements: %+v", got)
			require.Equal(t, []string{"INSERT", "UPDATE"}, []string{got[0].Name, got[1].Name})
			require.Contains(t, got[0].Reply, "23505 duplicate key value")
			require.Equal(t, "refused by a fault (sql-error or sql-read-only)", got[1].Reply)
			for _, c := range got {
				require.Equal(t, "postgres/d1", c.Link)
				require.Equal(t, OutcomeError, c.Outcome)
				require.True(t, c.Write, "%s writes", c.Name)
				require.False(t, c.Sent.Before(start))
				require.False(t, c.Replied.Before(c.Sent))
			}
			var v int
			require.NoError(t, direct.QueryRowContext(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v))
			require.Equal(t, 2, v)
		})
	}
}

// A statement whose connection ends before its reply is recorded closed.
func TestPostgresLinkLogRecordsAStatementWhoseConnectionEnds(t *testing.T) {
	ctx := localtest.Context(t)
	_, p, u, sink := pgLoggedLink(t, 4, "postgres/d2")
	db := pgVia(t, u)
	require.NoError(t, db.PingContext(ctx))
	done := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(ctx, "UPDATE t SET v = v + 1 FROM pg_sleep(3) WHERE id = 1")
		done <- err
	}()
	time.Sleep(500 * time.Millisecond)
	added(t, p, Down{})
	require.Error(t, <-done, "the link went down before the reply")
	got := sink.wait(t, 1)
	require.Len(t, got, 1)
	require.Equal(t, "postgres/d2", got[0].Link)
	require.Equal(t, "UPDATE", got[0].Name)
	require.Equal(t, OutcomeClosed, got[0].Outcome)
}

// The reply reader's model of a pipelined connection: an error fails the
// Execute in front and drops the Executes the server skips up to the Sync;
// a simple Query of several statements is recorded once, at its error,
// and ends at its ReadyForQuery; what was awaited when the connection
// ends is recorded closed.
func TestPostgresReplyModel(t *testing.T) {
	sink := &commandSink{}
	state := &commandLogState{}
	state.log.Store(&CommandLog{Needle: "x", Record: sink.record})
	c := &pgStmtConn{link: &pgLinkLog{link: "postgres/d1", log: state}}
	exec := func(name string) pgUnit { return pgUnit{cmd: Command{Link: "postgres/d1", Name: name}} }
	at := time.Now().UTC()
	errBody := []byte("SERROR\x00C40P01\x00Mdeadlock detected\x00\x00")

	c.push(exec("UPDATE"))
	c.push(exec("DELETE"))
	c.push(pgUnit{sync: true})
	c.push(exec("INSERT"))
	c.push(pgUnit{sync: true})
	c.reply(pgErrorResponse, errBody, at) // UPDATE fails; DELETE is skipped
	c.reply(pgReadyForQuery, []byte("E"), at)
	c.reply(pgCommandComplete, []byte("INSERT 0 1\x00"), at)
	c.reply(pgReadyForQuery, []byte("I"), at)
	require.Empty(t, c.units)

	c.push(pgUnit{cmd: Command{Link: "postgres/d1", Name: "BEGIN"}, query: true})
	c.reply(pgCommandComplete, []byte("BEGIN\x00"), at)
	c.reply(pgErrorResponse, errBody, at)
	c.reply(pgReadyForQuery, []byte("E"), at)
	require.Empty(t, c.units)

	c.push(exec("COMMIT"))
	c.end(at)

	got := sink.cmds
	require.Len(t, got, 3, "%+v", got)
	require.Equal(t, []string{"UPDATE", "BEGIN", "COMMIT"}, []string{got[0].Name, got[1].Name, got[2].Name})
	require.Equal(t, "40P01 deadlock detected", got[0].Reply)
	require.Equal(t, []string{OutcomeError, OutcomeError, OutcomeClosed}, []string{got[0].Outcome, got[1].Outcome, got[2].Outcome})
}
