package check

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// The rules of the contract (docs/contract.md §2) a violation rests on,
// stated where they apply. Each names its section and step as the page numbers
// them, so that a reader of a report can look the rule up.
const (
	ruleAlreadyDispatched = "docs/contract.md §2 step 2: a job already past created was dispatched before, so its event is closed as published with no second add"
	ruleStep4             = "docs/contract.md §2 step 4 moves the job created -> queued together with the publish"
	ruleTransient         = "docs/contract.md §2 step 5: a transient failure goes back to pending with attempts counted and a backoff that grows with them, and at the maximum attempts the event is failed"
	rulePermanent         = "docs/contract.md §2 step 6: a permanent failure is failed at once, with the reason, no BullMQ job and no retry"
	ruleRecovery          = "docs/contract.md §2 step 7: a dead owner's claim is recoverable once its lease runs out"
)

// legalJobID tells whether id is a legal BullMQ jobId by the contract: not
// all digits (of any length: BullMQ's own `${parseInt(id)}` === id test
// misses ids past 2^53, and a 64-bit parse overflows) and no ':'.
func legalJobID(id string) bool {
	return id != "" && !history.AllDigits(id) && !strings.Contains(id, ":")
}

// jobIDRule states why id is not a legal jobId, with the rule.
func jobIDRule(id string) string {
	if legalJobID(id) {
		return fmt.Sprintf("docs/contract.md §2 step 2: a jobId must not be all digits (of any length) and must not contain ':'; %q passes that test, though the workload produced it as illegal", id)
	}
	why := "it is empty"
	switch {
	case history.AllDigits(id) && len(id) > 15:
		why = fmt.Sprintf("it is all digits; BullMQ's own parseInt check misses a %d-digit id such as this one", len(id))
	case history.AllDigits(id):
		why = "it is all digits"
	case strings.Contains(id, ":"):
		why = "it contains ':'"
	}
	return fmt.Sprintf("docs/contract.md §2 step 2: a jobId must not be all digits (of any length) and must not contain ':'; %q is illegal because %s", id, why)
}

// poisonRule states why a poison event of this kind must fail, with the
// rule: the kind's own reason, then step 6.
func poisonRule(e history.Event) string {
	switch e.Kind {
	case history.KindIllegalJobID:
		return jobIDRule(e.JobID) + "; " + rulePermanent
	case history.KindUnknownType:
		return fmt.Sprintf("docs/contract.md §2 step 2: only event_type ai.job.enqueue is dispatched, and this one is %q; %s", e.Type, rulePermanent)
	case history.KindMissingJob:
		return fmt.Sprintf("docs/contract.md §2 step 2: its job %s does not exist in ai_jobs; %s", e.JobID, rulePermanent)
	case history.KindQueueDenied:
		return fmt.Sprintf("docs/contract.md §2 step 2: queue %q is not in the allowlist; %s", e.Queue, rulePermanent)
	case history.KindLongError, history.KindMultibyteError:
		return fmt.Sprintf("docs/contract.md §2 step 2: queue %q is not in the allowlist; %s, even when the first text written for it does not fit last_error (cut it to the column, on a character boundary)", e.Queue, rulePermanent)
	}
	return rulePermanent
}

// rules are the contract's rules a violation's summary may rest on, most
// specific first.
var rules = []string{ruleAlreadyDispatched, ruleStep4, rulePermanent, ruleTransient, ruleRecovery}

// ruleIn is the rule a summary states (Violation.Rule), or "" when it
// rests on the invariant's definition alone.
func ruleIn(summary string) string {
	for _, r := range rules {
		if strings.Contains(summary, r) {
			return r
		}
	}
	return ""
}
