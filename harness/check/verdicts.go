package check

import "fmt"

// MaxViolations bounds the counterexamples one checker reports.
const MaxViolations = 50

// tally collects one checker's findings: violations (each proves a fail),
// doubts (each makes a pass unknown), and whether anything was there to check.
type tally struct {
	id         string
	one, many  string // nouns that count the violations: "job created twice", "jobs created twice"
	violations []Violation
	total      int
	doubts     []string
	idle       string // why the run gave nothing to check; "" when it did
	duplicates int    // I1: at-least-once messages delivered more than once
	seen       map[string]bool
}

func newTally(id, one, many string) *tally { return &tally{id: id, one: one, many: many} }

// fail counts a violation and builds it only while fewer than MaxViolations
// are kept (building one gathers its steps, which costs a walk of the run).
// The result keeps them in the order found: checkers walk events by id.
func (t *tally) fail(build func() Violation) {
	t.total++
	if len(t.violations) < MaxViolations {
		v := build()
		if v.Rule == "" {
			v.Rule = ruleIn(v.Summary)
		}
		t.violations = append(t.violations, v)
	}
}

// once tells whether key is new to this tally, and remembers it: a checker
// uses it to report one counterexample per job or event.
func (t *tally) once(key string) bool {
	if t.seen == nil {
		t.seen = map[string]bool{}
	}
	if t.seen[key] {
		return false
	}
	t.seen[key] = true
	return true
}

// doubt records why the checker cannot tell.
func (t *tally) doubt(format string, args ...any) {
	t.doubts = append(t.doubts, fmt.Sprintf(format, args...))
}

// nothing records that the run gave this invariant nothing to check, and why
// ("the run produced no poison events"). A violation or a doubt still wins:
// a breach proven is a fail, and a breach that may have gone unseen (a gap)
// is unknown, not "nothing happened".
func (t *tally) nothing(reason string) { t.idle = reason }

// result turns the tally into a Result: fail when anything was proven,
// unknown when anything was in doubt, not exercised when there was nothing
// to check, else pass with the pass reason.
func (t *tally) result(pass string) Result {
	r := Result{ID: t.id, Name: nameOf(t.id)}
	switch {
	case t.total > 0:
		r.Verdict = Fail
		r.Violations = t.violations
		r.Reason = count(t.total, t.one, t.many)
		if t.total > MaxViolations {
			r.Reason += fmt.Sprintf("; the first %d are shown", MaxViolations)
		}
		r.Reason += ": " + r.Violations[0].Summary
	case len(t.doubts) > 0:
		r.Verdict = Unknown
		r.Reason = t.doubts[0]
		if len(t.doubts) > 1 {
			r.Reason += fmt.Sprintf(" (and %d more doubts)", len(t.doubts)-1)
		}
	case t.idle != "":
		r.Verdict = NotExercised
		r.Reason = t.idle
	default:
		r.Verdict = Pass
		r.Reason = pass
	}
	return r
}

// skipped is the verdict of a check the run cannot exercise at all (the
// tuning it rests on is not honoured, or the run has none of what it
// judges): not exercised, with the reason. Never a pass.
func skipped(id, reason string) Result {
	return Result{ID: id, Name: nameOf(id), Verdict: NotExercised, Reason: reason}
}

// count renders a number with its noun in the right number: "1 claim",
// "3 claims".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
