package faultproxy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
)

const (
	mysqlStatementsToxicType = "outboxchaos_mysql_statements"
	mysqlResultsToxicType    = "outboxchaos_mysql_results"

	mysqlComQuit         = 0x01
	mysqlComStmtExecute  = 0x17
	mysqlComStmtSendLong = 0x18
	mysqlComStmtClose    = 0x19
	mysqlStmtPrepareOK   = 0x00
)

// isMySQLLink says whether a link leads to MySQL or MariaDB (its
// dependency, the name up to the first '/', is "mysql").
func isMySQLLink(name string) bool {
	dep, _, _ := strings.Cut(name, "/")
	return dep == StoreMySQL
}

// mysqlLinkLog is one MySQL link's share of the command log: the
// statements that failed there (doc.go, "MySQL: failed statements"). Its
// two toxics pair up per connection through connPair, as redisLinkLog's do.
type mysqlLinkLog struct {
	link string
	log  *commandLogState
	pair connPair[mysqlStmtConn]
}

var mysqlLinkLogs = &registry[mysqlLinkLog]{prefix: "mysql-statements-"}

// followStatementFailures registers a MySQL link's log and adds its two
// toxics before the link accepts a connection, so that they are first in
// each direction's chain: upstream they see the client's own statement (not
// a fault's stand-in), downstream the server's reply to what ran (a
// fault's marker too). It returns the registry key.
func followStatementFailures(tp *toxiproxy.Proxy, name string, log *commandLogState) (string, error) {
	key := mysqlLinkLogs.register(&mysqlLinkLog{link: name, log: log})
	return addLogPair(tp, mysqlLinkLogs, key, logToxic{"mysql-statements", mysqlStatementsToxicType}, logToxic{"mysql-results", mysqlResultsToxicType})
}

// mysqlStatementsKind is the upstream half of a MySQL link's log.
type mysqlStatementsKind struct{}

func (mysqlStatementsKind) registry() *registry[mysqlLinkLog] { return mysqlLinkLogs }
func (mysqlStatementsKind) filter(s *mysqlLinkLog) filter {
	c := &mysqlStmtConn{link: s, prepared: map[uint32]string{}}
	s.pair.offer(c)
	return &mysqlStatementScan{conn: c}
}

// mysqlResultsKind is the downstream half of a MySQL link's log.
type mysqlResultsKind struct{}

func (mysqlResultsKind) registry() *registry[mysqlLinkLog] { return mysqlLinkLogs }
func (mysqlResultsKind) filter(s *mysqlLinkLog) filter {
	c := s.pair.take()
	if c == nil {
		return passFilter{}
	}
	return &mysqlResultScan{conn: c}
}

// pendingStmt is the connection's last command, awaiting or reading its
// reply (the protocol has one command in flight per connection).
type pendingStmt struct {
	cmd      Command
	prepare  bool // COM_STMT_PREPARE: its OK names the statement id
	answered bool // a reply packet came, neither an error nor a fault's
}

// mysqlStmtConn is one connection's command in flight and its prepared
// statements' verbs.
type mysqlStmtConn struct {
	link *mysqlLinkLog

	mu       sync.Mutex
	pending  *pendingStmt
	prepared map[uint32]string // statement id -> its verb
	lost     bool              // a lost-reply fault drops every later reply
	ended    bool
}

// sent makes p the command in flight.
func (c *mysqlStmtConn) sent(p *pendingStmt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	if c.lost {
		c.record(p.cmd, OutcomeDropped, "", p.cmd.Sent)
		return
	}
	c.pending = p
}

// forget clears the command in flight (one that gets no reply).
func (c *mysqlStmtConn) forget() {
	c.mu.Lock()
	c.pending = nil
	c.mu.Unlock()
}

// reply reads one packet of the server's reply (its payload, cut at
// mysqlCaptureSize).
func (c *mysqlStmtConn) reply(payload []byte, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pending
	if p == nil || c.lost || c.ended || len(payload) == 0 {
		return
	}
	switch {
	case bytes.Contains(payload, []byte(markerPrefix)):
		c.lost = true // lost-reply-mysql-commit: its marker's reply, then none
		c.pending = nil
		c.record(p.cmd, OutcomeDropped, "", at)
	case bytes.Contains(payload, []byte(sqlErrorPrefix)):
		c.pending = nil
		c.record(p.cmd, OutcomeError, "refused by a fault (sql-error or sql-read-only)", at)
	case payload[0] == mysqlErrHeader:
		c.pending = nil
		c.record(p.cmd, OutcomeError, mysqlErrText(payload), at)
	case p.prepare && !p.answered && payload[0] == mysqlStmtPrepareOK && len(payload) >= 5:
		c.prepared[binary.LittleEndian.Uint32(payload[1:5])] = p.cmd.Name
		p.answered = true
	default:
		p.answered = true
	}
}

