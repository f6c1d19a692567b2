package faultproxy

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// pgLink creates a fresh database on the shared private PostgreSQL, runs
// setup on it directly, and links a new server seeded with seed to it. It
// returns the direct pool (to look behind the proxy), the link and the
// database's URL through the link.
func pgLink(t *testing.T, seed int64, setup ...string) (*sql.DB, *Proxy, string) {
	t.Helper()
	return pgLinkThrough(t, newServer(t, seed), "postgres", setup...)
}

// pgLinkThrough is pgLink through server s, on a link called name.
func pgLinkThrough(t *testing.T, s *Server, name string, setup ...string) (*sql.DB, *Proxy, string) {
	t.Helper()
	ctx := localtest.Context(t)
	direct, dbURL := localtest.Postgres(t)
	for _, stmt := range setup {
		_, err := direct.ExecContext(ctx, stmt)
		require.NoError(t, err, stmt)
	}
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	p, err := s.Link(name, u.Host)
	require.NoError(t, err)
	u.Host = p.Addr()
	q := u.Query()
	q.Set("connect_timeout", "10")
	u.RawQuery = q.Encode()
	return direct, p, u.String()
}

// withParam sets one connection-string parameter of u.
func withParam(t *testing.T, u, key, value string) string {
	t.Helper()
	parsed, err := url.Parse(u)
	require.NoError(t, err)
	q := parsed.Query()
	q.Set(key, value)
	parsed.RawQuery = q.Encode()
	return parsed.String()
}

// pgVia opens database/sql (pgx's driver) at u with one connection, so a
// test knows which connection a statement used.
func pgVia(t *testing.T, u string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", u)
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// pgConnect opens a native pgx connection at u.
func pgConnect(t *testing.T, ctx context.Context, u string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctx, u)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// pgError returns err's PostgreSQL error, failing the test without one.
func pgError(t *testing.T, err error) *pgconn.PgError {
	t.Helper()
	var pe *pgconn.PgError
	require.True(t, errors.As(err, &pe), "want a PostgreSQL error response, got %v", err)
	return pe
}

func countRows(t *testing.T, ctx context.Context, db *sql.DB, where string) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRowContext(ctx, "SELECT count(*) FROM t WHERE "+where).Scan(&n))
	return n
}

func lostReplyTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || isTimeout(err)
}

// pgCommits are the ways a client commits: simple protocol (what pgx and
// node-postgres send for a COMMIT), and the extended protocol, unnamed and
// prepared.
var pgCommits = []struct {
	name   string
	commit func(ctx context.Context, c *pgx.Conn) error
}{
	{"simple commit", func(ctx context.Context, c *pgx.Conn) error { _, err := c.Exec(ctx, "commit"); return err }},
	{"simple END", func(ctx context.Context, c *pgx.Conn) error { _, err := c.Exec(ctx, "END;"); return err }},
	{"extended COMMIT", func(ctx context.Context, c *pgx.Conn) error {
		return c.PgConn().ExecParams(ctx, "COMMIT", nil, nil, nil, nil).Read().Err
	}},
	{"prepared COMMIT", func(ctx context.Context, c *pgx.Conn) error {
		return c.PgConn().ExecPrepared(ctx, "commit_stmt", nil, nil, nil).Read().Err
	}},
}

func TestLostReplyPostgresCommitLosesTheReplyOfACommitThatRan(t *testing.T) {
	for _, how := range pgCommits {
		t.Run(how.name, func(t *testing.T) {
			ctx := localtest.Context(t)
			direct, p, u := pgLink(t, 1, "CREATE TABLE t (id int PRIMARY KEY)")
			c := pgConnect(t, ctx, u)
			_, err := c.Prepare(ctx, "commit_stmt", "COMMIT")
			require.NoError(t, err)

			id := added(t, p, LostReplyPostgresCommit{})
			_, err = c.Exec(ctx, "BEGIN")
			require.NoError(t, err)
			_, err = c.Exec(ctx, "INSERT INTO t VALUES ($1)", 1)
			require.NoError(t, err, "other statements pass")
			cctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			err = how.commit(cctx, c)
			require.True(t, lostReplyTimeout(err), "want a timeout, got %v", err)
			require.Equal(t, 1, countRows(t, ctx, direct, "id = 1"), "the transaction committed")
			fired, err := p.Fired(id)
			require.NoError(t, err)
			require.Equal(t, 1, fired)
			tally, err := p.Tally(id)
			require.NoError(t, err)
			require.Equal(t, map[string]int{"fired": 1}, tally)
			require.NoError(t, p.Heal())
		})
	}
}

