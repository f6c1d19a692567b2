package faultproxy

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
)

// PostgreSQL frontend/backend protocol (version 3) facts used here. Every
// message after startup is a type byte, then a big-endian int32 length
// counting itself and the body, then the body. The client's first
// messages have no type byte: the int32 length, then an int32 code (the
// protocol version 3.x of a StartupMessage, or the SSLRequest,
// GSSENCRequest or CancelRequest code). The server answers an SSLRequest
// or GSSENCRequest with one byte, 'N' (go on in plain text), 'S' (TLS) or
// 'G' (GSSAPI encryption); the proxy only relays that answer.
const (
	pgCaptureSize  = 4096
	pgMaxStartup   = 10000 // the server refuses longer startup packets
	pgMaxMessage   = 1 << 30
	pgCodeSSL      = 80877103
	pgCodeGSSENC   = 80877104
	pgCodeCancel   = 80877102
	pgProtocolMask = 0xffff0000
	pgProtocol3    = 3 << 16
)

// Message types this package reads or writes.
const (
	pgQuery           = 'Q' // frontend: simple query, the SQL text
	pgParse           = 'P' // frontend: statement name, SQL text, parameter types
	pgBind            = 'B' // frontend: portal name, statement name, ...
	pgExecute         = 'E' // frontend: portal name, row limit
	pgClose           = 'C' // frontend: 'S' or 'P', then the name
	pgCommandComplete = 'C' // backend: the command tag
	pgErrorResponse   = 'E' // backend: fields
	pgNoticeResponse  = 'N' // backend: fields
	pgReadyForQuery   = 'Z' // backend: transaction status I, T or E
	pgSyncType        = 'S' // frontend: the end of an extended-protocol batch
	pgEmptyQuery      = 'I' // backend: an empty query's completion
	pgPortalSuspended = 's' // backend: an Execute stopped at its row limit
)

// frontendTypes and backendTypes are the message types each side sends;
// anything else means the stream is misread (or encrypted): it is opaque.
var (
	frontendTypes = []byte("BCcdDEfFHpPQSX")
	backendTypes  = []byte("123AcCdDEGHIKnNRsStTvVWZ")
)

type pgEvent int

const (
	pgNone   pgEvent = iota
	pgStart          // a message begins (nothing consumed yet; first is its first byte)
	pgHeader         // its type and length are known
	pgEnd            // its body is complete
)

// pgScanner walks one direction of a PostgreSQL connection incrementally.
// It captures the first pgCaptureSize bytes of each body and skips the
// rest. On the server's side a single-byte answer to an SSLRequest or a
// GSSENCRequest is told from a message of the same type ('N' notice, 'S'
// parameter status, 'G' copy-in) by the byte after it: a message's length
// starts with 0x00. A scanner that cannot read its stream (TLS or GSSAPI
// encryption, a misread length) becomes opaque and reports nothing more.
type pgScanner struct {
	server bool
	opaque bool

	inMsg     bool
	first     byte
	hdr       [5]byte
	hdrN      int
	hdrLen    int // 5 for a typed message, 4 for an untyped one
	inPayload bool
	left      int
	// answerable: the server may send a single-byte answer next (no
	// message read yet, or after an 'N' answer).
	answerable bool
	// encRequested: the client asked for TLS or GSSAPI encryption; its
	// next message is untyped unless the server said yes.
	encRequested bool

	typ     byte // 0 for an untyped message
	code    uint32
	length  int // the body's length
	answer  bool
	payload []byte
	pending []pgEvent
}

func newPGScanner(server bool) pgScanner { return pgScanner{server: server, answerable: server} }

// next consumes data up to and including the next event and returns how
// many bytes it consumed and the event (pgNone when data ran out first).
func (s *pgScanner) next(data []byte) (int, pgEvent) {
	if ev, ok := s.popEvent(); ok {
		return 0, ev
	}
	if s.opaque {
		return len(data), pgNone
	}
	if !s.inMsg && len(data) > 0 {
		s.startMessage(data[0])
		return 0, pgStart
	}
	i := 0
	for i < len(data) && len(s.pending) == 0 && !s.opaque {
		if !s.inPayload {
			i += s.readHeader(data[i:])
			continue
		}
		k := min(s.left, len(data)-i)
		if room := pgCaptureSize - len(s.payload); room > 0 {
			s.payload = append(s.payload, data[i:i+min(k, room)]...)
		}
		s.left -= k
		i += k
		if s.left == 0 {
			s.endMessage()
		}
	}
	if ev, ok := s.popEvent(); ok {
		return i, ev
	}
	return i, pgNone
}

