package check

import (
	"fmt"
	"sort"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// gapWindow is the stretch a keyspace gap left unobserved: from the gap to
// the first "scan" note after it (the observer records one for every job
// hash it finds once it is back), or to the final scan when none came. Other
// notes do not end it: the observer may still be working through
// notifications sent before the gap when it records them.
type gapWindow struct {
	Gap    history.Gap
	From   time.Time
	To     time.Time
	Closed bool // a scan after the gap shows the observer back
}

// keyspaceWindows lists the keyspace gaps as windows, in time order.
func (ix *index) keyspaceWindows() []gapWindow {
	var out []gapWindow
	for _, g := range ix.gaps["keyspace"] {
		w := gapWindow{Gap: g, From: g.At, To: ix.run.Final.At}
		for _, n := range ix.run.Keys { // in time order
			if n.Event == eventScan && n.At.After(g.At) {
				w.To, w.Closed = n.At, true
				break
			}
		}
		if w.To.Before(w.From) {
			w.To = w.From
		}
		out = append(out, w)
	}
	return out
}

// eventScan is the KeyNote event of the observer's scan after a gap.
const eventScan = "scan"

// eventReload is the KeyNote event of a job hash a restarted Redis loaded
// back from its append-only file (same creation stamp): a read, never a
// creation.
const eventReload = "reload"

// lifetime is one incarnation of a job hash as the history shows it: from its
// creation (a stream "added" entry or a keyspace "new" note, one creation
// when both show it within pairWindow) or, when no creation was seen, its
// first read, to its deletion, the final scan, or, when it vanished unseen,
// the next creation or the end of the run.
type lifetime struct {
	Key      bullKey
	From, To time.Time
	Reads    []time.Time // key notes with data or opts, and the final scan
	open     bool
	byStream bool      // opened by a stream "added" entry
	byNote   bool      // opened by, or paired with, a keyspace "new" note
	noteAt   time.Time // that note's time
}

// lifeItem is one thing the history shows about a job hash.
type lifeItem struct {
	At     time.Time
	Create string // "stream" or "note" for a creation
	Read   bool
	Gone   bool
	Final  bool
}

// jobLifetimes returns the lifetimes of every job hash the history shows.
func (ix *index) jobLifetimes() []lifetime {
	items := map[bullKey][]lifeItem{}
	for _, e := range ix.run.Stream {
		if e.Event == "added" && !reservedKey(e.JobID) {
			k := bullKey{e.Queue, e.JobID}
			items[k] = append(items[k], lifeItem{At: e.At, Create: "stream"})
		}
	}
	for _, n := range ix.run.Keys {
		if reservedKey(n.JobID) {
			continue
		}
		it := lifeItem{At: n.At, Gone: keyGone(n.Event), Read: !keyGone(n.Event) && (n.Data != "" || n.Opts != "")}
		if n.Event == "new" {
			it.Create = "note"
		}
		k := bullKey{n.Queue, n.JobID}
		items[k] = append(items[k], it)
	}
	for q, scan := range ix.run.Final.Queues {
		for id := range scan.Jobs {
			k := bullKey{q, id}
			items[k] = append(items[k], lifeItem{At: ix.run.Final.At, Read: true, Final: true})
		}
	}
	var out []lifetime
	for _, k := range sortedBulls(items) {
		out = append(out, ix.walkLifetimes(k, items[k])...)
	}
	return out
}

// walkLifetimes cuts one job hash's items into lifetimes.
func (ix *index) walkLifetimes(k bullKey, items []lifeItem) []lifetime {
	sort.SliceStable(items, func(i, j int) bool { return items[i].At.Before(items[j].At) })
	var out []lifetime
	var cur *lifetime
	closeAt := func(at time.Time) {
		if cur != nil {
			cur.To, cur.open = at, false
			out = append(out, *cur)
			cur = nil
		}
	}
	for _, it := range items {
		switch {
		case it.Create != "" && cur != nil && cur.pairs(it):
			cur.byNote, cur.noteAt = true, it.At
		case it.Create != "":
			closeAt(it.At)
			cur = &lifetime{Key: k, From: it.At, open: true, byStream: it.Create == "stream", byNote: it.Create == "note"}
			if cur.byNote {
				cur.noteAt = it.At
			}
		case it.Gone:
			if cur == nil { // deleted without ever being seen: it lived unseen before
				cur = &lifetime{Key: k, From: ix.run.Meta.Started}
			}
			closeAt(it.At)
			continue
		case cur == nil:
			cur = &lifetime{Key: k, From: it.At, open: true}
		}
		if it.Read {
			cur.Reads = append(cur.Reads, it.At)
		}
		if it.Final {
			closeAt(it.At)
		}
	}
	closeAt(maxTime(runEnd(ix.run), ix.run.Final.At))
	return out
}

// pairWindow is how far apart the two observers' views of one creation
// (stream "added", keyspace "new") may be for a lifetime to join them, and how
// near a stream gap must be to a keyspace gap to blind I9 together.
const pairWindow = 2 * time.Second

// pairs tells whether creation item it is the other source's view of the
// creation that opened l.
func (l *lifetime) pairs(it lifeItem) bool {
	if !(l.byStream || l.byNote) || absDur(it.At.Sub(l.From)) > pairWindow {
		return false
	}
	if it.Create == "stream" {
		return !l.byStream
	}
	return !l.byNote
}

// meets tells whether the lifetime overlaps window w. A creation the
// keyspace notifications showed at or after the window's end happened with
// them back on: such a lifetime is observed from its start and does not
// meet w.
func (l lifetime) meets(w gapWindow) bool {
	if l.byNote && w.Closed && !l.noteAt.Before(w.To) {
		return false
	}
	return !l.From.After(w.To) && !l.To.Before(w.From)
}

// readAfter tells whether the lifetime has a read at or after t.
func (l lifetime) readAfter(t time.Time) bool {
	for _, r := range l.Reads {
		if !r.Before(t) {
			return true
		}
	}
	return false
}

// gapBlind is what keyspace gaps left I9 unable to judge.
type gapBlind struct {
	unread []lifetime  // lifetimes that met a window and have no read after it
	window []gapWindow // the window each unread lifetime met
	stream []string    // a doubt per queue whose stream was blind in a window
}

// keyspaceBlindSpots applies the gap part of I9's definition: it returns the
// job hashes whose lifetime meets a keyspace gap window with no read after
// the window, and the queues whose events stream also had a gap near one
// (a job created and deleted inside the window would then leave no trace).
func (ix *index) keyspaceBlindSpots(windows []gapWindow) gapBlind {
	var b gapBlind
	for _, l := range ix.jobLifetimes() {
		for _, w := range windows {
			if l.meets(w) && !l.readAfter(w.To) {
				b.unread, b.window = append(b.unread, l), append(b.window, w)
				break
			}
		}
	}
	for _, w := range windows {
		for _, q := range ix.queues() {
			for _, g := range ix.gaps["stream:"+q] {
				if !g.At.Before(w.From.Add(-pairWindow)) && !g.At.After(w.To.Add(pairWindow)) {
					b.stream = append(b.stream, fmt.Sprintf("the keyspace notifications had a gap at %s and queue %s's events stream had one at %s: a job created and deleted in between would leave no trace to compare",
						clock(w.From), q, clock(g.At)))
					break
				}
			}
		}
	}
	return b
}