// database/sql over pgx, on a connection open before the fault and on one
// opened after it (through an SSLRequest the server answers 'N'); fired
// once, the next transaction commits.
func TestLostReplyPostgresCommitThroughDatabaseSQL(t *testing.T) {
	for _, tc := range []struct {
		name        string
		established bool
		sslmode     string
	}{{"established connection", true, "disable"}, {"new connection asking for TLS", false, "prefer"}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := localtest.Context(t)
			direct, p, u := pgLink(t, 1, "CREATE TABLE t (id int PRIMARY KEY)")
			db := pgVia(t, withParam(t, u, "sslmode", tc.sslmode))
			if tc.established {
				require.NoError(t, db.PingContext(ctx))
			}
			id := added(t, p, LostReplyMySQLCommit{}.OnStore(StorePostgres))
			tctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			tx := begun(t, tctx, db, "INSERT INTO t VALUES (1)")
			err := tx.Commit()
			require.True(t, lostReplyTimeout(err), "want a timeout, got %v", err)
			require.Equal(t, 1, countRows(t, ctx, direct, "id = 1"), "the transaction committed")
			fired, err := p.Fired(id)
			require.NoError(t, err)
			require.Equal(t, 1, fired)

			tx = begun(t, ctx, db, "INSERT INTO t VALUES (2)")
			require.NoError(t, tx.Commit(), "fired once, then passes")
			require.NoError(t, p.Heal())
		})
	}
}

// A COMMIT that committed nothing (of a failed transaction, outside any)
// keeps its reply; the fault waits for one that commits.
func TestLostReplyPostgresCommitSkipsCommitsThatCommitNothing(t *testing.T) {
	ctx := localtest.Context(t)
	direct, p, u := pgLink(t, 1, "CREATE TABLE t (id int PRIMARY KEY)")
	c := pgConnect(t, ctx, u)
	id := added(t, p, LostReplyPostgresCommit{})

	_, err := c.Exec(ctx, "BEGIN")
	require.NoError(t, err)
	_, err = c.Exec(ctx, "SELECT 1/0")
	require.Error(t, err)
	tag, err := c.Exec(ctx, "COMMIT")
	require.NoError(t, err)
	require.Equal(t, "ROLLBACK", tag.String(), "a failed transaction's COMMIT rolls back")
	tag, err = c.Exec(ctx, "COMMIT")
	require.NoError(t, err, "outside a transaction, a warning")
	require.Equal(t, "COMMIT", tag.String())
	fired, err := p.Fired(id)
	require.NoError(t, err)
	require.Zero(t, fired)

	_, err = c.Exec(ctx, "BEGIN")
	require.NoError(t, err)
	_, err = c.Exec(ctx, "INSERT INTO t VALUES (7)")
	require.NoError(t, err)
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err = c.Exec(cctx, "COMMIT")
	require.True(t, lostReplyTimeout(err), "want a timeout, got %v", err)
	require.Equal(t, 1, countRows(t, ctx, direct, "id = 7"))
}

// pgModes are the ways pgx sends a statement with arguments: a cached
// prepared statement (Parse once per connection, then Bind and Execute;
// pgx's default) and the simple protocol.
var pgModes = []struct{ name, mode string }{
	{"cached statements", "cache_statement"},
	{"simple protocol", "simple_protocol"},
}

func TestSQLErrorPostgresAnswersLockingStatementsWithoutRunningThem(t *testing.T) {
	for _, m := range pgModes {
		t.Run(m.name, func(t *testing.T) {
			ctx := localtest.Context(t)
			direct, p, u := pgLink(t, 3, counterTable...)
			db := pgVia(t, withParam(t, u, "default_query_exec_mode", m.mode))
			var v int
			// The pooled connection is established, and its statements
			// prepared, before the fault.
			_, err := db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = $1", 1)
			require.NoError(t, err)
			require.NoError(t, db.QueryRowContext(ctx, "SELECT v FROM t WHERE id = $1 FOR UPDATE", 1).Scan(&v))
			_, err = db.ExecContext(ctx, "UPDATE t SET v = 0")
			require.NoError(t, err)

			id := added(t, p, SQLError{}.OnStore(StorePostgres))
			require.NoError(t, db.QueryRowContext(ctx, "SELECT v FROM t WHERE id = $1", 1).Scan(&v), "a plain read runs")
			codes := map[string]string{}
			for range 12 {
				_, err = db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = $1", 1)
				pe := pgError(t, err)
				require.Equal(t, "ERROR", pe.Severity)
				codes[pe.Code] = pe.Message

				tx, err := db.BeginTx(ctx, nil)
				require.NoError(t, err)
				err = tx.QueryRowContext(ctx, "SELECT v FROM t WHERE id = $1 FOR UPDATE", 1).Scan(&v)
				pgError(t, err)
				_, err = tx.ExecContext(ctx, "SELECT 1")
				require.Equal(t, "25P02", pgError(t, err).Code, "the server failed the transaction, as a lock conflict does")
				require.NoError(t, tx.Rollback(), "the connection carries on after the error")
			}
			require.Equal(t, map[string]string{
				"40P01": "deadlock detected",
				"40001": "could not serialize access due to concurrent update",
				"55P03": "canceling statement due to lock timeout",
			}, codes, "all three errors are drawn")
			require.NoError(t, direct.QueryRowContext(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v))
			require.Equal(t, 0, v, "no refused statement ran")
			refused, answered, err := p.Refused(id)
			require.NoError(t, err)
			require.Equal(t, []int{24, 24}, []int{refused, answered})
			tally, err := p.Tally(id)
			require.NoError(t, err)
			require.Equal(t, map[string]int{"refused": 24, "answered": 24}, tally)

			require.NoError(t, p.Remove(id))
			_, err = db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = $1", 1)
			require.NoError(t, err, "statements run again once the fault is removed")
		})
	}
}