// end settles the command in flight: the connection is gone before its
// reply.
func (c *mysqlStmtConn) end(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.ended = true
	if p := c.pending; p != nil && !p.answered {
		c.record(p.cmd, OutcomeClosed, "", at)
	}
	c.pending = nil
}

// record keeps a failed command (a prepare that failed too: its statement
// never ran).
func (c *mysqlStmtConn) record(cmd Command, outcome, text string, at time.Time) {
	cmd.Outcome, cmd.Reply, cmd.Replied = outcome, text, at
	c.link.log.record(cmd)
}

// verb is c's name in the log: the first word of its SQL, upper case, for
// a query or a prepared statement's execute ("UPDATE", "COMMIT"), else
// the command's number ("COM_0E").
func (c *mysqlStmtConn) verb(payload []byte) string {
	switch payload[0] {
	case mysqlComQuery, mysqlComStmtPrepare:
		return sqlVerb(string(payload[1:]))
	case mysqlComStmtExecute:
		if len(payload) >= 5 {
			c.mu.Lock()
			v, ok := c.prepared[binary.LittleEndian.Uint32(payload[1:5])]
			c.mu.Unlock()
			if ok {
				return v
			}
		}
		return "EXECUTE"
	}
	return fmt.Sprintf("COM_%02X", payload[0])
}

// sqlVerb is the first word of sql, upper case, after comments ("?" for
// none).
func sqlVerb(sql string) string {
	w := strings.Fields(stripLeadingComments(sql))
	if len(w) == 0 {
		return "?"
	}
	v := strings.ToUpper(strings.TrimRight(w[0], ";"))
	return strings.TrimLeft(v, "(")
}

// isWriteVerb says whether a statement of verb v writes, or ends a
// transaction's writes.
func isWriteVerb(v string) bool {
	switch v {
	case "UPDATE", "INSERT", "DELETE", "REPLACE", "COMMIT":
		return true
	}
	return false
}

// mysqlErrText is an ERR packet's code and message, cut.
func mysqlErrText(payload []byte) string {
	if len(payload) < 3 {
		return "an error packet"
	}
	code := binary.LittleEndian.Uint16(payload[1:3])
	msg := payload[3:]
	if len(msg) >= 6 && msg[0] == '#' {
		msg = msg[6:]
	}
	s := fmt.Sprintf("%d %s", code, msg)
	if len(s) > replyTextLimit {
		s = s[:replyTextLimit]
	}
	return s
}

// mysqlStatementScan reads the client's commands (packets of sequence id
// 0) and forwards every byte at once.
type mysqlStatementScan struct {
	conn *mysqlStmtConn
	mysqlCommands
	quiet
}

func (m *mysqlStatementScan) process(data []byte) []byte {
	return scanChunk(&m.hold, &m.sc, m, data)
}

func (m *mysqlStatementScan) on(ev packetEvent) {
	switch ev {
	case pktHeader:
		m.cont, m.prevMax = m.prevMax, m.sc.length == mysqlMaxPacket
	case pktEnd:
		m.checkHandshake()
		if m.sc.seq != 0 || m.cont || len(m.sc.payload) == 0 {
			return
		}
		m.command(m.sc.payload)
	}
}

func (m *mysqlStatementScan) command(p []byte) {
	switch p[0] {
	case mysqlComQuit, mysqlComStmtClose, mysqlComStmtSendLong:
		m.conn.forget() // no reply comes
		return
	}
	v := m.conn.verb(p)
	cmd := Command{Link: m.conn.link.link, Name: v, Write: isWriteVerb(v), Sent: time.Now().UTC()}
	m.conn.sent(&pendingStmt{cmd: cmd, prepare: p[0] == mysqlComStmtPrepare})
}

func (m *mysqlStatementScan) flush() ([]byte, bool) {
	m.conn.end(time.Now().UTC())
	return m.flushHeld()
}

// mysqlResultScan reads the server's packets and settles the command in
// flight; it forwards every byte at once.
type mysqlResultScan struct {
	conn *mysqlStmtConn
	sc   packetScanner
	hold
	quiet
}

func (m *mysqlResultScan) process(data []byte) []byte {
	return scanChunk(&m.hold, &m.sc, m, data)
}

func (m *mysqlResultScan) mode() scanMode { return scanOn }

func (m *mysqlResultScan) on(ev packetEvent) {
	if ev == pktEnd {
		m.conn.reply(m.sc.payload, time.Now().UTC())
	}
}

func (m *mysqlResultScan) flush() ([]byte, bool) {
	m.conn.end(time.Now().UTC())
	return m.flushHeld()
}
