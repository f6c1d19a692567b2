package faultproxy

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pgMsg builds one typed message.
func pgMsg(typ byte, body string) string { return string(pgMessage(typ, []byte(body))) }

func pgQ(sql string) string { return string(pgQueryMessage(sql)) }

// pgUntyped builds a startup-phase message: length, code, body.
func pgUntyped(code uint32, body string) string {
	b := make([]byte, 8, 8+len(body))
	binary.BigEndian.PutUint32(b, uint32(8+len(body)))
	binary.BigEndian.PutUint32(b[4:], code)
	return string(append(b, body...))
}

var (
	pgSSLRequest = pgUntyped(pgCodeSSL, "")
	pgStartupMsg = pgUntyped(pgProtocol3, "user\x00postgres\x00database\x00postgres\x00\x00")
	pgSync       = pgMsg('S', "")
	pgReady      = pgMsg(pgReadyForQuery, "T")
)

func parseMsg(name, sql string) string { return pgMsg(pgParse, name+"\x00"+sql+"\x00\x00\x00") }
func bindMsg(portal, stmt string) string {
	return pgMsg(pgBind, portal+"\x00"+stmt+"\x00\x00\x00\x00\x00\x00\x00")
}
func execMsg(portal string) string { return pgMsg(pgExecute, portal+"\x00\x00\x00\x00\x00") }
func tagMsg(tag string) string     { return pgMsg(pgCommandComplete, tag+"\x00") }

// pgNotice is a NoticeResponse (or, with typ 'E', an ErrorResponse).
func pgNotice(typ byte, code, msg string) string {
	return pgMsg(typ, "SWARNING\x00VWARNING\x00C"+code+"\x00M"+msg+"\x00\x00")
}

func TestPGWords(t *testing.T) {
	for sql, want := range map[string][]string{
		"select 1":                      {"SELECT", "1"},
		"  /* a /* nested */ b */ end;": {"END", ";"},
		"-- c\ncommit":                  {"COMMIT"},
		"SELECT 'for update' FROM t":    {"SELECT", "'for update'", "FROM", "T"},
		`SELECT "FOR" FROM t`:           {"SELECT", `"FOR"`, "FROM", "T"},
		"SELECT $q$ ' for update $q$":   {"SELECT", "$$"},
		"SELECT E'\\' for' x":           {"SELECT", "E", "'\\' for'", "X"},
		"SELECT 'a\\' x":                {"SELECT", "'a\\'", "X"},
		"SELECT $1":                     {"SELECT", "$", "1"},
	} {
		got, ok := pgWords(sql)
		require.True(t, ok, sql)
		require.Equal(t, want, got, sql)
	}
	for _, open := range []string{"SELECT 'x", "/* x", `"x`, "$a$ x"} {
		_, ok := pgWords(open)
		require.False(t, ok, open)
	}
}

func TestIsPGCommit(t *testing.T) {
	yes := []string{
		"COMMIT", "commit", " Commit ;", "END", "end transaction", "COMMIT WORK", "commit and chain",
		"COMMIT AND NO CHAIN;", "/* tx */ COMMIT -- done", "\n\tEND/**/;",
	}
	no := []string{
		"", "COMMITTED", "SELECT 'COMMIT'", "ROLLBACK", "COMMIT; SELECT 1", "COMMIT PREPARED 'x'",
		"/* COMMIT", "-- COMMIT", "END LOOP", "COMMIT WORK WORK", "COMMIT AND", "BEGIN",
	}
	for _, q := range yes {
		require.True(t, isPGCommit(q), q)
	}
	for _, q := range no {
		require.False(t, isPGCommit(q), q)
	}
}