// The ReadyForQuery after the error is the server's: in a transaction it
// is failed ('E'), outside one the implicit transaction is gone ('I').
func TestSQLErrorPostgresLeavesTheTransactionStatusTheServersOwn(t *testing.T) {
	ctx := localtest.Context(t)
	direct, p, u := pgLink(t, 3, counterTable...)
	c := pgConnect(t, ctx, u)
	added(t, p, SQLError{Store: StorePostgres})

	_, err := c.Exec(ctx, "UPDATE t SET v = 5 WHERE id = $1", 1)
	pgError(t, err)
	require.Equal(t, byte('I'), c.PgConn().TxStatus())

	_, err = c.Exec(ctx, "INSERT INTO t VALUES ($1, 0)", 2)
	require.NoError(t, err)
	_, err = c.Exec(ctx, "BEGIN")
	require.NoError(t, err)
	_, err = c.Exec(ctx, "INSERT INTO t VALUES ($1, 0)", 3)
	require.NoError(t, err)
	_, err = c.Exec(ctx, "DELETE FROM t WHERE id = $1", 2)
	pgError(t, err)
	require.Equal(t, byte('E'), c.PgConn().TxStatus())
	tag, err := c.Exec(ctx, "COMMIT")
	require.NoError(t, err)
	require.Equal(t, "ROLLBACK", tag.String(), "the failed transaction rolls back, as after a real deadlock")
	require.Equal(t, 0, countRows(t, ctx, direct, "id = 3"))
	require.Equal(t, 1, countRows(t, ctx, direct, "id = 2"), "the refused DELETE never ran")
}

func TestSQLErrorPostgresProbabilityRefusesAShare(t *testing.T) {
	ctx := localtest.Context(t)
	direct, p, u := pgLink(t, 5, counterTable...)
	db := pgVia(t, u)
	added(t, p, SQLError{Probability: 0.3, Store: StorePostgres})
	failed := 0
	for range 60 {
		if _, err := db.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = $1", 1); err != nil {
			pgError(t, err)
			failed++
		}
	}
	var v int
	require.NoError(t, direct.QueryRowContext(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v))
	require.Equal(t, 60-failed, v, "exactly the statements answered without an error ran")
	require.Greater(t, failed, 5)
	require.Less(t, failed, 35)
}

// The hold on a real server: the transaction's UPDATE ran and keeps its row
// lock while its COMMIT waits in the proxy; a locking read on another
// connection waits for it and then sees the committed row.
func TestCommitHoldPostgresKeepsTheRowLocksUntilReleased(t *testing.T) {
	for _, how := range pgCommits {
		t.Run(how.name, func(t *testing.T) {
			ctx := localtest.Context(t)
			direct, p, u := pgLink(t, 1, counterTable...)
			c := pgConnect(t, ctx, u)
			_, err := c.Prepare(ctx, "commit_stmt", "COMMIT")
			require.NoError(t, err)

			hold := time.Second
			id := added(t, p, CommitHoldMySQL{Hold: hold}.OnStore(StorePostgres))
			_, err = c.Exec(ctx, "BEGIN")
			require.NoError(t, err)
			_, err = c.Exec(ctx, "UPDATE t SET v = $1 WHERE id = 1", 1)
			require.NoError(t, err)
			committed := make(chan error, 1)
			go func() { committed <- how.commit(ctx, c) }()

			eventually(t, "the COMMIT is held", func() error {
				if h, err := p.Held(id); err != nil || len(h) != 1 {
					return sql.ErrNoRows
				}
				return nil
			})
			var v int
			require.NoError(t, direct.QueryRowContext(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v))
			require.Equal(t, 0, v, "not committed while held")
			require.NoError(t, direct.QueryRowContext(ctx, "SELECT v FROM t WHERE id = 1 FOR UPDATE").Scan(&v))
			require.Equal(t, 1, v, "the locking read waited for the held transaction, then saw its commit")
			require.NoError(t, <-committed)
			h, err := p.Held(id)
			require.NoError(t, err)
			require.GreaterOrEqual(t, h[0].Released.Sub(h[0].At), hold)

			_, err = c.Exec(ctx, "BEGIN")
			require.NoError(t, err)
			require.NoError(t, how.commit(ctx, c), "held once, then passes")
			require.NoError(t, p.Heal())
		})
	}
}

