package check

import (
	"sort"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/declare"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// undeclaredNote ends the reason of every return the history cannot tell
// for lack of the adapter's conventions (moves.go, rule 5 of doc.go).
const undeclaredNote = " (the adapter declares no release or recovery conventions)"

// Declarations names the manifest lines that would settle what results
// leave unknown for lack of a declaration: when a required (not waived)
// invariant is unknown because a return to pending could be a release or a
// retry without backoff (moveUnclear), the conventions block, filled with
// the last_error prefixes those returns wrote in this run. Nil when nothing
// is unknown for that reason.
func Declarations(run history.Run, results []Result) []declare.Suggestion {
	var settles []string
	for _, r := range results {
		if r.Verdict == Unknown && r.Waived == "" && strings.Contains(r.Reason, undeclaredNote) {
			settles = append(settles, r.ID)
		}
	}
	if len(settles) == 0 {
		return nil
	}
	returns := unclearReturns(newIndex(run))
	if len(returns) == 0 {
		return nil
	}
	return []declare.Suggestion{declare.Conventions(settles, returns)}
}

// unclearReturns lists every return to pending the history could not tell
// (moveUnclear), in event order.
func unclearReturns(ix *index) []declare.Return {
	ids := make([]int64, 0, len(ix.moves))
	for id := range ix.moves {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, k int) bool { return ids[i] < ids[k] })
	var out []declare.Return
	for _, id := range ids {
		for i, m := range ix.moves[id] {
			if m == moveUnclear {
				t := ix.outbox[id][i]
				out = append(out, declare.Return{Event: id, LastError: t.LastError, OldLastError: t.OldLastError})
			}
		}
	}
	return out
}
