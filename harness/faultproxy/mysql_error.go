package faultproxy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"strings"
	"sync"
)

const (
	mysqlRefuseToxicType = "outboxchaos_sql_error_refuse"
	mysqlAnswerToxicType = "outboxchaos_sql_error_answer"

	// sqlErrorPrefix starts every sql-error marker token.
	sqlErrorPrefix = "outboxchaos_sql_error_"

	mysqlComStmtPrepare = 0x16
	mysqlErrHeader      = 0xff
	mysqlEOFHeader      = 0xfe
)

// mysqlErrorReply is one error the sql-error fault answers with: the
// server's own code, SQLSTATE and message for it.
type mysqlErrorReply struct {
	code     uint16
	sqlState string
	message  string
}

// The two answers of a busy InnoDB table (MySQL server error reference).
var (
	errLockDeadlock    = mysqlErrorReply{1213, "40001", "Deadlock found when trying to get lock; try restarting transaction"}
	errLockWaitTimeout = mysqlErrorReply{1205, "HY000", "Lock wait timeout exceeded; try restarting transaction"}
	// errReadOnly is a server running with --read-only (or read_only set
	// during a failover) refusing a write (ER_OPTION_PREVENTS_STATEMENT).
	errReadOnly = mysqlErrorReply{1290, "HY000", "The MariaDB server is running with the --read-only option so it cannot execute this statement"}
)

// packet is the ERR packet of e as the first packet of a reply (sequence
// id 1): header 0xff, the code (2 bytes, little-endian), '#' and the
// 5-character SQLSTATE (CLIENT_PROTOCOL_41, which every current client
// sets), then the message to the end of the payload.
func (e mysqlErrorReply) packet() []byte {
	payload := []byte{mysqlErrHeader, 0, 0}
	binary.LittleEndian.PutUint16(payload[1:], e.code)
	payload = append(payload, '#')
	payload = append(payload, e.sqlState...)
	payload = append(payload, e.message...)
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), 1}, payload...)
}

// sqlError is what one sql-error fault's two toxics share. The refuser
// (upstream) replaces a share of the client's locking statements with a
// statement carrying a fresh token, so the statement never runs; the
// answerer (downstream) replaces that statement's reply with the error
// drawn for its token: an ERR packet on MySQL, an ErrorResponse on
// PostgreSQL. Draws come from the fault's seeded generator.
type sqlError struct {
	mu       sync.Mutex
	rng      *rand.Rand
	prob     float64
	postgres bool
	readOnly bool              // sql-read-only: writes refused with the read-only error
	pending  map[string][]byte // token -> the reply that answers it
	refusals
}

func newSQLError(seed int64, prob float64, store string) *sqlError {
	return &sqlError{rng: rand.New(rand.NewSource(seed)), prob: prob, postgres: store == StorePostgres, pending: map[string][]byte{}}
}

// fire draws whether a locking statement is refused and, if so, which
// error answers it; it returns the token ("" to pass).
func (s *sqlError) fire() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prob < 1 && s.rng.Float64() >= s.prob {
		return ""
	}
	reply := s.drawReply()
	token := fmt.Sprintf("%s%016x", sqlErrorPrefix, s.rng.Uint64())
	s.pending[token] = reply
	s.countRefused()
	return token
}

func (s *sqlError) hasPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending) > 0
}

// drawReply draws the error: on MySQL a deadlock or a lock wait timeout,
// one in two; on PostgreSQL a deadlock, a serialization failure or a lock
// timeout, one in three.
func (s *sqlError) drawReply() []byte {
	if s.readOnly {
		if s.postgres {
			return pgErrReadOnly.response()
		}
		return errReadOnly.packet()
	}
	if s.postgres {
		return []pgErrorReply{pgErrDeadlock, pgErrSerialization, pgErrLockTimeout}[s.rng.Intn(3)].response()
	}
	if s.rng.Intn(2) == 1 {
		return errLockWaitTimeout.packet()
	}
	return errLockDeadlock.packet()
}

// refuses says whether the fault may refuse sql on MySQL: a locking
// statement for sql-error, a write for sql-read-only.
func (s *sqlError) refuses(sql string) bool {
	if s.readOnly {
		return isWriteStatement(sql)
	}
	return isLockingStatement(sql)
}