// A held COMMIT whose session the server ends (its
// idle_in_transaction_session_timeout ran out while the COMMIT was held)
// never commits: the hold is released when the connection ends, before its
// time, and says it was cut. One that runs its time is not.
func TestCommitHoldPostgresSaysWhenTheServerCutIt(t *testing.T) {
	ctx := localtest.Context(t)
	direct, p, u := pgLink(t, 1, counterTable...)
	c := pgConnect(t, ctx, u)
	id := added(t, p, CommitHoldMySQL{Hold: 5 * time.Second}.OnStore(StorePostgres))
	_, err := c.Exec(ctx, "BEGIN")
	require.NoError(t, err)
	_, err = c.Exec(ctx, "SET LOCAL idle_in_transaction_session_timeout = 300")
	require.NoError(t, err)
	_, err = c.Exec(ctx, "UPDATE t SET v = 7 WHERE id = 1")
	require.NoError(t, err)
	require.Error(t, pgCommits[0].commit(ctx, c), "the server ended the session")
	var h []HeldCommit
	eventually(t, "the hold ends with the connection", func() error {
		if h, err = p.Held(id); err != nil || len(h) != 1 || h[0].Released.IsZero() {
			return sql.ErrNoRows
		}
		return nil
	})
	require.True(t, h[0].Cut, "released at %s, %s after it was held", h[0].Released, h[0].Released.Sub(h[0].At))
	require.Less(t, h[0].Released.Sub(h[0].At), 5*time.Second)
	require.Equal(t, 0, countRows(t, ctx, direct, "v = 7"), "rolled back")

	c = pgConnect(t, ctx, u)
	id = added(t, p, CommitHoldMySQL{Hold: 200 * time.Millisecond}.OnStore(StorePostgres))
	_, err = c.Exec(ctx, "BEGIN")
	require.NoError(t, err)
	require.NoError(t, pgCommits[0].commit(ctx, c))
	h, err = p.Held(id)
	require.NoError(t, err)
	require.Len(t, h, 1)
	require.False(t, h[0].Cut)
}

// With all three PostgreSQL faults on a link, what is neither a locking
// statement nor a COMMIT passes unchanged, in both protocols: values far
// larger than what the filters look at, a COPY, a rollback, a notice.
func TestPostgresFaultsPassOtherTrafficUnchanged(t *testing.T) {
	ctx := localtest.Context(t)
	direct, p, u := pgLink(t, 1, "CREATE TABLE t (id int PRIMARY KEY, body text NOT NULL)")
	c := pgConnect(t, ctx, u)
	for _, f := range []Fault{LostReplyPostgresCommit{}, CommitHoldPostgres{Hold: time.Hour}, SQLError{Store: StorePostgres}} {
		added(t, p, f)
	}
	big := strings.Repeat("0123456789", 20_000)
	_, err := c.Exec(ctx, "INSERT INTO t VALUES ($1, $2)", 1, big)
	require.NoError(t, err, "extended protocol")
	_, err = c.Exec(ctx, "INSERT INTO t VALUES (2, '"+big+"')")
	require.NoError(t, err, "simple protocol, a Query larger than the filters look at")
	n, err := c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id", "body"}, pgx.CopyFromRows([][]any{{3, big}, {4, "x"}}))
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	_, err = c.Exec(ctx, "BEGIN")
	require.NoError(t, err)
	_, err = c.Exec(ctx, "INSERT INTO t VALUES (5, 'rolled back')")
	require.NoError(t, err)
	_, err = c.Exec(ctx, "ROLLBACK")
	require.NoError(t, err)
	_, err = c.Exec(ctx, "ROLLBACK")
	require.NoError(t, err, "a warning outside a transaction passes")

	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		var got string
		require.NoError(t, c.QueryRow(ctx, "SELECT string_agg(body, ',' ORDER BY id) FROM t", mode).Scan(&got))
		require.Equal(t, big+","+big+","+big+",x", got)
	}
	require.Equal(t, 4, countRows(t, ctx, direct, "true"))
	for _, id := range p.Active() {
		tally, err := p.Tally(id)
		require.NoError(t, err)
		for k, n := range tally {
			require.Zero(t, n, "%s %s", id, k)
		}
	}
}