// more says whether next has anything left to report.
func (s *pgScanner) more(data []byte) bool { return len(data) > 0 || len(s.pending) > 0 }

func (s *pgScanner) popEvent() (pgEvent, bool) {
	if len(s.pending) == 0 {
		return pgNone, false
	}
	ev := s.pending[0]
	s.pending = s.pending[1:]
	return ev, true
}

func (s *pgScanner) startMessage(first byte) {
	s.inMsg, s.first, s.hdrN, s.answer = true, first, 0, false
	s.hdrLen = 5
	if !s.server && first == 0 {
		s.hdrLen = 4
	}
	if !s.server && s.encRequested && first != 0 {
		s.opaque = true // the server said yes to TLS or GSSAPI
	}
}

// readHeader consumes header bytes of the current message and returns how
// many. A single-byte answer ends before the byte that tells it apart.
func (s *pgScanner) readHeader(data []byte) int {
	if s.hdrN == 1 && s.answerable && isAnswerByte(s.hdr[0]) && data[0] != 0 {
		s.endAnswer()
		return 0
	}
	end := s.hdrLen
	if s.hdrN == 0 && s.answerable && isAnswerByte(data[0]) {
		end = 1 // it may be all there is of this answer
	}
	k := copy(s.hdr[s.hdrN:end], data)
	s.hdrN += k
	if s.hdrN == s.hdrLen {
		s.startPayload()
	}
	return k
}

func isAnswerByte(b byte) bool { return b == 'N' || b == 'S' || b == 'G' }

func (s *pgScanner) endAnswer() {
	s.typ, s.length, s.answer = s.hdr[0], 0, true
	s.payload = s.payload[:0]
	s.inMsg = false
	if s.typ != 'N' {
		s.opaque = true // TLS or GSSAPI follows
	}
	s.pending = append(s.pending, pgHeader, pgEnd)
}

func (s *pgScanner) startPayload() {
	n := int(binary.BigEndian.Uint32(s.hdr[s.hdrLen-4 : s.hdrLen]))
	s.typ = 0
	if s.hdrLen == 5 {
		s.typ = s.hdr[0]
	}
	if !s.validHeader(n) {
		s.opaque = true
		return
	}
	s.answerable = false
	s.length, s.left, s.inPayload = n-4, n-4, true
	s.payload = s.payload[:0]
	s.pending = append(s.pending, pgHeader)
	if s.left == 0 {
		s.endMessage()
	}
}

func (s *pgScanner) validHeader(n int) bool {
	switch {
	case s.typ == 0:
		return n >= 8 && n <= pgMaxStartup
	case n < 4 || n > pgMaxMessage:
		return false
	case s.server:
		return bytes.IndexByte(backendTypes, s.typ) >= 0
	}
	return bytes.IndexByte(frontendTypes, s.typ) >= 0
}

func (s *pgScanner) endMessage() {
	s.inPayload, s.inMsg = false, false
	if s.typ == 0 {
		s.endUntyped()
	}
	s.pending = append(s.pending, pgEnd)
}

// endUntyped checks an untyped message's code: a startup, an encryption
// request (the next message may be encrypted) or a cancel request.
func (s *pgScanner) endUntyped() {
	s.code = binary.BigEndian.Uint32(s.payload[:4])
	s.encRequested = s.code == pgCodeSSL || s.code == pgCodeGSSENC
	if !s.encRequested && s.code != pgCodeCancel && s.code&pgProtocolMask != pgProtocol3 {
		s.opaque = true
	}
}

// complete says whether the whole body of the message just ended was
// captured.
func (s *pgScanner) complete() bool { return s.length <= pgCaptureSize }

// pgMessage builds a typed message.
func pgMessage(typ byte, body []byte) []byte {
	m := make([]byte, 5, 5+len(body))
	m[0] = typ
	binary.BigEndian.PutUint32(m[1:], uint32(4+len(body)))
	return append(m, body...)
}

// pgQueryMessage is a simple-protocol Query of sql.
func pgQueryMessage(sql string) []byte { return pgMessage(pgQuery, cstring(nil, sql)) }

// pgParseMessage is a Parse of sql as the prepared statement name, with
// no parameter types.
func pgParseMessage(name, sql string) []byte {
	return pgMessage(pgParse, append(cstring(cstring(nil, name), sql), 0, 0))
}

func cstring(b []byte, s string) []byte { return append(append(b, s...), 0) }

// cstrings reads n NUL-terminated strings from the start of body; ok is
// false when it holds fewer.
func cstrings(body []byte, n int) (out []string, rest []byte, ok bool) {
	for range n {
		i := bytes.IndexByte(body, 0)
		if i < 0 {
			return nil, nil, false
		}
		out = append(out, string(body[:i]))
		body = body[i+1:]
	}
	return out, body, true
}

