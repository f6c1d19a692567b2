package faultproxy

import (
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

func TestCommitHoldFilterParksTheCommitAndAllAfter(t *testing.T) {
	sel, commit, after := query("SELECT 1"), query("COMMIT"), query("SELECT 2")
	in := sel + commit + after
	for k := 0; k <= len(in); k++ {
		c := newCommitHold(1, time.Hour)
		w := &commitHoldFilter{parking: parking{ch: c, idx: -1}}
		require.Equal(t, sel, feed(w, in, k), "split at %d: only what came before the COMMIT goes on", k)
		require.Len(t, c.held(), 1)
		require.NotNil(t, w.signal())
		require.Equal(t, commit+after, string(w.wake()), "split at %d", k)
		require.Nil(t, w.signal())
		require.Equal(t, commit, string(w.process([]byte(commit))), "held once, then passes")
		require.False(t, c.held()[0].Released.IsZero())
	}
}

func TestCommitHoldFilterPassesOtherStatements(t *testing.T) {
	in := query("SELECT 'COMMIT'") + query("ROLLBACK") + packet(0, "\x01")
	c := newCommitHold(1, time.Hour)
	w := &commitHoldFilter{parking: parking{ch: c, idx: -1}}
	require.Equal(t, in, feed(w, in, 5))
	require.Empty(t, c.held())
}

func TestCommitHoldValidates(t *testing.T) {
	require.ErrorContains(t, CommitHoldMySQL{}.Validate(), "fault commit-hold-mysql: hold 0s: want > 0")
	require.NoError(t, CommitHoldMySQL{Hold: time.Second}.Validate())
}

// The hold on a real server: the transaction's UPDATE ran and keeps its row
// lock while its COMMIT waits in the proxy; a locking read on another
// connection waits for it and then sees the committed row.
func TestCommitHoldMySQLKeepsTheRowLocksUntilReleased(t *testing.T) {
	ctx := localtest.Context(t)
	direct, p, dsn := mysqlLink(t, 1, counterTable...)
	db := localtest.MySQLVia(t, dsn, p.Addr())
	require.NoError(t, db.PingContext(ctx))

	hold := 1500 * time.Millisecond
	id := added(t, p, CommitHoldMySQL{Hold: hold})
	tx := begun(t, ctx, db, "UPDATE t SET v = 1 WHERE id = 1")
	committed := make(chan error, 1)
	go func() { committed <- tx.Commit() }()

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

	tx = begun(t, ctx, db, "UPDATE t SET v = 2 WHERE id = 1")
	require.NoError(t, tx.Commit(), "held once, then passes")
	require.NoError(t, p.Heal())
}
