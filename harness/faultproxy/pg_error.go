package faultproxy

const (
	pgRefuseToxicType = "outboxchaos_sql_error_postgres_refuse"
	pgAnswerToxicType = "outboxchaos_sql_error_postgres_answer"
)

// pgRefuseKind is the upstream half of sql-error on PostgreSQL.
type pgRefuseKind struct{}

func (pgRefuseKind) registry() *registry[sqlError] { return sqlErrors }
func (pgRefuseKind) pgFilter(s *sqlError, known *pgStatements) filter {
	return &pgRefuse{se: s, pgCommands: newPGCommands(s.pgRefuses(), known)}
}

// pgRefuse finds the client's locking statements (pgCommands: a Query of
// one, or an Execute of a portal bound to one) and, when the fault fires,
// replaces the message that would run it with a statement that fails on
// the server with the token in its error message (pgRefusal): the locking
// statement never runs, and the server itself fails the statement in its
// place, so its transaction is aborted and its ReadyForQuery says so, as
// a real lock conflict leaves it.
type pgRefuse struct {
	se *sqlError
	pgCommands
	quiet
}

func (r *pgRefuse) process(data []byte) []byte { return scanChunk(&r.hold, &r.sc, r, data) }

func (r *pgRefuse) on(ev pgEvent) {
	r.onMessage(ev, func() bool { return true }, r.onLocking)
}

func (r *pgRefuse) onLocking() {
	token := r.se.fire()
	if token == "" {
		r.release()
		return
	}
	r.discard()
	r.emit(pgRefusal(r.sc.typ, token))
}

func (r *pgRefuse) flush() ([]byte, bool) { return r.flushHeld() }

// pgRefusal is what replaces a refused Query or Execute: a statement whose
// parse analysis fails (a cast of the token to integer: SQLSTATE 22P02,
// the token quoted in the message), before it could touch a row. A Query
// becomes a Query of it; an Execute becomes a Parse of it as a prepared
// statement named by the token, so the client's unnamed statement and
// portals stay as they were, and the server skips the rest of the
// client's batch up to its Sync, as after any error there. In a
// transaction that had already failed, the server answers with its own
// 25P02 instead, which is what it would have answered the locking
// statement too.
func pgRefusal(typ byte, token string) []byte {
	sql := "SELECT '" + token + "'::int"
	if typ == pgQuery {
		return pgQueryMessage(sql)
	}
	return pgParseMessage(token, sql)
}

// pgAnswerKind is the downstream half of sql-error on PostgreSQL.
type pgAnswerKind struct{}

func (pgAnswerKind) registry() *registry[sqlError] { return sqlErrors }
func (pgAnswerKind) filter(s *sqlError) filter     { return &pgAnswer{se: s, sc: newPGScanner(true)} }

// pgAnswer replaces the server's ErrorResponse to a refusal (found by the
// token it quotes) with the ErrorResponse drawn for that token. While a
// token is pending it holds each ErrorResponse until it is complete (the
// server is bound to finish it); every other message passes as it is
// read, the ReadyForQuery after the error included: its transaction
// status is the server's own.
type pgAnswer struct {
	se *sqlError
	sc pgScanner
	hold
	quiet
}

func (a *pgAnswer) process(data []byte) []byte { return scanChunk(&a.hold, &a.sc, a, data) }

func (a *pgAnswer) mode() scanMode {
	if a.sc.opaque {
		return scanPass
	}
	return scanOn
}

func (a *pgAnswer) on(ev pgEvent) {
	switch ev {
	case pgStart:
		a.holding = a.sc.first == pgErrorResponse && a.se.hasPending()
	case pgHeader:
		if a.holding && !a.sc.complete() {
			a.release()
		}
	case pgEnd:
		a.onError()
	}
}

func (a *pgAnswer) onError() {
	if !a.holding {
		return
	}
	if _, reply, ok := a.se.claimIn(a.sc.payload); ok {
		a.discard()
		a.emit(reply)
		a.se.countAnswered()
		return
	}
	a.release()
}

func (a *pgAnswer) flush() ([]byte, bool) { return a.flushHeld() }