// pgFields reads the fields of an ErrorResponse or NoticeResponse body:
// a code byte, a NUL-terminated value, ..., ending with a 0 byte.
func pgFields(body []byte) map[byte]string {
	f := map[byte]string{}
	for len(body) > 1 && body[0] != 0 {
		i := bytes.IndexByte(body[1:], 0)
		if i < 0 {
			break
		}
		f[body[0]] = string(body[1 : 1+i])
		body = body[2+i:]
	}
	return f
}

// pgErrorReply is one error the sql-error fault answers with on
// PostgreSQL: the SQLSTATE, message and hint the server gives for it.
type pgErrorReply struct {
	sqlState string
	message  string
	hint     string
}

// The answers of a busy PostgreSQL table (PostgreSQL's errcodes and the
// messages of its lock manager and executor).
var (
	pgErrDeadlock      = pgErrorReply{"40P01", "deadlock detected", "See server log for query details."}
	pgErrSerialization = pgErrorReply{"40001", "could not serialize access due to concurrent update", ""}
	pgErrLockTimeout   = pgErrorReply{"55P03", "canceling statement due to lock timeout", ""}
	// pgErrReadOnly is a hot standby, or default_transaction_read_only
	// set during a failover, refusing a write.
	pgErrReadOnly = pgErrorReply{"25006", "cannot execute UPDATE in a read-only transaction", ""}
)

// response is the ErrorResponse of e: severity (S, and V, never
// localized), SQLSTATE (C), message (M) and the hint (H) when it has one.
func (e pgErrorReply) response() []byte {
	body := cstring([]byte{'S'}, "ERROR")
	body = cstring(append(body, 'V'), "ERROR")
	body = cstring(append(body, 'C'), e.sqlState)
	body = cstring(append(body, 'M'), e.message)
	if e.hint != "" {
		body = cstring(append(body, 'H'), e.hint)
	}
	return pgMessage(pgErrorResponse, append(body, 0))
}

// pgWords splits PostgreSQL SQL into upper-cased words (letters, digits,
// '_' and '$'), skipping whitespace and comments (-- to the end of the
// line, nested /* */). Each other token becomes a word of its own: a
// quoted string or identifier, a dollar-quoted string, ';' or any other
// character. ok is false when a comment, string or identifier is left
// open.
func pgWords(sql string) (words []string, ok bool) {
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return words, true
			}
			i += j + 1
		case strings.HasPrefix(sql[i:], "/*"):
			j := blockCommentEnd(sql[i:])
			if j < 0 {
				return nil, false
			}
			i += j
		case c == '\'' || c == '"':
			j := quotedEnd(sql[i:], c, c == '\'' && escapeString(sql, i))
			if j < 0 {
				return nil, false
			}
			words = append(words, sql[i:i+j])
			i += j
		case c == '$' && dollarTag(sql[i:]) != "":
			tag := dollarTag(sql[i:])
			j := strings.Index(sql[i+len(tag):], tag)
			if j < 0 {
				return nil, false
			}
			words = append(words, "$$")
			i += len(tag) + j + len(tag)
		case isWordByte(c):
			j := i
			for j < len(sql) && (isWordByte(sql[j]) || sql[j] == '$') {
				j++
			}
			words = append(words, strings.ToUpper(sql[i:j]))
			i = j
		default:
			words = append(words, sql[i:i+1])
			i++
		}
	}
	return words, true
}

// blockCommentEnd is the length of the nested /* */ comment s starts
// with, or -1 when it is not closed.
func blockCommentEnd(s string) int {
	depth := 0
	for i := 0; i+1 < len(s); i++ {
		switch {
		case s[i] == '/' && s[i+1] == '*':
			depth++
			i++
		case s[i] == '*' && s[i+1] == '/':
			depth--
			i++
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// escapeString says whether the quote at sql[i] opens an escape string
// (E'...'), in which a backslash escapes the next character.
func escapeString(sql string, i int) bool {
	return i > 0 && (sql[i-1] == 'E' || sql[i-1] == 'e') && (i == 1 || !isWordByte(sql[i-2]))
}

// quotedEnd is the length of the string or identifier quoted by q that s
// starts with (a doubled quote stays inside; with escapes, so does a
// backslash and the character after it), or -1 when it is not closed.
func quotedEnd(s string, q byte, escapes bool) int {
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && escapes:
			i++
		case s[i] == q && i+1 < len(s) && s[i+1] == q:
			i++
		case s[i] == q:
			return i + 1
		}
	}
	return -1
}

// dollarTag is the $tag$ that opens a dollar-quoted string at the start
// of s, or "".
func dollarTag(s string) string {
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '$':
			return s[:i+1]
		case !isWordByte(s[i]) || i == 1 && s[i] >= '0' && s[i] <= '9':
			return ""
		}
	}
	return ""
}

