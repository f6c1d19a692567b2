package chaostest

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

// action is what a subtest does with a run's outcome.
type action int

const (
	actPass action = iota
	actFail
	actSkip
)

// judge maps an outcome onto the subtest: a missing capability skips; a
// pass passes; a fail fails with the findings of res, its results.json
// (explain); anything else is unknown, which skips with its reason unless
// strict. cmd reproduces the run; kept says the run folder outlives the
// test (-chaostest.out).
func judge(o runner.Outcome, res verdict.Results, strict bool, cmd string, kept bool) (action, string) {
	folder := "run folder " + o.Dir + " (index.html draws the timeline)"
	if !kept {
		folder = "run folder " + o.Dir + " (index.html draws the timeline; removed when the test ends, keep it with -chaostest.out=DIR)"
	}
	switch {
	case o.Skipped != "":
		return actSkip, "skipped: " + o.Skipped
	case o.Verdict == check.Pass:
		return actPass, "pass: every invariant held; " + folder
	case o.Verdict == check.Fail:
		return actFail, explain(o, res, cmd, folder)
	}
	msg := fmt.Sprintf("unknown (%s): %s\n%s\nreproduce: %s", o.Verdict, strings.TrimSpace(o.Reason), folder, cmd)
	if strict {
		return actFail, msg + "\n(-chaostest.strict: an unknown verdict fails)"
	}
	return actSkip, msg + "\n(give -chaostest.strict to fail on an unknown verdict)"
}
