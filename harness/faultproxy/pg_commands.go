package faultproxy

// pgMaxTracked bounds the prepared statements and portals of interest one
// connection's scan remembers; past it, new ones are not matched.
const pgMaxTracked = 4096

// pgCommands is the upstream scan every PostgreSQL filter that looks for
// one kind of statement shares (sql-error's locking statements,
// commit-hold-postgres's COMMIT). A statement runs either as a simple
// Query, whose SQL is in the message, or in the extended protocol as an
// Execute of a portal, bound (Bind) to a prepared statement whose SQL was
// in its Parse, possibly many round trips earlier (a statement cache).
// So the scan follows, per connection, which prepared statements and
// portals match (Parse, Bind, Close; a Query destroys the unnamed ones),
// and holds each Query and Execute message from its first byte, when the
// filter's capture says so, until it is complete (then the filter's
// command decides) or its header shows it is larger than pgCaptureSize
// (then it goes on). Other messages pass as they are read.
type pgCommands struct {
	sc      pgScanner
	match   func(sql string) bool
	stmts   map[string]bool // prepared statements parsed here: whether each matches
	portals map[string]bool // names of portals bound to a matching statement
	known   *pgStatements   // the link's statements, for those parsed earlier; may be nil
	hold
}

func newPGCommands(match func(sql string) bool, known *pgStatements) pgCommands {
	return pgCommands{sc: newPGScanner(false), match: match, stmts: map[string]bool{}, portals: map[string]bool{}, known: known}
}

// onMessage follows one event; command is called on a complete Query or
// Execute that matches, with the held message.
func (m *pgCommands) onMessage(ev pgEvent, capture func() bool, command func()) {
	switch ev {
	case pgStart:
		m.holding = (m.sc.first == pgQuery || m.sc.first == pgExecute) && capture()
	case pgHeader:
		if m.holding && !m.sc.complete() {
			m.release()
		}
	case pgEnd:
		if m.follow() && m.holding {
			command()
			return
		}
		m.release()
	}
}

// mode passes a connection whose stream cannot be read (encrypted).
func (m *pgCommands) mode() scanMode {
	if m.sc.opaque {
		return scanPass
	}
	return scanOn
}

// follow updates the statements and portals on a message just ended and
// says whether it runs a matching statement. The names come first in each
// message, so they are read from the captured part even of a long one; a
// statement whose SQL was not captured whole never matches.
func (m *pgCommands) follow() bool {
	body := m.sc.payload
	switch m.sc.typ {
	case pgQuery:
		m.stmts[""], m.portals[""] = false, false
		s, _, ok := cstrings(body, 1)
		return ok && m.sc.complete() && m.match(s[0])
	case pgParse:
		if s, _, ok := cstrings(body, 1); ok {
			sql, _, whole := cstrings(body[len(s[0])+1:], 1)
			m.track(m.stmts, s[0], whole && m.sc.complete() && m.match(sql[0]))
		}
	case pgBind:
		if s, _, ok := cstrings(body, 2); ok {
			m.track(m.portals, s[0], m.matches(s[1]))
		}
	case pgClose:
		m.close(body)
	case pgExecute:
		s, _, ok := cstrings(body, 1)
		return ok && m.portals[s[0]]
	}
	return false
}

// close forgets the statement ('S') or portal ('P') a Close names.
func (m *pgCommands) close(body []byte) {
	if len(body) == 0 {
		return
	}
	s, _, ok := cstrings(body[1:], 1)
	switch {
	case ok && body[0] == 'S':
		delete(m.stmts, s[0])
	case ok && body[0] == 'P':
		delete(m.portals, s[0])
	}
}

// matches says whether the prepared statement name matches: as parsed on
// this connection since the filter began, else as the link knows it (a
// statement prepared before the fault was added).
func (m *pgCommands) matches(name string) bool {
	if v, ok := m.stmts[name]; ok {
		return v
	}
	if name == "" || m.known == nil {
		return false
	}
	sql, ok := m.known.lookup(name)
	return ok && m.match(sql)
}

func (m *pgCommands) track(set map[string]bool, name string, matches bool) {
	if _, ok := set[name]; ok || len(set) < pgMaxTracked {
		set[name] = matches
	}
}
