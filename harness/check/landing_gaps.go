package check

import "time"

// commitGaps counts events whose transaction the producer held open and
// whose COMMIT was sent (Event.Committing, the harness clock) more than
// ClockSlack after some event with a higher id was first claimed (the claim
// trigger's time, the database clock: NOW(6) is the claiming statement's
// start). The claim's SELECT ran before its trigger and the commit ended
// after it was sent, so the lower id was not yet visible when the claim
// began that took the higher one: a reader that keeps a high-water mark of
// ids has passed it. A claim that waited on the open transaction's row lock
// and took the lower id too ran into the same gap and waited it out.
func (ix *index) commitGaps() int {
	// later[i]: the earliest first claim of the events after ix.events[i].
	later := make([]time.Time, len(ix.events))
	var earliest time.Time
	for i := len(ix.events) - 1; i >= 0; i-- {
		later[i] = earliest
		if hs := ix.holds[ix.events[i].ID]; len(hs) > 0 && (earliest.IsZero() || hs[0].Start.Before(earliest)) {
			earliest = hs[0].Start
		}
	}
	n := 0
	for i, e := range ix.events {
		if !e.Committing.IsZero() && !later[i].IsZero() && e.Committing.After(later[i].Add(ClockSlack)) {
			n++
		}
	}
	return n
}
