package check

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// indexed makes an invariant's check from its judgement of the run's index.
func indexed(inv invariant) func(history.Run) Result {
	return func(run history.Run) Result { return inv.judge(newIndex(run), newTally(inv.id, inv.one, inv.many)) }
}

// Checker is one invariant: its id, its name, and its check.
type Checker struct {
	ID    ID
	Name  string
	Check func(history.Run) Result
}

// All returns every invariant's checker that every run judges, I1..I9 in
// order.
func All() []Checker { return checkers(false) }

// Optional returns the opt-in invariants, after I1..I9: each judges a
// promise only some dispatchers make, and Run checks it only for a run
// whose dispatcher declares it (Declared).
func Optional() []Checker { return checkers(true) }

func checkers(optional bool) []Checker {
	var out []Checker
	for _, inv := range invariants {
		if inv.optional == optional {
			out = append(out, Checker{ID: inv.id, Name: inv.name, Check: inv.check()})
		}
	}
	return out
}

// Declared tells whether the run's dispatcher declares the promise an
// optional invariant judges: I10 needs ordering: per-aggregate.
func Declared(id ID, meta history.Meta) bool {
	return id == I10 && meta.Ordering != ""
}

func nameOf(id ID) string {
	if inv, ok := lookup(id); ok {
		return inv.name
	}
	return ""
}

// Evaluate runs every checker on the run. An invariant the scenario waives
// (run.Meta.Waived[id]) keeps its verdict and carries the reason in Waived.
// A checker that panics on a malformed history yields unknown, with the
// panic in the reason, instead of taking the harness down.
func Evaluate(run history.Run) []Result {
	out := make([]Result, 0, 10)
	for _, c := range append(All(), declared(run.Meta)...) {
		r := runOne(c, run)
		if reason, ok := run.Meta.Waived[c.ID]; ok {
			if reason == "" {
				reason = "waived by the scenario"
			}
			r.Waived = reason
		}
		out = append(out, r)
	}
	return out
}

func runOne(c Checker, run history.Run) (r Result) {
	if why := WhyNotApplicable(c.ID, run.Meta.Model); why != "" {
		return Result{ID: c.ID, Name: c.Name, Verdict: NotApplicable, Reason: why}
	}
	defer func() {
		if p := recover(); p != nil {
			r = Result{ID: c.ID, Name: c.Name, Verdict: Unknown,
				Reason: fmt.Sprintf("checker %s crashed on this history: %v", c.ID, p)}
		}
	}()
	r = c.Check(run)
	r.ID, r.Name = c.ID, c.Name
	return r
}

// Overall is Fold's verdict for a run whose scenario names no invariant it
// exists to exercise.
func Overall(results []Result) Verdict {
	v, _ := Fold(results, nil)
	return v
}

// Fold folds one run's results into its verdict and, unless it is a pass,
// one line saying why. Waived results do not count. In order:
//   - fail when any result fails;
//   - unknown when any result is unknown (or carries a verdict this build
//     does not know), when an invariant the scenario exists to exercise
//     (exercises, history.Meta.Exercises) is not exercised or has no result,
//     when no required result passed (every one had nothing to check), or
//     when there is no result at all;
//   - else pass. A not-exercised invariant the scenario does not name
//     neither fails the run nor counts as a pass: the reports show it as
//     its own state.
func Fold(results []Result, exercises []string) (Verdict, string) {
	if len(results) == 0 {
		return Unknown, "no invariant was checked"
	}
	c := Classify(results, exercises)
	if len(c.Failed) > 0 {
		var failed []string
		for _, r := range c.Failed {
			failed = append(failed, r.ID+" "+r.Name)
		}
		return Fail, "violated: " + strings.Join(failed, ", ")
	}
	var undecided []string
	for _, r := range c.Undecided {
		if r.Verdict == Unknown {
			undecided = append(undecided, fmt.Sprintf("%s %s could not be decided: %s", r.ID, r.Name, r.Reason))
		} else {
			undecided = append(undecided, fmt.Sprintf("%s %s has verdict %q, which this build does not know", r.ID, r.Name, r.Verdict))
		}
	}
	undecided = append(undecided, c.Unexercised...)
	if len(undecided) == 0 && len(c.Passed) == 0 {
		undecided = append(undecided, "no required invariant had anything to check")
	}
	if len(undecided) > 0 {
		return Unknown, strings.Join(undecided, "; ")
	}
	return Pass, ""
}

// Classes is one run's results sorted by state, the one classification
// Fold and the reports read. Waived results are in Waived only; every
// other result is in exactly one of Failed, Passed, Idle (not exercised),
// NotApplicable and Undecided (unknown, or a verdict this build does not
// know). Owed are the Idle ones the scenario exists to exercise, and
// Unexercised says, for each invariant the scenario exists to exercise,
// why the run does not show it held.
type Classes struct {
	Failed, Passed, Idle, Owed, NotApplicable, Undecided, Waived []Result
	Unexercised                                                  []string
}

// Required counts the results the scenario requires (all but the waived).
func (c Classes) Required() int {
	return len(c.Failed) + len(c.Passed) + len(c.Idle) + len(c.NotApplicable) + len(c.Undecided)
}

// Classify sorts results by state, for a scenario that exists to exercise
// exercises.
func Classify(results []Result, exercises []string) Classes {
	var c Classes
	owed := map[string]bool{}
	for _, id := range exercises {
		owed[id] = true
	}
	by := make(map[string]Result, len(results))
	for _, r := range results {
		by[r.ID] = r
		switch {
		case r.Waived != "":
			c.Waived = append(c.Waived, r)
		case r.Verdict == Fail:
			c.Failed = append(c.Failed, r)
		case r.Verdict == Pass:
			c.Passed = append(c.Passed, r)
		case r.Verdict == NotExercised:
			c.Idle = append(c.Idle, r)
			if owed[r.ID] {
				c.Owed = append(c.Owed, r)
			}
		case r.Verdict == NotApplicable:
			c.NotApplicable = append(c.NotApplicable, r)
		default:
			c.Undecided = append(c.Undecided, r)
		}
	}
	c.Unexercised = unexercised(by, exercises)
	return c
}

// unexercised tells, for each invariant the scenario exists to exercise,
// why the run does not show it held: it had nothing to check, or no result.
func unexercised(by map[string]Result, exercises []string) []string {
	var out []string
	for _, id := range exercises {
		r, ok := by[id]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s, which this scenario exists to exercise, has no result", id))
		case r.Waived != "", r.Verdict == NotApplicable:
		case r.Verdict == NotExercised:
			out = append(out, fmt.Sprintf("%s %s, which this scenario exists to exercise, had nothing to check: %s", r.ID, r.Name, r.Reason))
		}
	}
	return out
}

// Known tells whether id names one of the invariants (I1..I10).
func Known(id ID) bool {
	_, ok := lookup(id)
	return ok
}

// declared is the optional checkers the run's dispatcher opts into.
func declared(meta history.Meta) []Checker {
	var out []Checker
	for _, c := range Optional() {
		if Declared(c.ID, meta) {
			out = append(out, c)
		}
	}
	return out
}
