package reports

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/redact"
)

// SchemaVersion is the version of the results.json schema documented in
// doc.go. It changes whenever a field changes meaning or goes away.
const SchemaVersion = 2

// Results is the content of results.json: one run's verdict, every invariant's
// result and the run's numbers. See doc.go for the schema, field by field.
type Results struct {
	SchemaVersion int           `json:"schema_version"`
	Run           history.Meta  `json:"run"`
	Verdict       check.Verdict `json:"verdict"`
	// VerdictReason says why the verdict is not a pass (check.Decide).
	VerdictReason string          `json:"verdict_reason,omitempty"`
	Findings      []check.Finding `json:"findings"`
	Invariants    []check.Result  `json:"invariants"`
	// Landing is the scenario's landing requirements, judged: one not met
	// makes a run without violations unknown.
	Landing  []check.Landing  `json:"landing"`
	Counts   Counts           `json:"counts"`
	Latency  Latency          `json:"latency"`
	Duration history.Duration `json:"duration"`
	Faults   []history.Fault  `json:"faults"`
	Gaps     []history.Gap    `json:"gaps"`
}

// Counts are the run's sizes.
type Counts struct {
	Events      int `json:"events"`
	Valid       int `json:"valid"`
	Poison      int `json:"poison"`
	Published   int `json:"published"`
	Failed      int `json:"failed"`
	ValidFailed int `json:"valid_failed"` // valid events that ended failed
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
	landing := check.CheckLanding(run)
	if landing == nil {
		landing = []check.Landing{}
	}
	verdict, reason := check.Decide(results, run.Meta.Exercises, landing)
	invariants := redactResults(results)
	return Results{
		SchemaVersion: SchemaVersion,
		Run:           history.RedactMeta(run.Meta),
		Verdict:       verdict,
		VerdictReason: redact.String(reason),
		Findings:      findingsOf(invariants),
		Invariants:    invariants,
		Landing:       landing,
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
		return r, fmt.Errorf("read results %s: schema version %d, this build reads %d: re-check and re-render the run from its stored history with `outboxchaos report %s`",
			path, r.SchemaVersion, SchemaVersion, filepath.Dir(path))
	}
	return r, nil
}

// findingsOf groups redacted results' violations; never nil, so results.json
// always holds the list.
func findingsOf(results []check.Result) []check.Finding {
	fs := check.Findings(results)
	if fs == nil {
		fs = []check.Finding{}
	}
	return fs
}

// redactResults redacts every text of the results (never nil: results.json
// lists them always).
func redactResults(in []check.Result) []check.Result {
	if in == nil {
		in = []check.Result{}
	}
	return redact.Slice(in, func(r check.Result) check.Result {
		redact.Fields(&r.Name, &r.Reason, &r.Waived)
		r.Violations = redact.Slice(r.Violations, redactViolation) // absent stays absent
		return r
	})
}

// redactViolation redacts every text of v. Its steps are always a list
// (results.json's "steps" is never null), its instances stay absent when
// absent.
func redactViolation(v check.Violation) check.Violation {
	redact.Fields(&v.Summary, &v.Rule, &v.JobID)
	v.Instances = redact.Strings(v.Instances)
	if v.Steps == nil {
		v.Steps = []check.Line{}
	}
	v.Steps = redact.Slice(v.Steps, func(l check.Line) check.Line {
		redact.Fields(&l.Source, &l.Text)
		return l
	})
	return v
}

// redactFindings redacts every text of the findings (never nil, as results).
func redactFindings(in []check.Finding) []check.Finding {
	if in == nil {
		in = []check.Finding{}
	}
	return redact.Slice(in, func(f check.Finding) check.Finding {
		redact.Fields(&f.Headline)
		f.Rules = redact.Strings(f.Rules)
		f.Jobs = redact.Strings(f.Jobs)
		f.Instances = redact.Strings(f.Instances)
		return f
	})
}

// span is the run's time range.
type span struct{ start, end time.Time }

func (s span) duration() time.Duration {
	if s.end.Before(s.start) {
		return 0
	}
	return s.end.Sub(s.start)
}
