package check

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// orderingPerAggregate is the promise I10 judges (runner.OrderingPerAggregate).
const orderingPerAggregate = "per-aggregate"

// CheckOrdering is I10, per-aggregate order: opt-in, for a dispatcher that
// declares ordering: per-aggregate (history.Meta.Ordering).
//
// The aggregate of an event is the one the workload wrote in its payload
// ("aggregate", history.Event.Aggregate: the harness's own record); commit
// order is the order the producer recorded its commits (it records each
// event after its COMMIT returned, one at a time). Definition, for every
// two events a before b of one aggregate:
//   - b is not marked published (trigger sequence order) before a is done,
//     published or failed: a retried a must not be overtaken by b;
//   - b's job is not created in Redis before a's job: the first creations,
//     compared by stream entry id when both are entries of one queue's
//     events stream (the workload puts an aggregate on one queue), else by
//     time, only when apart by more than ClockSlack.
//
// Not exercised without the declaration, or when no aggregate had two
// events published. A trigger gap with nothing proven is unknown; a stream
// gap on a queue leaves that queue's creation order unknown.
func CheckOrdering(run history.Run) Result {
	if run.Meta.Ordering != orderingPerAggregate {
		return skipped("I10", "the dispatcher does not declare ordering: per-aggregate (the invariant is opt-in)")
	}
	ix := newIndex(run)
	t := newTally("I10", "event out of its aggregate's order", "events out of their aggregates' order")
	judged := 0
	for _, agg := range aggregates(run.Events) {
		if ix.publishedCount(agg.events) >= 2 {
			judged++
		}
		ix.checkAggregateOrder(t, agg)
	}
	ix.doubtTriggersGap(t, "a publish out of order")
	if judged == 0 {
		t.nothing("no aggregate had two events published")
	}
	return t.result(count(judged, "aggregate", "aggregates") + " with two or more events published, each in commit order, their jobs created in that order")
}

// aggregate is one aggregate's events in commit order.
type aggregate struct {
	key    string
	events []history.Event
}

// aggregates groups the events that name an aggregate, keeping the
// recorded (commit) order, aggregates in order of their first event.
func aggregates(events []history.Event) []aggregate {
	at := map[string]int{}
	var out []aggregate
	for _, e := range events {
		if e.Aggregate == "" {
			continue
		}
		i, ok := at[e.Aggregate]
		if !ok {
			i = len(out)
			at[e.Aggregate] = i
			out = append(out, aggregate{key: e.Aggregate})
		}
		out[i].events = append(out[i].events, e)
	}
	return out
}

func (ix *index) publishedCount(events []history.Event) int {
	n := 0
	for _, e := range events {
		if _, ok := ix.finalMove(e.ID, true); ok {
			n++
		}
	}
	return n
}

// finalMove is the event's first move into published (onlyPublished) or
// into published or failed.
func (ix *index) finalMove(id int64, onlyPublished bool) (history.Transition, bool) {
	for i, tr := range ix.outbox[id] {
		if ix.moveAt(id, i) != moveFinalize {
			continue
		}
		if !onlyPublished || tr.NewStatus == history.StatusPublished {
			return tr, true
		}
	}
	return history.Transition{}, false
}

// checkAggregateOrder checks every later event of agg against every
// earlier one, and reports one violation per later event.
func (ix *index) checkAggregateOrder(t *tally, agg aggregate) {
	for j, b := range agg.events {
		for _, a := range agg.events[:j] {
			if summary, at := ix.publishedBefore(a, b); summary != "" {
				ix.failOrder(t, agg, a, b, at, summary)
				break
			}
			if summary, at := ix.createdBefore(a, b); summary != "" {
				ix.failOrder(t, agg, a, b, at, summary)
				break
			}
		}
	}
}

