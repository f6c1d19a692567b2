package check

import (
	"regexp"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// commitGaps counts the held events that fell into a commit-order gap: the
// producer held the event's transaction open (Event.Committing, when its
// COMMIT was sent, on the harness clock), and by then every instance
// running had already taken an event with a higher id after this one's
// insert, more than ClockSlack before the COMMIT. "Taken" is a claim (the
// claim trigger's time: NOW(6) is the claiming statement's start) or, for
// an outbox without claims, a publish written by that instance's slot (a
// cursor's move). The taking read ran before its record and the commit
// ended after it was sent, so the lower id was not yet visible to it: a
// reader that keeps a high-water mark of ids has passed it. Every running
// instance must have passed it: one that has not taken anything since
// still has an old mark, and picks the event up (a relay whose instances
// take turns under a global lock looks correct that way). Without process
// events, one instance's pass counts.
func (ix *index) commitGaps() int {
	if !ix.run.Meta.Model.Has(history.LackClaims) {
		return ix.visibleGaps()
	}
	takes := ix.takesByInstance()
	n := 0
	for _, e := range ix.events {
		if e.Committing.IsZero() {
			continue
		}
		since := ix.insertedAt(e.ID)
		until := e.Committing.Add(-ClockSlack)
		running := ix.runningAt(e.Committing)
		if len(running) == 0 {
			running = []string{""} // no process events: any instance's pass
		}
		passed := 0
		for _, inst := range running {
			if takes.passed(inst, e.ID, since, until) {
				passed++
			}
		}
		if passed == len(running) {
			n++
		}
	}
	return n
}

// visibleGaps counts, for an outbox without claims (a cursor relay), the
// held events behind which a higher id had committed more than ClockSlack
// before their own COMMIT was sent, while an instance was running: a relay
// reading in id order could see the higher id across the gap, so it had
// the chance to pass it. A correct relay waits; one that trusts the
// highest id it read skips the held event.
func (ix *index) visibleGaps() int {
	n := 0
	for _, e := range ix.events {
		if e.Committing.IsZero() || len(ix.runningAt(e.Committing)) == 0 {
			continue
		}
		for _, f := range ix.events {
			if f.ID > e.ID && committedAt(f).Before(e.Committing.Add(-ClockSlack)) {
				n++
				break
			}
		}
	}
	return n
}

// committedAt is when event e's transaction had committed, at the latest:
// when the producer recorded it.
func committedAt(e history.Event) time.Time { return e.Produced }

// take is one event an instance took: its id and when.
type take struct {
	event int64
	at    time.Time
}

// instanceTakes lists, per instance ("" for all of them), the events it
// took.
type instanceTakes map[string][]take

// passed tells whether inst took an event with an id above id in [since,
// until].
func (it instanceTakes) passed(inst string, id int64, since, until time.Time) bool {
	for _, t := range it[inst] {
		if t.event > id && !t.at.Before(since) && !t.at.After(until) {
			return true
		}
	}
	return false
}

// takesByInstance lists every claim by its owner and, for an outbox
// without claims, every publish by the instances of its writer's slot.
func (ix *index) takesByInstance() instanceTakes {
	it := instanceTakes{}
	add := func(inst string, t take) {
		it[""] = append(it[""], t)
		if inst != "" {
			it[inst] = append(it[inst], t)
		}
	}
	for id, hs := range ix.holds {
		for _, h := range hs {
			add(h.Owner, take{id, h.Start})
		}
	}
	if len(ix.holds) == 0 || !ix.run.Meta.Model.Has(history.LackClaims) {
		for id, ts := range ix.outbox {
			for i, t := range ts {
				if ix.moveAt(id, i) != moveFinalize || t.Writer == "" {
					continue
				}
				for inst := range ix.lv.procs {
					if slotOf(inst) == t.Writer {
						add(inst, take{id, t.At})
					}
				}
				add("", take{id, t.At})
			}
		}
	}
	return it
}

// insertedAt is when event id's row was inserted (the zero time when no
// insert was recorded).
func (ix *index) insertedAt(id int64) time.Time {
	if ts := ix.outbox[id]; len(ts) > 0 && ts[0].Op == "insert" {
		return ts[0].At
	}
	return time.Time{}
}

// runningAt lists the instances running at t.
func (ix *index) runningAt(t time.Time) []string {
	var out []string
	for inst := range ix.lv.procs {
		if ix.lv.state(inst, t) == procRunning {
			out = append(out, inst)
		}
	}
	return out
}

// restartSuffix is how the supervisor names a slot's later starts
// ("d1r2"): the slot, then r and the start's number.
var restartSuffix = regexp.MustCompile(`r[0-9]+$`)

// slotOf is the slot of instance id.
func slotOf(id string) string { return restartSuffix.ReplaceAllString(id, "") }
