package reports

import (
	"time"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/declare"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/redact"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

// Build turns a recorded run and its checkers' results into verdict.Results. Every
// string that can hold a DSN, a URL or a dispatcher's text is redacted; the
// caller's values are not modified.
func Build(run history.Run, results []check.Result) verdict.Results {
	ix := indexRun(run)
	landing := check.CheckLanding(run)
	if landing == nil {
		landing = []check.Landing{}
	}
	v, reason := check.Decide(results, run.Meta.Exercises, landing)
	invariants := redactResults(results)
	return verdict.Results{
		SchemaVersion: verdict.SchemaVersion,
		Run:           history.RedactMeta(run.Meta),
		Verdict:       v,
		VerdictReason: redact.String(reason),
		Findings:      findingsOf(invariants),
		Invariants:    invariants,
		Landing:       landing,
		Declarations:  redactDeclarations(check.Declarations(run, results)),
		LostAdds:      lostAddsOf(run),
		Counts:        countRun(run, ix),
		Latency:       summarizeLatency(ix.latencies()),
		Duration:      history.Duration(runSpan(run).duration()),
		Faults:        history.RedactFaults(run.Faults),
		Gaps:          history.RedactGaps(run.Gaps),
	}
}

// lostAddsOf lists the adds Redis lost; never nil, so results.json always
// holds the list. Its fields are ids and times the harness made: nothing
// to redact.
func lostAddsOf(run history.Run) []check.LostAdd {
	l := check.LostAdds(run)
	if l == nil {
		l = []check.LostAdd{}
	}
	return l
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

// redactDeclarations redacts every text of the suggestions (never nil, as
// results). A last_error prefix could carry a DSN: the YAML is redacted as
// the prefixes are, so it still shows what they show.
func redactDeclarations(in []declare.Suggestion) []declare.Suggestion {
	if in == nil {
		in = []declare.Suggestion{}
	}
	return redact.Slice(in, func(s declare.Suggestion) declare.Suggestion {
		redact.Fields(&s.Why, &s.YAML)
		s.Settles = redact.Strings(s.Settles)
		s.Prefixes = redact.Slice(s.Prefixes, func(p declare.SeenPrefix) declare.SeenPrefix {
			redact.Fields(&p.Prefix)
			return p
		})
		return s
	})
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