// publishedBefore: b was published before a was done.
func (ix *index) publishedBefore(a, b history.Event) (string, time.Time) {
	pb, ok := ix.finalMove(b.ID, true)
	if !ok {
		return "", time.Time{}
	}
	da, done := ix.finalMove(a.ID, false)
	if done && da.Seq < pb.Seq {
		return "", time.Time{}
	}
	state := "never done"
	if done {
		state = fmt.Sprintf("%s only at %s", da.NewStatus, clock(da.At))
	}
	return fmt.Sprintf("Event %d of aggregate %s was published at %s before event %d, committed before it, was done (%s).",
		b.ID, b.Aggregate, clock(pb.At), a.ID, state), pb.At
}

// createdBefore: b's job was created in Redis before a's.
func (ix *index) createdBefore(a, b history.Event) (string, time.Time) {
	ca, cb := ix.creations.byJob[a.JobID], ix.creations.byJob[b.JobID]
	if len(ca) == 0 || len(cb) == 0 || a.JobID == b.JobID {
		return "", time.Time{}
	}
	first, second := ca[0], cb[0]
	if !creationBefore(second, first) {
		return "", time.Time{}
	}
	return fmt.Sprintf("The job of event %d (aggregate %s) was created in Redis at %s before the job of event %d, committed before it (created at %s).",
		b.ID, b.Aggregate, clock(second.At), a.ID, clock(first.At)), second.At
}

// creationBefore tells whether x is proven to come before y: by stream id
// within one queue's stream, else by more than ClockSlack.
func creationBefore(x, y creation) bool {
	if x.Stream != nil && y.Stream != nil && x.Queue == y.Queue {
		return streamIDLess(x.Stream.ID, y.Stream.ID)
	}
	return x.At.Add(ClockSlack).Before(y.At)
}

// streamIDLess compares Redis stream ids "ms-seq".
func streamIDLess(x, y string) bool {
	xm, xs := splitStreamID(x)
	ym, ys := splitStreamID(y)
	if xm != ym {
		return xm < ym
	}
	return xs < ys
}

func splitStreamID(id string) (uint64, uint64) {
	ms, seq, _ := strings.Cut(id, "-")
	m, _ := strconv.ParseUint(ms, 10, 64)
	s, _ := strconv.ParseUint(seq, 10, 64)
	return m, s
}

func (ix *index) failOrder(t *tally, agg aggregate, a, b history.Event, at time.Time, summary string) {
	if !t.once(agg.key + "/" + strconv.FormatInt(b.ID, 10)) {
		return
	}
	from := at.Add(-ix.run.Meta.Tuning.Lease.D())
	if ts := ix.outbox[a.ID]; len(ts) > 0 && ts[0].At.Before(from) {
		from = ts[0].At
	}
	t.fail(func() Violation {
		ev := &evidence{}
		ix.addEvent(ev, a.ID)
		ix.addEvent(ev, b.ID)
		ix.addJob(ev, a.JobID)
		ix.addJob(ev, b.JobID)
		ix.addContext(ev, from, at)
		return Violation{EventID: b.ID, JobID: b.JobID, Summary: summary, Steps: ev.steps(at)}
	})
}

// retriedBeforeLater counts the events of an aggregate that met a
// transient failure (a return to pending with backoff) while a later event
// of their aggregate was already committed (landing requirement
// history.LandOrderRetry): a chance to be overtaken. Without one, the
// ordering scenario tested nothing.
func (ix *index) retriedBeforeLater() int {
	n := 0
	for _, agg := range aggregates(ix.run.Events) {
		for i, a := range agg.events {
			if i+1 < len(agg.events) && ix.failedAfter(a.ID, agg.events[i+1].Produced) {
				n++
			}
		}
	}
	return n
}

// failedAfter tells whether event id met a transient failure after the
// harness-clock time t (widened by ClockSlack: the failure is on the
// database clock).
func (ix *index) failedAfter(id int64, t time.Time) bool {
	for i, tr := range ix.outbox[id] {
		if ix.moveAt(id, i) == moveFailure && !tr.At.Before(t.Add(-ClockSlack)) {
			return true
		}
	}
	return false
}
