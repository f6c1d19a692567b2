package nemesis

import (
	"context"
	"fmt"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// turnPoll is how often an armed window trap on a turn-taking relay asks
// the database whose turn it is. MariaDB and MySQL refresh
// information_schema.INNODB_TRX only when it was last read more than 100
// ms ago: a faster poll reads the same stale copy for ever.
const turnPoll = 120 * time.Millisecond

// turnsOnly tells whether the outbox is a cursor without claims: its
// relays take turns, and only the database knows whose turn it is.
func (n *Nemesis) turnsOnly() bool {
	m := n.schema
	return m.States.Cursor != nil && m.Outbox.LockedBy == "" && m.States.Claimed == "" && !n.dialect.Numbered
}

// turnWatch is the slot's transaction last seen holding row locks.
type turnWatch struct {
	trx    string
	since  time.Time
	seen   int // creation signals read at the poll before trx was first seen
	polled int // creation signals read at the last poll
	// started: a first poll was made (its signals are never this turn's)
	started bool
}

// turnHit is the window trap's test for a cursor without claims (MySQL or
// MariaDB). Nothing in a row says who holds it, and the creation signals
// come too late to catch a round (on a loaded machine the observer lags
// more than a round lasts), so the trap watches the database instead: it
// springs when two polls in a row find the same transaction of the slot's
// account running with row locks held (its turn: a cursor relay locks its
// group's offsets row and publishes inside that transaction; one waiting
// for the lock is in LOCK WAIT) and a creation was signalled since the
// poll before the first of them (while the turn holds the lock, nobody
// else publishes). Its publish waits windowLatency for Redis's delayed
// replies, so such a turn is most likely between its publish and its ack. This is the
// trap's guess only: the landing is judged afterwards from the history
// (check's cutPublishes: a message in the sink before the kill, passed by
// the cursor only after it, and published again).
func (m *matcher) turnHit(ctx context.Context, w *turnWatch) (supervisor.Hit, bool) {
	instance := m.n.sup.Instances()[m.slot]
	user := m.n.accountOf(slotOf(instance))
	if user == "" {
		return supervisor.Hit{}, false
	}
	var trx string
	err := m.n.db.QueryRowContext(ctx, "SELECT t.trx_id FROM information_schema.INNODB_TRX t "+
		"JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id "+
		"WHERE p.USER = ? AND t.trx_state = 'RUNNING' AND t.trx_rows_locked > 0 LIMIT 1", user).Scan(&trx)
	now := time.Now().UTC()
	before := w.polled
	w.polled = m.seen
	if !w.started {
		// Signals read before the first poll are the previous trap's: a
		// round it cut published them, and they arrive late.
		w.started = true
		return supervisor.Hit{}, false
	}
	if err != nil || trx != w.trx {
		// new turn: it began after the previous poll, so count the
		// creations from there
		w.trx, w.since, w.seen = trx, now, before
		return supervisor.Hit{}, false
	}
	if m.seen == w.seen {
		return supervisor.Hit{}, false // nothing created since it began: not publishing yet
	}
	return supervisor.Hit{Job: "turn " + trx, Params: map[string]string{
		"instance": instance, "matched": now.Format(time.RFC3339Nano),
		"held": fmt.Sprintf("a turn: transaction %s of account %s running with row locks since %s", trx, user, w.since.Format(time.RFC3339Nano)),
	}}, true
}

// accountOf is the slot's own database account, "" when it has none or
// shares it.
func (n *Nemesis) accountOf(slot string) string {
	var found string
	for user, s := range n.writers {
		if s != slot {
			continue
		}
		if found != "" {
			return ""
		}
		found = user
	}
	return found
}
