package faultproxy

const pgCommitHoldToxicType = "outboxchaos_commit_hold_postgres"

// pgCommitHoldKind is the one (upstream) toxic of commit-hold-postgres.
type pgCommitHoldKind struct{}

func (pgCommitHoldKind) registry() *registry[commitHold] { return commitHolds }
func (pgCommitHoldKind) pgFilter(s *commitHold, known *pgStatements) filter {
	return &pgCommitHoldFilter{parking: parking{ch: s, idx: -1}, pgCommands: newPGCommands(isPGCommit, known)}
}

// pgCommitHoldFilter finds the client's COMMITs (pgCommands: a Query of a
// COMMIT or END, or an Execute of a portal bound to one). The first one
// the fault may hold is kept back, with everything the client sends after
// it, for the fault's hold; then it all goes on and the connection passes
// untouched. The transaction's statements ran and keep their row locks
// meanwhile.
type pgCommitHoldFilter struct {
	parking
	pgCommands
}

func (w *pgCommitHoldFilter) process(data []byte) []byte {
	return scanChunk(&w.hold, &w.sc, w, data)
}

func (w *pgCommitHoldFilter) mode() scanMode { return w.parkMode(w.pgCommands.mode()) }

func (w *pgCommitHoldFilter) on(ev pgEvent) { w.onMessage(ev, w.ch.canHold, w.onCommit) }

func (w *pgCommitHoldFilter) onCommit() {
	if !w.park() {
		w.release()
	}
}

// wake ends the hold: the COMMIT and all after it go on.
func (w *pgCommitHoldFilter) wake() []byte {
	w.unpark()
	out, _ := w.flushHeld()
	return out
}

func (w *pgCommitHoldFilter) flush() ([]byte, bool) {
	w.end()
	return w.flushHeld()
}