// isPGCommit says whether sql is one COMMIT statement: COMMIT or END,
// optionally WORK or TRANSACTION, optionally AND [NO] CHAIN, in any case,
// with whitespace, comments and a trailing semicolon. COMMIT PREPARED is
// not one (it ends a two-phase transaction, not the session's).
func isPGCommit(sql string) bool {
	words, ok := pgWords(sql)
	if !ok || len(words) == 0 || words[0] != "COMMIT" && words[0] != "END" {
		return false
	}
	words = words[1:]
	if len(words) > 0 && words[len(words)-1] == ";" {
		words = words[:len(words)-1]
	}
	if len(words) > 0 && (words[0] == "WORK" || words[0] == "TRANSACTION") {
		words = words[1:]
	}
	switch strings.Join(words, " ") {
	case "", "AND CHAIN", "AND NO CHAIN":
		return true
	}
	return false
}

// isPGLockingStatement says whether sql takes row locks, so PostgreSQL
// could answer it with a deadlock, a serialization failure or a lock
// timeout: UPDATE, DELETE or MERGE; a SELECT with a locking clause (FOR
// UPDATE, FOR NO KEY UPDATE, FOR SHARE, FOR KEY SHARE); a WITH statement
// holding any of these (a CTE that claims rows with FOR UPDATE SKIP
// LOCKED and updates them); a SELECT or WITH calling an advisory lock
// function that waits (pg_advisory_lock, pg_advisory_xact_lock and their
// _shared forms: a relay taking turns under one meets the same deadlock
// and lock timeout; the pg_try_ forms never wait). Words inside strings
// and comments do not count.
func isPGLockingStatement(sql string) bool {
	words, ok := pgWords(sql)
	for len(words) > 0 && words[0] == "(" {
		words = words[1:]
	}
	if !ok || len(words) == 0 {
		return false
	}
	switch words[0] {
	case "UPDATE", "DELETE", "MERGE":
		return true
	case "SELECT":
		return hasLockingClause(words) || callsWaitingAdvisoryLock(words)
	case "WITH":
		return hasLockingClause(words) || callsWaitingAdvisoryLock(words) ||
			containsWord(words, "UPDATE") || containsWord(words, "DELETE") || containsWord(words, "MERGE")
	}
	return false
}

// isPGWriteStatement says whether a read-only transaction refuses sql: an
// INSERT, or a locking statement other than an advisory lock
// (isPGLockingStatement: PostgreSQL refuses SELECT ... FOR UPDATE there).
func isPGWriteStatement(sql string) bool {
	words, ok := pgWords(sql)
	for len(words) > 0 && words[0] == "(" {
		words = words[1:]
	}
	if !ok || len(words) == 0 {
		return false
	}
	switch words[0] {
	case "INSERT", "UPDATE", "DELETE", "MERGE":
		return true
	case "SELECT":
		return hasLockingClause(words)
	case "WITH":
		return hasLockingClause(words) || containsWord(words, "INSERT") ||
			containsWord(words, "UPDATE") || containsWord(words, "DELETE") || containsWord(words, "MERGE")
	}
	return false
}

// waitingAdvisoryLocks are the advisory lock functions that wait for the
// lock, upper-cased as pgWords reads them.
var waitingAdvisoryLocks = []string{"PG_ADVISORY_LOCK", "PG_ADVISORY_XACT_LOCK", "PG_ADVISORY_LOCK_SHARED", "PG_ADVISORY_XACT_LOCK_SHARED"}

// callsWaitingAdvisoryLock tells whether words call one of
// waitingAdvisoryLocks.
func callsWaitingAdvisoryLock(words []string) bool {
	for i, w := range words[:max(len(words)-1, 0)] {
		if words[i+1] == "(" && slices.Contains(waitingAdvisoryLocks, w) {
			return true
		}
	}
	return false
}

func hasLockingClause(words []string) bool {
	for i, w := range words {
		if w != "FOR" {
			continue
		}
		next := strings.Join(words[i+1:min(i+4, len(words))], " ") + " "
		for _, clause := range []string{"UPDATE ", "SHARE ", "NO KEY UPDATE ", "KEY SHARE "} {
			if strings.HasPrefix(next, clause) {
				return true
			}
		}
	}
	return false
}

func containsWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}
