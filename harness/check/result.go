package check

import "time"

// Verdict is three-valued, as in porcupine: a checker that cannot tell says so.
type Verdict string

// Verdicts.
const (
	Pass    Verdict = "pass"
	Fail    Verdict = "fail"
	Unknown Verdict = "unknown"
)

// Result is one invariant's verdict on one run.
type Result struct {
	ID         string      `json:"id"`   // I1..I9
	Name       string      `json:"name"` // "no duplicate job"
	Verdict    Verdict     `json:"verdict"`
	Reason     string      `json:"reason,omitempty"` // why unknown, or a one-line summary
	Waived     string      `json:"waived,omitempty"` // set when the scenario does not require it
	Violations []Violation `json:"violations,omitempty"`
	// Takeover is I8's measure of every takeover delay (lease end to the
	// write that took the claim over or recovered it); nil elsewhere.
	Takeover *Distribution `json:"takeover,omitempty"`
}

// Violation is one counterexample, told in plain words.
type Violation struct {
	EventID   int64    `json:"event_id,omitempty"`
	JobID     string   `json:"job_id,omitempty"`
	Instances []string `json:"instances,omitempty"`
	Summary   string   `json:"summary"` // one sentence a person understands
	Steps     []Step   `json:"steps"`   // the transitions and faults that prove it, in time order
}

// Step is one line of a counterexample.
type Step struct {
	At     time.Time `json:"at"`
	Source string    `json:"source"` // mysql, redis, consumer, fault, process
	Text   string    `json:"text"`
}