// pgRefuses is refuses on PostgreSQL.
func (s *sqlError) pgRefuses() func(string) bool {
	if s.readOnly {
		return isPGWriteStatement
	}
	return isPGLockingStatement
}

// claimIn returns the token found in payload and its error.
func (s *sqlError) claimIn(payload []byte) (string, []byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for tok, r := range s.pending {
		if bytes.Contains(payload, []byte(tok)) {
			delete(s.pending, tok)
			return tok, r, true
		}
	}
	return "", nil, false
}

// sqlErrors holds every sql-error fault's shared state.
var sqlErrors = &registry[sqlError]{prefix: "sql-error-"}

// isLockingStatement says whether sql takes row locks, so InnoDB could
// answer it with a deadlock or a lock wait timeout: UPDATE, DELETE, or a
// SELECT with FOR UPDATE, FOR SHARE or LOCK IN SHARE MODE. Leading
// whitespace and comments are skipped; the locking clause is looked for in
// the whole text (a string literal holding it counts too).
func isLockingStatement(sql string) bool {
	words := strings.Fields(strings.ToUpper(stripLeadingComments(sql)))
	if len(words) == 0 {
		return false
	}
	switch words[0] {
	case "UPDATE", "DELETE":
		return true
	case "SELECT", "(SELECT", "WITH":
		text := " " + strings.Join(words, " ") + " "
		return strings.Contains(text, " FOR UPDATE") || strings.Contains(text, " FOR SHARE") ||
			strings.Contains(text, " LOCK IN SHARE MODE")
	}
	return false
}

// isWriteStatement says whether a server in read-only mode refuses sql:
// INSERT, UPDATE, DELETE or REPLACE (a locking read runs there).
func isWriteStatement(sql string) bool {
	words := strings.Fields(strings.ToUpper(stripLeadingComments(sql)))
	if len(words) == 0 {
		return false
	}
	switch strings.TrimLeft(words[0], "(") {
	case "INSERT", "UPDATE", "DELETE", "REPLACE":
		return true
	}
	return false
}

func stripLeadingComments(sql string) string {
	for {
		sql = strings.TrimLeft(sql, " \t\r\n\f\v")
		switch {
		case strings.HasPrefix(sql, "/*"):
			j := strings.Index(sql[2:], "*/")
			if j < 0 {
				return ""
			}
			sql = sql[j+4:]
		case strings.HasPrefix(sql, "#") || isDashComment(sql):
			j := strings.IndexByte(sql, '\n')
			if j < 0 {
				return ""
			}
			sql = sql[j+1:]
		default:
			return sql
		}
	}
}

// mysqlRefuseKind is the upstream half of sql-error.
type mysqlRefuseKind struct{}

func (mysqlRefuseKind) registry() *registry[sqlError] { return sqlErrors }
func (mysqlRefuseKind) filter(s *sqlError) filter     { return &mysqlRefuse{se: s} }

// mysqlRefuse looks at every small client command (mysqlCommands). A
// complete COM_QUERY or COM_STMT_PREPARE whose SQL is a locking statement
// is, when the fault fires, replaced by the marker query: the statement
// never reaches the server. Connections asking for TLS or compression pass
// untouched, as for lost-reply-mysql-commit.
type mysqlRefuse struct {
	se *sqlError
	mysqlCommands
	quiet
}

func (r *mysqlRefuse) process(data []byte) []byte { return scanChunk(&r.hold, &r.sc, r, data) }

func (r *mysqlRefuse) on(ev packetEvent) {
	r.onPacket(ev, func() bool { return true }, r.onCommand)
}

func (r *mysqlRefuse) onCommand(p []byte) {
	if len(p) > 0 && (p[0] == mysqlComQuery || p[0] == mysqlComStmtPrepare) && r.se.refuses(string(p[1:])) {
		if token := r.se.fire(); token != "" {
			r.emit(mysqlMarker(token))
			r.discard()
			return
		}
	}
	r.release()
}

func (r *mysqlRefuse) flush() ([]byte, bool) { return r.flushHeld() }
