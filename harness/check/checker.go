package check

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// The invariants' checks (doc comments on the index methods, judge*). Each
// builds the run's index and a tally that counts its violations with the
// nouns given here.
var (
	CheckDuplicates    = indexed("I1", "job created more than once", "jobs created more than once", (*index).judgeDuplicates)
	CheckPublished     = indexed("I2", "valid event not published", "valid events not published", (*index).judgePublished)
	CheckConsistent    = indexed("I3", "inconsistent event", "inconsistent events", (*index).judgeConsistent)
	CheckPoison        = indexed("I4", "poison event not failed fast", "poison events not failed fast", (*index).judgePoison)
	CheckExclusive     = indexed("I5", "breach of claim exclusivity", "breaches of claim exclusivity", (*index).judgeExclusive)
	CheckBackoff       = indexed("I6", "backoff breach", "backoff breaches", (*index).judgeBackoff)
	CheckAttempts      = indexed("I7", "event retried past or failed before the maximum attempts", "events retried past or failed before the maximum attempts", (*index).judgeAttempts)
	CheckLeaseRecovery = indexed("I8", "dead owner's claim not recovered in time", "dead owners' claims not recovered in time", (*index).judgeLeaseRecovery)
	CheckUntouched     = indexed("I9", "job hash overwritten", "job hashes overwritten", (*index).judgeUntouched)
)

// indexed makes an invariant's check from its judgement of the run's index.
func indexed(id, one, many string, judge func(*index, *tally) Result) func(history.Run) Result {
	return func(run history.Run) Result { return judge(newIndex(run), newTally(id, one, many)) }
}

// Checker is one invariant: its id (I1..I9), its name, and its check.
type Checker struct {
	ID, Name string
	Check    func(history.Run) Result
}

// All returns every invariant's checker, I1..I9 in order.
func All() []Checker {
	return []Checker{
		{ID: "I1", Name: nameOf("I1"), Check: CheckDuplicates},
		{ID: "I2", Name: nameOf("I2"), Check: CheckPublished},
		{ID: "I3", Name: nameOf("I3"), Check: CheckConsistent},
		{ID: "I4", Name: nameOf("I4"), Check: CheckPoison},
		{ID: "I5", Name: nameOf("I5"), Check: CheckExclusive},
		{ID: "I6", Name: nameOf("I6"), Check: CheckBackoff},
		{ID: "I7", Name: nameOf("I7"), Check: CheckAttempts},
		{ID: "I8", Name: nameOf("I8"), Check: CheckLeaseRecovery},
		{ID: "I9", Name: nameOf("I9"), Check: CheckUntouched},
	}
}

// Optional returns the opt-in invariants, after I1..I9: each judges a
// promise only some dispatchers make, and Run checks it only for a run
// whose dispatcher declares it (Declared).
func Optional() []Checker {
	return []Checker{{ID: "I10", Name: nameOf("I10"), Check: CheckOrdering}}
}

// Declared tells whether the run's dispatcher declares the promise an
// optional invariant judges: I10 needs ordering: per-aggregate.
func Declared(id string, meta history.Meta) bool {
	return id == "I10" && meta.Ordering != ""
}

var names = map[string]string{
	"I1":  "no duplicate job",
	"I2":  "eventually published",
	"I3":  "consistent",
	"I4":  "poison fails fast",
	"I5":  "exclusive claims",
	"I6":  "backoff respected",
	"I7":  "bounded attempts",
	"I8":  "lease recovery",
	"I9":  "job untouched",
	"I10": "per-aggregate order",
}

func nameOf(id string) string { return names[id] }

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
	by := make(map[string]Result, len(results))
	var failed, undecided []string
	passed := 0
	for _, r := range results {
		by[r.ID] = r
		if r.Waived != "" {
			continue
		}
		switch r.Verdict {
		case Fail:
			failed = append(failed, r.ID+" "+r.Name)
		case Pass:
			passed++
		case NotExercised:
		case Unknown:
			undecided = append(undecided, fmt.Sprintf("%s %s could not be decided: %s", r.ID, r.Name, r.Reason))
		default:
			undecided = append(undecided, fmt.Sprintf("%s %s has verdict %q, which this build does not know", r.ID, r.Name, r.Verdict))
		}
	}
	if len(failed) > 0 {
		return Fail, "violated: " + strings.Join(failed, ", ")
	}
	undecided = append(undecided, unexercised(by, exercises)...)
	if len(undecided) == 0 && passed == 0 {
		undecided = append(undecided, "no required invariant had anything to check")
	}
	if len(undecided) > 0 {
		return Unknown, strings.Join(undecided, "; ")
	}
	return Pass, ""
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
		case r.Waived != "":
		case r.Verdict == NotExercised:
			out = append(out, fmt.Sprintf("%s %s, which this scenario exists to exercise, had nothing to check: %s", r.ID, r.Name, r.Reason))
		}
	}
	return out
}

// Known tells whether id names one of the invariants (I1..I9).
func Known(id string) bool {
	_, ok := names[id]
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
