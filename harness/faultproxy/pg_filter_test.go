package faultproxy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	pgRowsReply = pgMsg('T', "\x00\x01v\x00") + pgMsg('D', "\x00\x01\x00\x00\x00\x06COMMIT") + tagMsg("SELECT 1") + pgReady
	pgIdle      = pgMsg(pgReadyForQuery, "I")
)

func TestPGDropDropsTheCommitReplyAndAllAfter(t *testing.T) {
	before := pgRowsReply + pgMsg('2', "")
	in := before + tagMsg("COMMIT") + pgIdle + pgRowsReply
	for k := 0; k <= len(in); k++ {
		l := newLostReply(1, 1, 1)
		d := &pgDrop{lr: l, sc: newPGScanner(true)}
		require.Equal(t, before, feed(d, in, k), "split at %d", k)
		require.Equal(t, 1, l.firedCount())
		_, keep := d.flush()
		require.False(t, keep, "the connection is closed when the fault goes")
	}
}

func TestPGDropPassesCommitsThatCommittedNothing(t *testing.T) {
	in := tagMsg("ROLLBACK") + pgIdle + // a failed transaction's COMMIT
		pgNotice(pgNoticeResponse, pgNoTransaction, "there is no transaction in progress") + tagMsg("COMMIT") + pgIdle +
		tagMsg("COMMIT PREPARED") + pgIdle + pgRowsReply
	for k := 0; k <= len(in); k++ {
		l := newLostReply(1, 1, 1)
		d := &pgDrop{lr: l, sc: newPGScanner(true)}
		require.Equal(t, in, feed(d, in, k), "split at %d", k)
		require.Zero(t, l.firedCount())
	}
	l := newLostReply(1, 1, 1)
	d := &pgDrop{lr: l, sc: newPGScanner(true)}
	in = tagMsg("COMMIT") + pgIdle
	require.Empty(t, d.process([]byte(in)))
	d = &pgDrop{lr: l, sc: newPGScanner(true)}
	require.Equal(t, in, string(d.process([]byte(in))), "fired once, then passes")
}

func TestPGCommitHoldParksTheCommitAndAllAfter(t *testing.T) {
	for name, c := range map[string]struct{ before, commit, after string }{
		"simple query": {pgQ("SELECT 1"), pgQ("commit"), pgQ("SELECT 2")},
		"extended protocol": {
			parseMsg("s1", "END") + pgSync + bindMsg("", "s1"),
			execMsg(""), pgSync + pgQ("SELECT 2"),
		},
	} {
		in := c.before + c.commit + c.after
		for k := 0; k <= len(in); k++ {
			ch := newCommitHold(1, time.Hour)
			w := (pgCommitHoldKind{}).pgFilter(ch, nil).(*pgCommitHoldFilter)
			require.Equal(t, c.before, feed(w, in, k), "%s, split at %d: only what came before the COMMIT goes on", name, k)
			require.Len(t, ch.held(), 1)
			require.NotNil(t, w.signal())
			require.Equal(t, c.commit+c.after, string(w.wake()), "%s, split at %d", name, k)
			require.Equal(t, c.commit, string(w.process([]byte(c.commit))), "held once, then passes")
			require.False(t, ch.held()[0].Released.IsZero())
		}
	}
}

func TestPGCommitHoldFollowsStatementsAndPortals(t *testing.T) {
	in := pgStartupMsg + pgQ("SELECT 'COMMIT'") + pgQ("ROLLBACK") +
		parseMsg("", "COMMIT") + pgQ("SELECT 1") + bindMsg("", "") + execMsg("") + pgSync + // the Query dropped the unnamed statement
		parseMsg("c", "COMMIT") + pgMsg(pgClose, "Sc\x00") + bindMsg("p", "c") + execMsg("p") + pgSync + // closed
		parseMsg("u", "UPDATE t SET v = 1") + bindMsg("p", "u") + execMsg("p") + pgSync
	for k := 0; k <= len(in); k += 7 {
		ch := newCommitHold(1, time.Hour)
		w := (pgCommitHoldKind{}).pgFilter(ch, nil)
		require.Equal(t, in, feed(w, in, k), "split at %d", k)
		require.Empty(t, ch.held())
	}
}

