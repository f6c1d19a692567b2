package check

import (
	"fmt"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

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

var names = map[string]string{
	"I1": "no duplicate job",
	"I2": "eventually published",
	"I3": "consistent",
	"I4": "poison fails fast",
	"I5": "exclusive claims",
	"I6": "backoff respected",
	"I7": "bounded attempts",
	"I8": "lease recovery",
	"I9": "job untouched",
}

func nameOf(id string) string { return names[id] }

// Run runs every checker on the run. An invariant the scenario waives
// (run.Meta.Waived[id]) keeps its verdict and carries the reason in Waived.
// A checker that panics on a malformed history yields unknown, with the
// panic in the reason, instead of taking the harness down.
func Run(run history.Run) []Result {
	out := make([]Result, 0, 9)
	for _, c := range All() {
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

// Overall folds results into one verdict: fail if any non-waived result
// fails, else unknown if any non-waived result is unknown, else pass.
func Overall(results []Result) Verdict {
	v := Pass
	for _, r := range results {
		if r.Waived != "" {
			continue
		}
		switch r.Verdict {
		case Fail:
			return Fail
		case Unknown:
			v = Unknown
		case Pass:
		default:
			v = Unknown
		}
	}
	return v
}
