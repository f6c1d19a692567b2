package faultproxy

import (
	"bytes"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
)

const (
	pgFailuresToxicType = "outboxchaos_postgres_failures"
	pgRepliesToxicType  = "outboxchaos_postgres_replies"
)

// pgLinkLog is one PostgreSQL link's share of the command log: the
// statements that failed there (doc.go, "PostgreSQL: failed statements").
// Its two toxics pair up per connection through connPair, as mysqlLinkLog's
// do.
type pgLinkLog struct {
	link  string
	log   *commandLogState
	known *pgStatements // the link's prepared statements; may be nil
	pair  connPair[pgStmtConn]
}

var pgLinkLogs = &registry[pgLinkLog]{prefix: "pg-failures-"}

// followPGFailures registers a PostgreSQL link's log and adds its two
// toxics before the link accepts a connection, first in each direction's
// chain: upstream they see the client's own statement (not a fault's
// stand-in), downstream the server's reply to what ran (a fault's stand-in
// too, whose error names its token). known is the key of the link's
// statements. It returns the registry key.
func followPGFailures(tp *toxiproxy.Proxy, name, known string, log *commandLogState) (string, error) {
	key := pgLinkLogs.register(&pgLinkLog{link: name, log: log, known: pgStatementSets.lookup(known)})
	return addLogPair(tp, pgLinkLogs, key, logToxic{"postgres-failures", pgFailuresToxicType}, logToxic{"postgres-replies", pgRepliesToxicType})
}

// pgFailuresKind is the upstream half of a PostgreSQL link's log.
type pgFailuresKind struct{}

func (pgFailuresKind) registry() *registry[pgLinkLog] { return pgLinkLogs }
func (pgFailuresKind) filter(s *pgLinkLog) filter {
	c := &pgStmtConn{link: s}
	s.pair.offer(c)
	return &pgStatementScan{conn: c, sc: newPGScanner(false), stmts: map[string]string{}, portals: map[string]string{}}
}

// pgRepliesKind is the downstream half of a PostgreSQL link's log.
type pgRepliesKind struct{}

func (pgRepliesKind) registry() *registry[pgLinkLog] { return pgLinkLogs }
func (pgRepliesKind) filter(s *pgLinkLog) filter {
	c := s.pair.take()
	if c == nil {
		return passFilter{}
	}
	return &pgReplyScan{conn: c, sc: newPGScanner(true)}
}

// pgUnit is what a connection awaits a reply to, in the order the client
// sent them: a simple Query (its statements answer one by one, and the
// ReadyForQuery after them ends it), an Execute of a portal (its
// CommandComplete, empty-query answer, suspension or ErrorResponse ends
// it) or a Sync (the ReadyForQuery that answers it ends it).
type pgUnit struct {
	cmd    Command
	query  bool
	sync   bool
	failed bool // a Query whose error is recorded already
}

// pgStmtConn is one connection's units awaiting replies.
type pgStmtConn struct {
	link  *pgLinkLog
	mu    sync.Mutex
	units []pgUnit
	ended bool
}

// push adds a unit; past pgMaxTracked units the connection is not followed
// any more (a client that never reads its replies).
func (c *pgStmtConn) push(u pgUnit) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ended && len(c.units) < pgMaxTracked {
		c.units = append(c.units, u)
	}
}

// reply reads one complete message of the server's.
func (c *pgStmtConn) reply(typ byte, body []byte, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended || len(c.units) == 0 {
		return
	}
	switch typ {
	case pgCommandComplete, pgEmptyQuery, pgPortalSuspended:
		if !c.units[0].query && !c.units[0].sync {
			c.units = c.units[1:]
		}
	case pgErrorResponse:
		c.failed(pgErrText(body), at)
	case pgReadyForQuery:
		for i, u := range c.units {
			if u.query || u.sync {
				c.units = c.units[i+1:]
				return
			}
		}
	}
}

// failed records the front unit's failure. After an error in an
// extended-protocol batch the server skips every message up to the Sync:
// the Executes before it never run and get no reply.
func (c *pgStmtConn) failed(text string, at time.Time) {
	u := &c.units[0]
	switch {
	case u.query:
		if !u.failed {
			u.failed = true
			c.record(u.cmd, OutcomeError, text, at)
		}
		return
	case !u.sync:
		c.record(u.cmd, OutcomeError, text, at)
	}
	i := 0
	for i < len(c.units) && !c.units[i].sync && !c.units[i].query {
		i++
	}
	c.units = c.units[i:]
}

// end settles what the connection still awaited: the connection is gone
// before its reply.
func (c *pgStmtConn) end(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.ended = true
	for _, u := range c.units {
		if !u.sync && !u.failed {
			c.record(u.cmd, OutcomeClosed, "", at)
		}
	}
	c.units = nil
}

