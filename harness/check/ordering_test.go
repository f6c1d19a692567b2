package check

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// orderedRun builds an aggregate "a" of events 1, 2, 3 (committed in that
// order) and lets dispatch write their fates; the dispatcher declares
// ordering: per-aggregate.
func orderedRun(dispatch func(b *builder)) history.Run {
	b := newBuilder("ordering")
	b.run.Meta.Ordering = orderingPerAggregate
	b.start(0, "d1", "d2")
	for i, job := range []string{"j-1", "j-2", "j-3"} {
		b.produce(int64(i+1), job, history.KindValid, 10*(i+1))
		b.run.Events[len(b.run.Events)-1].Aggregate = "a"
	}
	dispatch(b)
	return b.finish(3000, 3500, true)
}

func dispatchOne(b *builder, id int64, job, inst string, at int) {
	b.claim(id, inst, at).add("ai-default", job, job, at+10).publish(id, at+20)
}

func TestOrderingPassesEventsInCommitOrder(t *testing.T) {
	run := orderedRun(func(b *builder) {
		b.claim(1, "d1", 100).failTransient(1, 120, "redis: i/o timeout", 500*time.Millisecond)
		dispatchOne(b, 1, "j-1", "d2", 700)
		dispatchOne(b, 2, "j-2", "d1", 800)
		dispatchOne(b, 3, "j-3", "d2", 900)
	})
	r := CheckOrdering(run)
	require.Equal(t, Pass, r.Verdict, r.Reason)
	require.Contains(t, r.Reason, "1 aggregate")
}

// The MassTransit #3512 shape: event 1 fails and backs off, event 2 of the
// same aggregate is claimed and published meanwhile.
func TestOrderingFailsARetryOvertaken(t *testing.T) {
	run := orderedRun(func(b *builder) {
		b.claim(1, "d1", 100).failTransient(1, 120, "redis: i/o timeout", 500*time.Millisecond)
		dispatchOne(b, 2, "j-2", "d2", 200)
		dispatchOne(b, 1, "j-1", "d1", 700)
		dispatchOne(b, 3, "j-3", "d2", 900)
	})
	r := CheckOrdering(run)
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Len(t, r.Violations, 1)
	v := r.Violations[0]
	require.Equal(t, int64(2), v.EventID)
	require.True(t, strings.HasPrefix(v.Summary, "Event 2 of aggregate a was published at 10:00:00.220 before event 1, committed before it, was done (published only at 10:00:00.720)."), v.Summary)
	require.NotEmpty(t, v.Steps)
}

// Publishes in order but jobs created out of order (the add of 2 came
// first) is a violation too.
func TestOrderingFailsJobsCreatedOutOfOrder(t *testing.T) {
	run := orderedRun(func(b *builder) {
		b.claim(1, "d1", 100).claim(2, "d2", 100)
		b.add("ai-default", "j-2", "j-2", 110).add("ai-default", "j-1", "j-1", 130)
		b.publish(1, 140).publish(2, 150)
		dispatchOne(b, 3, "j-3", "d2", 900)
	})
	r := CheckOrdering(run)
	require.Equal(t, Fail, r.Verdict, r.Reason)
	require.Contains(t, r.Violations[0].Summary, "The job of event 2 (aggregate a) was created in Redis at 10:00:00.110 before the job of event 1")
}

func TestOrderingNotExercisedWithoutTheDeclaration(t *testing.T) {
	run := orderedRun(func(b *builder) {
		dispatchOne(b, 2, "j-2", "d2", 200)
		dispatchOne(b, 1, "j-1", "d1", 700)
	})
	run.Meta.Ordering = ""
	r := CheckOrdering(run)
	require.Equal(t, NotExercised, r.Verdict)
	require.Contains(t, r.Reason, "does not declare ordering: per-aggregate")
	for _, res := range Evaluate(run) {
		require.NotEqual(t, "I10", res.ID, "an opt-in invariant is not run for a dispatcher that does not declare it")
	}
	run.Meta.Ordering = orderingPerAggregate
	require.Equal(t, "I10", Evaluate(run)[9].ID)
	require.Equal(t, Fail, Evaluate(run)[9].Verdict)
}

func TestOrderingNotExercisedWithOneEventPerAggregate(t *testing.T) {
	b := newBuilder("baseline")
	b.run.Meta.Ordering = orderingPerAggregate
	b.start(0, "d1")
	b.produce(1, "j-1", history.KindValid, 10)
	dispatchOne(b, 1, "j-1", "d1", 100)
	r := CheckOrdering(b.finish(1000, 1200, true))
	require.Equal(t, NotExercised, r.Verdict)
	require.Equal(t, "no aggregate had two events published", r.Reason)
}

func TestOrderingTriggerGapIsUnknown(t *testing.T) {
	run := orderedRun(func(b *builder) {
		dispatchOne(b, 1, "j-1", "d1", 100)
		dispatchOne(b, 2, "j-2", "d1", 200)
		b.gap("triggers", 300, "trigger log rows missing")
	})
	require.Equal(t, Unknown, CheckOrdering(run).Verdict)
}

func TestStreamIDOrder(t *testing.T) {
	require.True(t, streamIDLess("1700000000000-9", "1700000000001-0"))
	require.True(t, streamIDLess("1700000000000-2", "1700000000000-10"))
	require.False(t, streamIDLess("1700000000000-2", "1700000000000-2"))
}

func TestOrderRetryLanding(t *testing.T) {
	req := history.Requirement{Fault: history.LandOrderRetry, AtLeast: 1}
	// Event 1 fails at 120 ms; event 2 was committed at 20 ms: it landed.
	run := orderedRun(func(b *builder) {
		b.claim(1, "d1", 100).failTransient(1, 120, "redis: i/o timeout", 500*time.Millisecond)
		dispatchOne(b, 1, "j-1", "d2", 700)
		dispatchOne(b, 2, "j-2", "d1", 800)
		dispatchOne(b, 3, "j-3", "d2", 900)
	})
	ls := CheckLanding(withLanding(run, req))
	require.True(t, ls[0].Met, ls[0].Reason)
	require.Equal(t, "1 event met a transient failure with a later event of its aggregate committed; 1 needed", ls[0].Reason)
	// Only the last event of the aggregate fails: nothing to overtake it.
	run = orderedRun(func(b *builder) {
		dispatchOne(b, 1, "j-1", "d2", 100)
		dispatchOne(b, 2, "j-2", "d1", 200)
		b.claim(3, "d1", 300).failTransient(3, 320, "redis: i/o timeout", 500*time.Millisecond)
		dispatchOne(b, 3, "j-3", "d2", 900)
	})
	require.False(t, CheckLanding(withLanding(run, req))[0].Met)
}
