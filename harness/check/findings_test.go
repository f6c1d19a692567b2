package check

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func violation(event int64, job, summary string, inst ...string) Violation {
	return Violation{EventID: event, JobID: job, Summary: summary, Instances: inst}
}

func failed(id string, vs ...Violation) Result {
	return Result{ID: id, Name: nameOf(id), Verdict: Fail, Violations: vs}
}

// Several invariants failing on the same events are one finding, led by the
// most specific invariant's violation, with the event count.
func TestFindingsGroupSharedEvents(t *testing.T) {
	const rule = "docs/contract.md §2 step 2: a job already past created is closed as published, with no second add"
	var i2, i3, i7 []Violation
	for e := int64(1); e <= 17; e++ {
		job := fmt.Sprintf("j-%d", e)
		v2 := violation(e, job, fmt.Sprintf("Valid event %d (job %s) ended failed instead of published.", e, job), "d1")
		v2.Rule = rule
		i2 = append(i2, v2)
		i3 = append(i3, violation(e, job, fmt.Sprintf("Event %d was failed although its job %s is queued.", e, job), "d2"))
		v := violation(e, job, fmt.Sprintf("Valid event %d (job %s) was failed by d1 at attempt 1, before the maximum of 6 attempts: \"job not created\".", e, job), "d1")
		i7 = append(i7, v)
	}
	results := []Result{
		{ID: "I1", Name: nameOf("I1"), Verdict: Pass},
		failed("I2", i2...), failed("I3", i3...),
		{ID: "I4", Name: nameOf("I4"), Verdict: NotExercised, Reason: "the run produced no poison events"},
		failed("I7", i7...),
	}
	fs := Findings(results)
	require.Len(t, fs, 1)
	f := fs[0]
	require.Equal(t, []string{"I2", "I3", "I7"}, f.Invariants)
	require.Len(t, f.Events, 17)
	require.Equal(t, int64(1), f.Events[0])
	require.Equal(t, int64(17), f.Events[16])
	require.Len(t, f.Jobs, 17)
	require.Equal(t, []string{"d1", "d2"}, f.Instances)
	require.Len(t, f.Violations, 51)
	require.Equal(t, ViolationRef{Invariant: "I7", Index: 0}, f.Violations[0], "I7 is more specific than I2 and I3")
	require.Equal(t, []string{rule}, f.Rules)
	require.Equal(t, `17 events: Valid event 1 (job j-1) was failed by d1 at attempt 1, before the maximum of 6 attempts: "job not created"; likewise 16 other events; docs/contract.md §2 step 2: a job already past created is closed as published, with no second add.`, f.Headline)
}

// A job id joins violations too: I1 names the job, I3 the event about it.
func TestFindingsJoinByJob(t *testing.T) {
	results := []Result{
		failed("I1", Violation{JobID: "j-7", Summary: "Job j-7 was created twice."}),
		failed("I3", violation(7, "j-7", "Event 7 is inconsistent.")),
		failed("I9", Violation{JobID: "j-7", Summary: "Job j-7's data was overwritten."}),
	}
	fs := Findings(results)
	require.Len(t, fs, 1)
	require.Equal(t, []string{"I1", "I3", "I9"}, fs[0].Invariants)
	require.Equal(t, []int64{7}, fs[0].Events)
	require.Equal(t, "1 event: Job j-7 was created twice.", fs[0].Headline)
}

// Violations on unrelated events, breaking different invariants, are
// separate findings; the larger comes first.
func TestFindingsSeparateUnrelated(t *testing.T) {
	results := []Result{
		failed("I1", violation(3, "j-3", "Job j-3 was created twice.", "d1", "d2")),
		failed("I2", violation(10, "j-10", "Valid event 10 was still processing at the end."), violation(11, "j-11", "Valid event 11 was still processing at the end.")),
		failed("I8", violation(10, "j-10", "Event 10's claim by d3 ran out and was never taken over.", "d3"), violation(11, "j-11", "Event 11's claim by d3 ran out and was never taken over.", "d3")),
		failed("I4", violation(20, "j:20", "Poison event 20 was published instead of failed.")),
	}
	fs := Findings(results)
	require.Len(t, fs, 3)
	require.Equal(t, []string{"I2", "I8"}, fs[0].Invariants)
	require.Equal(t, []int64{10, 11}, fs[0].Events)
	require.Equal(t, "2 events: Event 10's claim by d3 ran out and was never taken over; likewise 1 other event.", fs[0].Headline)
	require.Equal(t, []string{"I1"}, fs[1].Invariants, "one event each: I1 is more specific than I4")
	require.Equal(t, []string{"d1", "d2"}, fs[1].Instances)
	require.Equal(t, []string{"I4"}, fs[2].Invariants)
}