func TestPGRefuseReplacesLockingStatements(t *testing.T) {
	update := "UPDATE t SET v = v + 1 WHERE id = $1"
	for name, c := range map[string]struct {
		before, refused, after string
		replaced               func(token string) string
	}{
		"simple query": {pgQ("SELECT 1"), pgQ(update), pgQ("SELECT 2"), func(tok string) string {
			return pgQ("SELECT '" + tok + "'::int")
		}},
		"a cached statement": {parseMsg("s", update) + pgSync + bindMsg("", "s"), execMsg(""), pgSync, func(tok string) string {
			return parseMsg(tok, "SELECT '"+tok+"'::int")
		}},
	} {
		in := c.before + c.refused + c.after
		for k := 0; k <= len(in); k++ {
			se := newSQLError(1, 1, StorePostgres)
			r := (pgRefuseKind{}).pgFilter(se, nil)
			out := feed(r, in, k)
			require.Len(t, se.pending, 1, "%s, split at %d", name, k)
			for tok := range se.pending {
				require.Equal(t, c.before+c.replaced(tok)+c.after, out, "%s, split at %d", name, k)
			}
		}
	}
	plain := pgQ("SELECT v FROM t") + parseMsg("", "INSERT INTO t VALUES (1)") + bindMsg("", "") + execMsg("") + pgSync
	se := newSQLError(1, 1, StorePostgres)
	require.Equal(t, plain, feed((pgRefuseKind{}).pgFilter(se, nil), plain, 9))
	require.Empty(t, se.pending)
}

func TestPGAnswerReplacesTheRefusalsError(t *testing.T) {
	se := newSQLError(1, 1, StorePostgres)
	tok := se.fire()
	reply := string(se.pending[tok])
	other := pgNotice(pgErrorResponse, "23505", "duplicate key value")
	refusal := pgNotice(pgErrorResponse, "22P02", `invalid input syntax for type integer: "`+tok+`"`)
	in := other + pgIdle + pgMsg('1', "") + refusal + pgMsg(pgReadyForQuery, "E")
	for k := 0; k <= len(in); k++ {
		se.pending[tok] = []byte(reply)
		a := (pgAnswerKind{}).filter(se)
		require.Equal(t, other+pgIdle+pgMsg('1', "")+reply+pgMsg(pgReadyForQuery, "E"), feed(a, in, k), "split at %d", k)
		require.Empty(t, se.pending)
	}
	_, answered := se.counts()
	require.Equal(t, len(in)+1, answered)
}

// The same seed draws the same refusals and errors; PostgreSQL draws all
// three errors, one in three.
func TestSQLErrorPostgresDrawsAreSeeded(t *testing.T) {
	draw := func(seed int64) (out []string) {
		se := newSQLError(seed, 0.5, StorePostgres)
		for range 60 {
			tok := se.fire()
			if tok != "" {
				out = append(out, tok+" "+pgFields(se.pending[tok][5:])['C'])
			}
		}
		return out
	}
	a := draw(7)
	require.Equal(t, a, draw(7))
	require.NotEqual(t, a, draw(8))
	codes := map[string]int{}
	for _, d := range a {
		codes[d[len(d)-5:]]++
	}
	require.Len(t, codes, 3, "%v", codes)
	require.Greater(t, len(a), 15)
	require.Less(t, len(a), 45)

	fires := func(seed int64) (out []bool) {
		l := newLostReply(seed, 1000, 0.5)
		for range 50 {
			out = append(out, l.fireOnReply())
		}
		return out
	}
	require.Equal(t, fires(3), fires(3))
	require.NotEqual(t, fires(3), fires(4))
}

func TestPGStatementsAreTheLinksAndNeverAmbiguous(t *testing.T) {
	known := newPGStatements()
	l := (pgStatementsKind{}).filter(known)
	in := pgStartupMsg + parseMsg("claim", "UPDATE t SET v = 1") + parseMsg("", "DELETE FROM t") +
		parseMsg("_pg3_0", "SELECT 1") + pgSync
	require.Equal(t, in, feed(l, in, 11), "the statement toxic passes everything")
	other := pgStartupMsg + parseMsg("_pg3_0", "DELETE FROM t") + pgSync
	require.Equal(t, other, feed((pgStatementsKind{}).filter(known), other, 3), "another connection")

	sql, ok := known.lookup("claim")
	require.True(t, ok)
	require.Equal(t, "UPDATE t SET v = 1", sql)
	_, ok = known.lookup("")
	require.False(t, ok, "the unnamed statement is each connection's own")
	_, ok = known.lookup("_pg3_0")
	require.False(t, ok, "one name, two texts: ambiguous")

	// A refuser added after the statements were prepared reads them from
	// the link, and its own connection's Parse wins.
	se := newSQLError(1, 1, StorePostgres)
	r := (pgRefuseKind{}).pgFilter(se, known)
	in = bindMsg("", "claim") + execMsg("") + pgSync
	require.NotEqual(t, in, string(r.process([]byte(in))))
	require.Len(t, se.pending, 1)
	in = parseMsg("claim", "SELECT 2") + bindMsg("", "claim") + execMsg("") + bindMsg("", "_pg3_0") + execMsg("") + pgSync
	require.Equal(t, in, string(r.process([]byte(in))))
	require.Len(t, se.pending, 1)

	require.True(t, isPostgresLink("postgres/d1"))
	require.True(t, isPostgresLink("postgres"))
	require.False(t, isPostgresLink("mysql/d1"))
	require.False(t, isPostgresLink("postgresql/d1"))
}
