package check_test

import (
	"fmt"
	"path/filepath"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Checking a stored run: load the run folder's history (what the runner
// wrote, or a history recorded long ago), run every checker over it, and
// decide the run's verdict as the runner and `outboxchaos report` do. No
// server is needed: a checker is a function of the history.
func ExampleEvaluate() {
	run, err := history.Load(filepath.Join("..", "..", "testdata", "histories", "bad-i4-poison-retried"))
	if err != nil {
		fmt.Println(err)
		return
	}
	results := check.Evaluate(run)
	for _, r := range results {
		fmt.Printf("%s %s: %s, %d violations\n", r.ID, r.Name, r.Verdict, len(r.Violations))
	}
	verdict, why := check.Decide(results, run.Meta.Exercises, check.CheckLanding(run))
	fmt.Printf("verdict: %s (%s)\n", verdict, why)
	for _, f := range check.Findings(results) {
		fmt.Printf("finding: breaks %v, events %v, instances %v\n", f.Invariants, f.Events, f.Instances)
	}
	// Output:
	// I1 no duplicate job: not-exercised, 0 violations
	// I2 eventually published: not-exercised, 0 violations
	// I3 consistent: pass, 0 violations
	// I4 poison fails fast: fail, 1 violations
	// I5 exclusive claims: pass, 0 violations
	// I6 backoff respected: pass, 0 violations
	// I7 bounded attempts: not-exercised, 0 violations
	// I8 lease recovery: not-exercised, 0 violations
	// I9 job untouched: not-exercised, 0 violations
	// verdict: fail (violated: I4 poison fails fast)
	// finding: breaks [I4], events [1], instances [d1]
}
