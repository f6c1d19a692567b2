package reports

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/redact"
)

// SchemaVersion is the version of the results.json schema documented in
// doc.go. It changes whenever a field changes meaning or goes away.
const SchemaVersion = 1

// Results is the content of results.json: one run's verdict, every invariant's
// result and the run's numbers. See doc.go for the schema, field by field.
type Results struct {
	SchemaVersion int              `json:"schema_version"`
	Run           history.Meta     `json:"run"`
	Verdict       check.Verdict    `json:"verdict"`
	Invariants    []check.Result   `json:"invariants"`
	Counts        Counts           `json:"counts"`
	Latency       Latency          `json:"latency"`
	Duration      history.Duration `json:"duration"`
	Faults        []history.Fault  `json:"faults"`
	Gaps          []history.Gap    `json:"gaps"`
}

// Counts are the run's sizes.
type Counts struct {
	Events      int `json:"events"`
	Valid       int `json:"valid"`
	Poison      int `json:"poison"`
	Published   int `json:"published"`
	Failed      int `json:"failed"`
	Unfinished  int `json:"unfinished"`
	JobsCreated int `json:"jobs_created"`
	Takes       int `json:"takes"`
	Transitions int `json:"transitions"`
	Faults      int `json:"faults"`
	Instances   int `json:"instances"`
	Gaps        int `json:"gaps"`
}

// Latency is commit-to-published latency over every published event, in
// milliseconds.
type Latency struct {
	Samples int     `json:"samples"`
	P50Ms   float64 `json:"p50_ms"`
	P99Ms   float64 `json:"p99_ms"`
	MaxMs   float64 `json:"max_ms"`
}

// Build turns a recorded run and its checkers' results into Results. Every
// string that can hold a DSN, a URL or a dispatcher's text is redacted; the
// caller's values are not modified.
func Build(run history.Run, results []check.Result) Results {
	ix := indexRun(run)
	return Results{
		SchemaVersion: SchemaVersion,
		Run:           history.RedactMeta(run.Meta),
		Verdict:       verdictOf(results),
		Invariants:    redactResults(results),
		Counts:        countRun(run, ix),
		Latency:       summarizeLatency(ix.latencies()),
		Duration:      history.Duration(runSpan(run).duration()),
		Faults:        history.RedactFaults(run.Faults),
		Gaps:          history.RedactGaps(run.Gaps),
	}
}

// ReadResults reads a results.json written by WriteRun, refusing a schema
// version it does not know.
func ReadResults(path string) (Results, error) {
	var r Results
	b, err := os.ReadFile(path)
	if err != nil {
		return r, fmt.Errorf("read results: %w", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("read results %s: %w", path, err)
	}
	if r.SchemaVersion != SchemaVersion {
		return r, fmt.Errorf("read results %s: schema version %d, this build reads %d: re-render it with `outboxchaos report`", path, r.SchemaVersion, SchemaVersion)
	}
	return r, nil
}

// verdictOf is check.Overall, except that a run with no result at all is
// unknown: nothing was checked, so nothing passed.
func verdictOf(results []check.Result) check.Verdict {
	if len(results) == 0 {
		return check.Unknown
	}
	return check.Overall(results)
}

func redactResults(in []check.Result) []check.Result {
	out := make([]check.Result, len(in))
	for i, r := range in {
		r.Name = redact.String(r.Name)
		r.Reason = redact.String(r.Reason)
		r.Waived = redact.String(r.Waived)
		vs := make([]check.Violation, len(r.Violations))
		for j, v := range r.Violations {
			vs[j] = redactViolation(v)
		}
		if r.Violations == nil {
			vs = nil
		}
		r.Violations = vs
		out[i] = r
	}
	return out
}

func redactViolation(v check.Violation) check.Violation {
	v.Summary = redact.String(v.Summary)
	v.JobID = redact.String(v.JobID)
	inst := make([]string, len(v.Instances))
	for i, s := range v.Instances {
		inst[i] = redact.String(s)
	}
	if v.Instances == nil {
		inst = nil
	}
	v.Instances = inst
	steps := make([]check.Step, len(v.Steps))
	for i, s := range v.Steps {
		s.Source = redact.String(s.Source)
		s.Text = redact.String(s.Text)
		steps[i] = s
	}
	v.Steps = steps
	return v
}

// span is the run's time range.
type span struct{ start, end time.Time }

func (s span) duration() time.Duration {
	if s.end.Before(s.start) {
		return 0
	}
	return s.end.Sub(s.start)
}
