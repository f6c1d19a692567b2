package chaostest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

// How much of a failed run the test log shows; the run folder has it all.
const (
	maxFindings = 5
	maxSteps    = 12
	maxIDs      = 10
)

// explain tells a failed run in plain words: the verdict's reason, each
// finding (the cause: its headline, the invariants it breaks, the events,
// jobs and instances it is about, and the lead violation's steps, the
// events in time order), and the command that reproduces the run. It reads
// the run's results.json content (r), already redacted.
func explain(o runner.Outcome, r verdict.Results, cmd, folder string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "FAIL: %s against %s, seed %d: %s\n", r.Run.Scenario, r.Run.Adapter, r.Run.Seed, strings.TrimSpace(o.Reason))
	shown := r.Findings
	if len(shown) > maxFindings {
		shown = shown[:maxFindings]
	}
	for i, f := range shown {
		fmt.Fprintf(&b, "\nfinding %d of %d: %s\n", i+1, len(r.Findings), f.Headline)
		writeFinding(&b, f, r)
	}
	if len(r.Findings) > len(shown) {
		fmt.Fprintf(&b, "\n... %d more findings in results.json\n", len(r.Findings)-len(shown))
	}
	fmt.Fprintf(&b, "\n%s\nreproduce: %s\n", folder, cmd)
	return b.String()
}

func writeFinding(b *strings.Builder, f check.Finding, r verdict.Results) {
	names := map[string]string{}
	for _, inv := range r.Invariants {
		names[inv.ID] = inv.Name
	}
	var breaks []string
	for _, id := range f.Invariants {
		breaks = append(breaks, strings.TrimSpace(id+" "+names[id]))
	}
	fmt.Fprintf(b, "  breaks: %s\n", strings.Join(breaks, "; "))
	if len(f.Events) > 0 {
		ids := make([]string, len(f.Events))
		for i, e := range f.Events {
			ids[i] = strconv.FormatInt(e, 10)
		}
		fmt.Fprintf(b, "  events: %s\n", capped(ids))
	}
	if len(f.Jobs) > 0 {
		fmt.Fprintf(b, "  jobs: %s\n", capped(f.Jobs))
	}
	if len(f.Instances) > 0 {
		fmt.Fprintf(b, "  instances: %s\n", strings.Join(f.Instances, ", "))
	}
	if v, ok := lead(f, r); ok {
		writeSteps(b, v, r.Run.Started)
	}
}

// lead is the finding's first violation, the one its headline tells.
func lead(f check.Finding, r verdict.Results) (check.Violation, bool) {
	if len(f.Violations) == 0 {
		return check.Violation{}, false
	}
	ref := f.Violations[0]
	for _, inv := range r.Invariants {
		if inv.ID == ref.Invariant && ref.Index >= 0 && ref.Index < len(inv.Violations) {
			return inv.Violations[ref.Index], true
		}
	}
	return check.Violation{}, false
}

func writeSteps(b *strings.Builder, v check.Violation, start time.Time) {
	about := "what happened"
	switch {
	case v.EventID != 0:
		about += " to event " + strconv.FormatInt(v.EventID, 10)
	case v.JobID != "":
		about += " to job " + v.JobID
	}
	fmt.Fprintf(b, "  %s:\n", about)
	for i, s := range v.Steps {
		if i == maxSteps {
			fmt.Fprintf(b, "    ... %d more steps in results.json\n", len(v.Steps)-maxSteps)
			break
		}
		fmt.Fprintf(b, "    %2d. %s [%s] %s\n", i+1, offset(s.At, start), s.Source, s.Text)
	}
}

// offset is a step's time since the run started, "+1.234s".
func offset(at, start time.Time) string {
	if at.IsZero() || start.IsZero() {
		return "-"
	}
	return fmt.Sprintf("%+.3fs", at.Sub(start).Seconds())
}

func capped(ids []string) string {
	if len(ids) <= maxIDs {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:maxIDs], ", ") + fmt.Sprintf(" and %d more", len(ids)-maxIDs)
}
