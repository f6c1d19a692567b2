package check

import (
	"fmt"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// ID names an invariant ("I1").
type ID = string

// The invariants' ids.
const (
	I1  ID = "I1"
	I2  ID = "I2"
	I3  ID = "I3"
	I4  ID = "I4"
	I5  ID = "I5"
	I6  ID = "I6"
	I7  ID = "I7"
	I8  ID = "I8"
	I9  ID = "I9"
	I10 ID = "I10"
)

// invariant is one invariant, written once: its id and name, the nouns its
// violations are counted with, what it needs of the outbox (history.Lack*
// constants: the outbox lacking one makes it not applicable), whether it is
// opt-in, and its judgement of the run's index. Its definition is the doc
// comment of its judge, one file per invariant.
type invariant struct {
	id        ID
	name      string
	one, many string
	needs     []string
	optional  bool
	judge     func(*index, *tally) Result
	// run, when set, checks the run itself instead of judge (I10 reads the
	// run, not the index).
	run func(history.Run) Result
}

// invariants is the one table of invariants, in order. It is filled in
// init: the judges name their invariant through it (a cycle the compiler
// refuses in a var initializer).
var invariants []invariant

func init() { invariants = table() }

func table() []invariant {
	return []invariant{
		{id: I1, name: "no duplicate job", one: "job created more than once", many: "jobs created more than once", judge: (*index).judgeDuplicates},
		{id: I2, name: "eventually published", one: "valid event not published", many: "valid events not published", judge: (*index).judgePublished},
		{id: I3, name: "consistent", one: "inconsistent event", many: "inconsistent events", judge: (*index).judgeConsistent},
		{id: I4, name: "poison fails fast", one: "poison event not failed fast", many: "poison events not failed fast",
			needs: []string{history.LackPoison}, judge: (*index).judgePoison},
		{id: I5, name: "exclusive claims", one: "breach of claim exclusivity", many: "breaches of claim exclusivity",
			needs: []string{history.LackClaims}, judge: (*index).judgeExclusive},
		{id: I6, name: "backoff respected", one: "backoff breach", many: "backoff breaches",
			needs: []string{history.LackClaims, history.LackAttempts, history.LackBackoff}, judge: (*index).judgeBackoff},
		{id: I7, name: "bounded attempts", one: "event retried past or failed before the maximum attempts", many: "events retried past or failed before the maximum attempts",
			needs: []string{history.LackAttempts, history.LackFailed}, judge: (*index).judgeAttempts},
		{id: I8, name: "lease recovery", one: "dead owner's claim not recovered in time", many: "dead owners' claims not recovered in time",
			needs: []string{history.LackLeases}, judge: (*index).judgeLeaseRecovery},
		{id: I9, name: "job untouched", one: "job hash overwritten", many: "job hashes overwritten",
			needs: []string{needBullMQ}, judge: (*index).judgeUntouched},
		{id: I10, name: "per-aggregate order", optional: true, run: CheckOrdering},
	}
}

// needBullMQ is I9's need: job hashes exist only in BullMQ.
const needBullMQ = "bullmq"

// check is the invariant's check of a run.
func (inv invariant) check() func(history.Run) Result {
	if inv.run != nil {
		return inv.run
	}
	return indexed(inv)
}

func lookup(id ID) (invariant, bool) {
	for _, inv := range invariants {
		if inv.id == id {
			return inv, true
		}
	}
	return invariant{}, false
}

// WhyNotApplicable says why invariant id cannot hold or break on an outbox of
// model m ("not applicable: the outbox has no leases"), or "" when it
// applies. Such an invariant is never judged: it is its own state, never a
// pass and never exercised.
func WhyNotApplicable(id ID, m history.Model) string {
	inv, ok := lookup(id)
	if !ok {
		return ""
	}
	var lacks []string
	for _, n := range inv.needs {
		if n == needBullMQ && m.Sink != history.SinkBullMQ {
			lacks = append(lacks, "publishes to a "+m.SinkName()+", which has no job hash to overwrite")
		} else if n != needBullMQ && !m.Has(n) {
			lacks = append(lacks, lackText[n])
		}
	}
	if len(lacks) == 0 {
		return ""
	}
	return fmt.Sprintf("not applicable: the outbox %s", strings.Join(lacks, ", and "))
}

// lackText says what an outbox lacking it does not have.
var lackText = map[string]string{
	history.LackClaims:   "has no claims (nothing says a relay holds a row)",
	history.LackLeases:   "has no leases (no lease end on its claims)",
	history.LackAttempts: "counts no attempts",
	history.LackBackoff:  "has no available_at to back off with",
	history.LackFailed:   "has no failed state",
	history.LackJobs:     "has no jobs table",
	history.LackPoison:   "gives no event a way to be poison (that needs a jobs table, a failed state and an event type)",
}

// Check runs invariant id's check on run, as Evaluate would but for that
// one invariant: not applicable where the outbox lacks what it needs, and
// unknown for an id no invariant has.
func Check(id ID, run history.Run) Result {
	inv, ok := lookup(id)
	if !ok {
		return Result{ID: id, Verdict: Unknown, Reason: fmt.Sprintf("no invariant is called %s", id)}
	}
	return runOne(Checker{ID: inv.id, Name: inv.name, Check: inv.check()}, run)
}
