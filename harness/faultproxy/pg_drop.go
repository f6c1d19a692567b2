package faultproxy

const (
	pgDropToxicType = "outboxchaos_lost_reply_postgres_drop"

	// pgCommitTag is the body of the CommandComplete of a COMMIT (or END,
	// COMMIT AND CHAIN) that committed; one that rolled back a failed
	// transaction says ROLLBACK.
	pgCommitTag = "COMMIT\x00"
	// pgNoTransaction is the SQLSTATE of the warning a COMMIT outside a
	// transaction block gets before its CommandComplete: it committed
	// nothing.
	pgNoTransaction = "25P01"
)

// pgDropKind is the one (downstream) toxic of lost-reply-postgres-commit.
type pgDropKind struct{}

func (pgDropKind) registry() *registry[lostReply] { return lostReplies }
func (pgDropKind) filter(s *lostReply) filter {
	return &pgDrop{lr: s, sc: newPGScanner(true)}
}

// pgDrop reads the server's messages. While the fault may still fire, it
// holds each CommandComplete until it is complete (the server is bound to
// finish it); one whose tag says a COMMIT committed fires with the fault's
// probability, and then it and everything after it on the connection are
// dropped. A COMMIT right after the no-transaction warning did nothing and
// never fires.
type pgDrop struct {
	lr   *lostReply
	sc   pgScanner
	noTx bool // the message just read was the no-transaction warning
	dead bool
	hold
	quiet
}

func (d *pgDrop) process(data []byte) []byte { return scanChunk(&d.hold, &d.sc, d, data) }

func (d *pgDrop) mode() scanMode {
	switch {
	case d.dead:
		return scanDrop
	case d.sc.opaque:
		return scanPass
	}
	return scanOn
}

func (d *pgDrop) on(ev pgEvent) {
	switch ev {
	case pgStart:
		d.holding = d.sc.first == pgCommandComplete && d.lr.canFire()
	case pgHeader:
		if d.holding && d.sc.length != len(pgCommitTag) {
			d.release()
		}
	case pgEnd:
		d.onMessage()
	}
}

func (d *pgDrop) onMessage() {
	afterWarning := d.noTx
	d.noTx = d.sc.typ == pgNoticeResponse && pgFields(d.sc.payload)['C'] == pgNoTransaction
	if d.holding && string(d.sc.payload) == pgCommitTag && !afterWarning && d.lr.fireOnReply() {
		d.discard()
		d.dead = true
		return
	}
	d.release()
}

func (d *pgDrop) flush() ([]byte, bool) {
	if d.dead {
		return nil, false
	}
	return d.flushHeld()
}
