package check

import "time"

// Verdict is one invariant's answer on one run. As in porcupine, a checker
// that cannot tell says so (unknown); and a checker that had nothing to check
// says that too (not exercised), so that no pass rests on an empty history.
type Verdict string

// Verdicts.
const (
	Pass    Verdict = "pass"
	Fail    Verdict = "fail"
	Unknown Verdict = "unknown"
	// NotExercised is an invariant the run gave nothing to check: no poison
	// event for I4, no transient failure for I6, no dead owner's expired
	// claim for I8, tuning the adapter does not honour. It fails nothing and
	// claims nothing; Fold makes the run unknown when the scenario exists to
	// exercise that invariant (history.Meta.Exercises).
	NotExercised Verdict = "not-exercised"
	// NotApplicable is an invariant the dispatcher's outbox cannot express
	// at all (I8 for an outbox without leases, I9 for a sink other than
	// BullMQ: WhyNotApplicable). It is never judged, never a pass and never
	// exercised.
	NotApplicable Verdict = "not-applicable"
)

// Result is one invariant's verdict on one run.
type Result struct {
	ID         ID          `json:"id"`   // I1..I10
	Name       string      `json:"name"` // "no duplicate job"
	Verdict    Verdict     `json:"verdict"`
	Reason     string      `json:"reason,omitempty"` // why unknown or not exercised, or a one-line summary
	Waived     string      `json:"waived,omitempty"` // set when the scenario does not require it
	Violations []Violation `json:"violations,omitempty"`
	// Takeover is I8's measurement of every takeover of a dead owner's
	// expired claim: the delay from the lease end to the write that ended
	// the claim. Nil when none was measured (and on other invariants).
	Takeover *Distribution `json:"takeover,omitempty"`
	// Duplicates is I1's count, for an at-least-once dispatcher, of the
	// messages delivered more than once under their own message id: the
	// load its consumers' dedupe carries, not a violation.
	Duplicates int `json:"duplicates,omitempty"`
}

// Violation is one counterexample, told in plain words.
type Violation struct {
	EventID   int64    `json:"event_id,omitempty"`
	JobID     string   `json:"job_id,omitempty"`
	Instances []string `json:"instances,omitempty"`
	Summary   string   `json:"summary"` // one sentence a person understands
	// Rule is the rule of docs/contract.md the violation rests on, with
	// its section ("docs/contract.md §2 step 2: a job already past created is
	// closed as published, with no second add"); empty when it rests on the
	// invariant's definition alone.
	Rule  string `json:"rule,omitempty"`
	Steps []Line `json:"steps"` // the transitions and faults that prove it, in time order
}

// Line is one line of a counterexample.
type Line struct {
	At     time.Time `json:"at"`
	Source string    `json:"source"` // mysql, redis, consumer, fault, process
	Text   string    `json:"text"`
}

// Distribution summarises measured delays (I8's takeover delays) in
// seconds: how many, the median, the 99th percentile (both nearest rank) and
// the largest. NewDistribution builds one.
type Distribution struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_s"`
	P99   float64 `json:"p99_s"`
	Max   float64 `json:"max_s"`
}