func TestIsPGLockingStatement(t *testing.T) {
	for sql, want := range map[string]bool{
		"UPDATE outbox SET status = 'processing' WHERE id = $1":            true,
		"  /* claim */ delete from t":                                      true,
		"MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE":     true,
		"SELECT id FROM t WHERE status = 'pending' FOR UPDATE SKIP LOCKED": true,
		"select id from t for no key update nowait":                        true,
		"SELECT id FROM t FOR SHARE":                                       true,
		"SELECT id FROM t FOR KEY SHARE OF t":                              true,
		"(SELECT id FROM t FOR UPDATE)":                                    true,
		"WITH c AS (SELECT id FROM t LIMIT 10 FOR UPDATE SKIP LOCKED) UPDATE t SET s = 1 FROM c WHERE t.id = c.id": true,
		"WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d":                                                    true,
		"SELECT pg_advisory_xact_lock(hashtextextended('relay:' || $1, 0))":                                        true,
		"select PG_ADVISORY_LOCK_SHARED (42)":                                                                      true,
		"WITH k AS (SELECT 7 AS id) SELECT pg_advisory_lock(id) FROM k":                                            true,
		"SELECT pg_try_advisory_xact_lock(1)":                                                                      false,
		"SELECT pg_advisory_unlock(1)":                                                                             false,
		"SELECT 'pg_advisory_lock(1)'":                                                                             false,
		"SELECT id FROM t":                                                                                         false,
		"SELECT 'for update' FROM t":                                                                               false,
		"SELECT substring(s from 1 for 2) FROM t":                                                                  false,
		"WITH c AS (SELECT 1) SELECT * FROM c":                                                                     false,
		"INSERT INTO t VALUES (1)":                                                                                 false,
		"COMMIT":                                                                                                   false,
		"-- UPDATE\nSELECT 1":                                                                                      false,
	} {
		require.Equal(t, want, isPGLockingStatement(sql), sql)
	}
}

// pgScan runs a scanner over in, cut at k, and lists each message ended:
// its type (or untyped code) and captured length.
func pgScan(server bool, in string, k int) (got []string, opaque bool) {
	s := newPGScanner(server)
	for _, chunk := range []string{in[:k], in[k:]} {
		b := []byte(chunk)
		for {
			n, ev := s.next(b)
			b = b[n:]
			if ev == pgNone {
				break
			}
			if ev == pgEnd {
				switch {
				case s.answer:
					got = append(got, "answer "+string(s.typ))
				case s.typ == 0:
					got = append(got, fmt.Sprint("untyped ", s.code))
				default:
					got = append(got, string(s.typ)+" "+strings.Repeat("x", min(len(s.payload), 3)))
				}
			}
		}
	}
	return got, s.opaque
}

func TestPGScannerReadsTheClientAtEverySplit(t *testing.T) {
	in := pgSSLRequest + pgStartupMsg + pgQ("SELECT 1") + parseMsg("", strings.Repeat("x", 5000)) + pgSync
	for k := 0; k <= len(in); k++ {
		got, opaque := pgScan(false, in, k)
		require.False(t, opaque)
		require.Equal(t, []string{"untyped 80877103", "untyped 196608", "Q xxx", "P xxx", "S "}, got, "split at %d", k)
	}
}

func TestPGScannerTellsSSLAnswersFromMessages(t *testing.T) {
	auth := pgMsg('R', "\x00\x00\x00\x00")
	in := "N" + auth + pgNotice(pgNoticeResponse, "01000", "w") + pgReady
	for k := 0; k <= len(in); k++ {
		got, opaque := pgScan(true, in, k)
		require.False(t, opaque)
		require.Equal(t, []string{"answer N", "R xxx", "N xxx", "Z x"}, got, "split at %d", k)
	}
	// A notice or a parameter status first: a filter added to an open
	// connection.
	in = pgNotice(pgNoticeResponse, "01000", "w") + pgMsg('S', "a\x00b\x00") + pgReady
	got, _ := pgScan(true, in, 1)
	require.Equal(t, []string{"N xxx", "S xxx", "Z x"}, got)

	got, opaque := pgScan(true, "S\x16\x03\x03\x00\x10", 1)
	require.Equal(t, []string{"answer S"}, got, "TLS accepted")
	require.True(t, opaque)
	_, opaque = pgScan(false, pgSSLRequest+"\x16\x03\x01\x02\x00", 3)
	require.True(t, opaque, "the client's TLS hello")
	_, opaque = pgScan(false, pgUntyped(1234, "x"), 0)
	require.True(t, opaque, "an unknown startup code")
	_, opaque = pgScan(true, "Z\x00\x00\x00\x05I"+"\x01\x00\x00\x00\x04", 0)
	require.True(t, opaque, "an unknown message type")
}

func TestPGErrorResponseFields(t *testing.T) {
	f := pgFields(pgMessage(0, nil)[5:])
	require.Empty(t, f)
	m := pgErrDeadlock.response()
	require.Equal(t, byte(pgErrorResponse), m[0])
	require.Equal(t, len(m)-1, int(binary.BigEndian.Uint32(m[1:5])))
	require.Equal(t, byte(0), m[len(m)-1])
	require.Equal(t, map[byte]string{'S': "ERROR", 'V': "ERROR", 'C': "40P01", 'M': "deadlock detected", 'H': "See server log for query details."}, pgFields(m[5:]))
	require.NotContains(t, pgFields(pgErrLockTimeout.response()[5:]), byte('H'))
}
