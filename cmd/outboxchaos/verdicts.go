package main

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/runner"
)

// foldOutcomes folds the runs of one `chaos` into its exit code (a fail over
// an unknown over a pass; a scenario skipped for a missing capability is no
// verdict) and a line counting them.
func foldOutcomes(outs []runner.Outcome) (int, string) {
	var codes []int
	n := map[check.Verdict]int{}
	skipped := 0
	for _, o := range outs {
		if o.Skipped != "" {
			skipped++ // said on the terminal; a missing capability is not a verdict
			continue
		}
		codes = append(codes, runner.ExitCode(o, nil))
		switch o.Verdict {
		case check.Pass, check.Fail:
			n[o.Verdict]++
		default:
			n[check.Unknown]++
		}
	}
	tally := fmt.Sprintf("%d pass, %d fail, %d unknown", n[check.Pass], n[check.Fail], n[check.Unknown])
	if skipped > 0 {
		tally += fmt.Sprintf(", %d skipped", skipped)
	}
	return runner.WorstExit(codes...), tally
}

// reasonSuffix is ": reason" after a verdict that is not a pass.
func reasonSuffix(v check.Verdict, reason string) string {
	if v == check.Pass || reason == "" {
		return ""
	}
	return ": " + strings.TrimSpace(reason)
}