// The same invariants on disjoint events but with different rules stay
// apart; waived results and passes are left out.
func TestFindingsSignatureAndWaived(t *testing.T) {
	a := violation(1, "j-1", "Event 1 was failed.")
	a.Rule = "docs/contract.md §2 step 2: already dispatched"
	b := violation(2, "j-2", "Event 2 was failed.")
	b.Rule = "docs/contract.md §2 step 6: permanent failures"
	waived := failed("I6", violation(1, "j-1", "Event 1 was retried at once."))
	waived.Waived = "backoff is not asserted here"
	fs := Findings([]Result{failed("I2", a, b), waived, {ID: "I3", Verdict: Pass}})
	require.Len(t, fs, 2)
	require.Equal(t, []string{"I2"}, fs[0].Invariants)
	require.Equal(t, []int64{1}, fs[0].Events)
	require.Equal(t, []string{"I2"}, fs[1].Invariants)
	require.Equal(t, []int64{2}, fs[1].Events)
	require.Empty(t, Findings([]Result{waived}))
	require.Empty(t, Findings(nil))
}

// A violation naming neither an event nor a job is its own finding, counted
// as a violation.
func TestFindingsWithoutKeys(t *testing.T) {
	fs := Findings([]Result{failed("I5", Violation{Summary: "A row was written by nobody."}, Violation{Summary: "Another row was written by nobody."})})
	require.Len(t, fs, 1, "same invariant, no rule: one finding")
	require.Equal(t, "2 violations: A row was written by nobody; likewise 1 other violation.", fs[0].Headline)
}

// The order depends on the content only, not on the order of the input.
func TestFindingsDeterministic(t *testing.T) {
	results := []Result{
		failed("I1", violation(5, "j-5", "Job j-5 was created twice."), violation(9, "j-9", "Job j-9 was created twice.")),
		failed("I3", violation(9, "j-9", "Event 9 is inconsistent."), violation(4, "j-4", "Event 4 is inconsistent.")),
		failed("I5", violation(4, "j-4", "Event 4 was finalized by a zombie.", "d2")),
	}
	want := Findings(results)
	require.Len(t, want, 3)
	for i := 0; i < 20; i++ {
		require.Equal(t, want, Findings(results))
	}
	reversed := []Result{results[2], results[1], results[0]}
	for i := range reversed {
		r := reversed[i]
		vs := append([]Violation(nil), r.Violations...)
		for a, b := 0, len(vs)-1; a < b; a, b = a+1, b-1 {
			vs[a], vs[b] = vs[b], vs[a]
		}
		r.Violations = vs
		reversed[i] = r
	}
	got := Findings(reversed)
	require.Len(t, got, 3)
	for i := range want {
		require.Equal(t, want[i].Headline, got[i].Headline)
		require.Equal(t, want[i].Invariants, got[i].Invariants)
		require.Equal(t, want[i].Events, got[i].Events)
	}
	require.Equal(t, "1 event: Event 4 was finalized by a zombie.", want[0].Headline, "I5 leads: most specific")
}

// A violation that rests on a rule of docs/contract.md names it in Rule,
// the page's and the finding's "rule" line.
func TestViolationsNameTheirRule(t *testing.T) {
	r := Check(I4, loadStored(t, "bad-i4-poison-retried"))
	require.Equal(t, Fail, r.Verdict)
	require.Equal(t, rulePermanent, r.Violations[0].Rule)
	require.Contains(t, r.Violations[0].Rule, "docs/contract.md §2 step 6")
	require.Empty(t, ruleIn("Job j1 was created 2 times in BullMQ queue q."), "a definition alone names no rule")
}