func (c *pgStmtConn) record(cmd Command, outcome, text string, at time.Time) {
	cmd.Outcome, cmd.Reply, cmd.Replied = outcome, text, at
	c.link.log.record(cmd)
}

// pgErrText is an ErrorResponse's SQLSTATE and message, cut; a refusal of
// the sql-error or sql-read-only fault (its stand-in statement's error
// names the fault's token) says so.
func pgErrText(body []byte) string {
	if bytes.Contains(body, []byte(sqlErrorPrefix)) {
		return "refused by a fault (sql-error or sql-read-only)"
	}
	f := pgFields(body)
	s := strings.TrimSpace(f['C'] + " " + f['M'])
	if len(s) > replyTextLimit {
		s = s[:replyTextLimit]
	}
	return s
}

// pgStatementScan reads the client's messages and forwards every byte at
// once: each Query, and each Execute with the verb of the statement its
// portal was bound to, becomes a unit awaiting a reply; each Sync too.
type pgStatementScan struct {
	conn    *pgStmtConn
	sc      pgScanner
	stmts   map[string]string // prepared statement -> verb, parsed on this connection
	portals map[string]string // portal -> verb
	hold
	quiet
}

func (m *pgStatementScan) process(data []byte) []byte { return scanChunk(&m.hold, &m.sc, m, data) }

func (m *pgStatementScan) mode() scanMode {
	if m.sc.opaque {
		return scanPass
	}
	return scanOn
}

func (m *pgStatementScan) on(ev pgEvent) {
	if ev != pgEnd {
		return
	}
	body := m.sc.payload
	switch m.sc.typ {
	case pgQuery:
		if s, _, ok := cstrings(body, 1); ok || !m.sc.complete() {
			m.conn.push(pgUnit{cmd: m.command(firstOr(s, string(body))), query: true})
		}
	case pgParse:
		if s, rest, ok := cstrings(body, 1); ok && len(m.stmts) < pgMaxTracked {
			sql, _, _ := cstrings(rest, 1)
			m.stmts[s[0]] = sqlVerb(firstOr(sql, string(rest)))
		}
	case pgBind:
		if s, _, ok := cstrings(body, 2); ok && len(m.portals) < pgMaxTracked {
			m.portals[s[0]] = m.verbOf(s[1])
		}
	case pgExecute:
		if s, _, ok := cstrings(body, 1); ok {
			m.conn.push(pgUnit{cmd: m.namedCommand(m.portals[s[0]])})
		}
	case pgSyncType:
		m.conn.push(pgUnit{sync: true})
	}
}

// verbOf is a prepared statement's verb: as parsed on this connection, else
// as the link knows it (prepared before this connection's log began).
func (m *pgStatementScan) verbOf(stmt string) string {
	if v, ok := m.stmts[stmt]; ok {
		return v
	}
	if m.conn.link.known != nil {
		if sql, ok := m.conn.link.known.lookup(stmt); ok {
			return sqlVerb(sql)
		}
	}
	return ""
}

func (m *pgStatementScan) command(sql string) Command { return m.namedCommand(sqlVerb(sql)) }

func (m *pgStatementScan) namedCommand(verb string) Command {
	if verb == "" {
		verb = "EXECUTE"
	}
	return Command{Link: m.conn.link.link, Name: verb, Write: isWriteVerb(verb), Sent: time.Now().UTC()}
}

func (m *pgStatementScan) flush() ([]byte, bool) {
	m.conn.end(time.Now().UTC())
	return m.flushHeld()
}

// firstOr is s's first string, or else when s is empty (a text cut short
// of its NUL: its start is enough for a verb).
func firstOr(s []string, or string) string {
	if len(s) > 0 {
		return s[0]
	}
	return or
}

// pgReplyScan reads the server's messages and settles the connection's
// units; it forwards every byte at once.
type pgReplyScan struct {
	conn *pgStmtConn
	sc   pgScanner
	hold
	quiet
}

func (m *pgReplyScan) process(data []byte) []byte { return scanChunk(&m.hold, &m.sc, m, data) }

func (m *pgReplyScan) mode() scanMode {
	if m.sc.opaque {
		return scanPass
	}
	return scanOn
}

func (m *pgReplyScan) on(ev pgEvent) {
	if ev == pgEnd && !m.sc.answer && m.sc.typ != 0 {
		m.conn.reply(m.sc.typ, m.sc.payload, time.Now().UTC())
	}
}

func (m *pgReplyScan) flush() ([]byte, bool) {
	m.conn.end(time.Now().UTC())
	return m.flushHeld()
}
