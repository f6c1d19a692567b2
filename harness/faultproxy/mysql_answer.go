package faultproxy

import (
	"bytes"
)

// mysqlAnswerKind is the downstream half of sql-error.
type mysqlAnswerKind struct{}

func (mysqlAnswerKind) registry() *registry[sqlError] { return sqlErrors }
func (mysqlAnswerKind) filter(s *sqlError) filter     { return &mysqlAnswer{se: s} }

// Stages of mysqlAnswer.
const (
	answerPassing  = iota
	answerCount    // holding a column-count packet
	answerFirst    // holding the packet after it: column definition, or the row
	answerDropping // inside the marker's result set: dropped up to its end
)

// mysqlAnswer replaces the marker's result set with the ERR packet drawn
// for its token. It spots the result set as lost-reply-mysql-commit's
// dropper does (a column count of 1, sequence id 1, then a packet carrying
// a pending token), then drops it to its end: the row (a length-encoded
// string holding the token), then the terminator after it (EOF or OK,
// header 0xfe; an intermediate EOF after the column definition comes
// before the row). The ERR packet goes out in the result set's place, with
// sequence id 1, as the statement's reply.
type mysqlAnswer struct {
	se     *sqlError
	sc     packetScanner
	stage  int
	token  string
	reply  []byte
	sawRow bool
	hold
	quiet
}

func (a *mysqlAnswer) process(data []byte) []byte { return scanChunk(&a.hold, &a.sc, a, data) }

func (a *mysqlAnswer) mode() scanMode { return scanOn }

// release forwards what is held and goes back to passing.
func (a *mysqlAnswer) release() {
	a.hold.release()
	a.stage = answerPassing
}

func (a *mysqlAnswer) on(ev packetEvent) {
	switch {
	case ev == pktStart && a.stage == answerPassing:
		if a.se.hasPending() {
			a.holding, a.stage = true, answerCount
		}
	case ev == pktHeader && a.stage == answerCount:
		if a.sc.seq != 1 || a.sc.length < 1 || a.sc.length > 2 {
			a.release()
		}
	case ev == pktHeader && a.stage == answerFirst:
		if a.sc.length > mysqlCaptureSize {
			a.release()
		}
	case ev == pktEnd && a.stage == answerCount:
		if a.sc.payload[0] == 0x01 {
			a.stage = answerFirst
		} else {
			a.release()
		}
	case ev == pktEnd && a.stage == answerFirst:
		a.onFirst()
	case ev == pktEnd && a.stage == answerDropping:
		a.onDropped()
	}
}

func (a *mysqlAnswer) onFirst() {
	tok, reply, ok := a.se.claimIn(a.sc.payload)
	if !ok {
		a.release()
		return
	}
	a.token, a.reply, a.stage = tok, reply, answerDropping
	a.sawRow = a.isRow(a.sc.payload)
}

// isRow: a text-protocol row whose one value is the token.
func (a *mysqlAnswer) isRow(p []byte) bool {
	return len(p) == 1+len(a.token) && int(p[0]) == len(a.token) && bytes.Equal(p[1:], []byte(a.token))
}

func (a *mysqlAnswer) onDropped() {
	p := a.sc.payload
	switch {
	case !a.sawRow && a.isRow(p):
		a.sawRow = true
	case a.sawRow && len(p) > 0 && (p[0] == mysqlEOFHeader || p[0] == mysqlErrHeader):
		a.discard()
		a.stage, a.sawRow = answerPassing, false
		a.emit(a.reply)
		a.se.countAnswered()
	}
}

// flush forwards what it holds; a connection cut inside the marker's
// result set is closed instead (its statement's reply cannot be given).
func (a *mysqlAnswer) flush() ([]byte, bool) {
	if a.stage == answerDropping {
		return nil, false
	}
	a.stage = answerPassing
	return a.flushHeld()
}
