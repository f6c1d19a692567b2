package reports

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/declare"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/redact"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

// RunLink is one run of a `make chaos` invocation, for the summary page.
type RunLink struct {
	// Path is the run's folder relative to the summary's folder, with '/'
	// separators ("crash-window"); the page links Path/index.html.
	Path string
	// Results are the run's results, as Build or WriteRunResults returned
	// them (or as verdict.Read read them back from a stored Path/results.json).
	Results verdict.Results
}

func (l RunLink) validate(i int) error {
	p := l.Path
	switch {
	case p == "":
		return fmt.Errorf("run %d: empty Path: give the run folder relative to the summary folder", i+1)
	case path.IsAbs(p) || filepath.IsAbs(p):
		return fmt.Errorf("run %d: Path %q is absolute: give it relative to the summary folder", i+1, p)
	case strings.Contains(p, "\\"):
		return fmt.Errorf("run %d: Path %q uses '\\': use '/' separators", i+1, p)
	case strings.ContainsAny(p, ":?#"):
		return fmt.Errorf("run %d: Path %q is not a plain relative folder (no ':', '?' or '#')", i+1, p)
	}
	return nil
}

// SkippedRun is a scenario of the invocation that did not run: the
// adapter or the environment lacks what it needs (runner.Outcome.Skipped).
type SkippedRun struct {
	Scenario, Why string
	// Declarations are the manifest lines that would let it run
	// (runner.Outcome.Declarations), shown under it.
	Declarations []declare.Suggestion
}

// WriteSummary writes dir/index.html, a page linking every run of one
// invocation (scenario, verdict, seed, duration) and listing the scenarios
// skipped, each with why and the lines that would let it run, and
// dir/junit.xml, one testsuite per run, for CI.
func WriteSummary(dir string, runs []RunLink, skipped ...SkippedRun) error {
	if len(runs) == 0 {
		return errors.New("write summary: no runs: give at least one RunLink")
	}
	for i, l := range runs {
		if err := l.validate(i); err != nil {
			return fmt.Errorf("write summary: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	all := make([]verdict.Results, len(runs))
	for i, l := range runs {
		all[i] = redactResultsCopy(l.Results)
	}
	if err := writeFile(filepath.Join(dir, FileJUnit), func(w io.Writer) error { return writeJUnit(w, all) }); err != nil {
		return err
	}
	skips := make([]skippedView, 0, len(skipped))
	for _, k := range skipped {
		skips = append(skips, skippedView{Scenario: redact.String(k.Scenario), Why: redact.String(k.Why), Declarations: declarationViews(redactDeclarations(k.Declarations))})
	}
	return writeFile(filepath.Join(dir, FileHTML), func(w io.Writer) error { return renderSummary(w, runs, all, skips) })
}

// redactResultsCopy redacts results that may not have come from Build.
func redactResultsCopy(r verdict.Results) verdict.Results {
	r.Run = history.RedactMeta(r.Run)
	r.Invariants = redactResults(r.Invariants)
	r.VerdictReason = redact.String(r.VerdictReason)
	r.Findings = redactFindings(r.Findings)
	r.Declarations = redactDeclarations(r.Declarations)
	r.Faults = history.RedactFaults(r.Faults)
	r.Gaps = history.RedactGaps(r.Gaps)
	return r
}

type summaryPage struct {
	Verdict      string
	VerdictClass string
	Headline     string
	Rows         []summaryRow
	IDs          []string
	Skipped      []skippedView
}

type skippedView struct {
	Scenario, Why string
	Declarations  []declarationView
}

type summaryRow struct {
	Href, Scenario, Seed, Verdict, Class, Duration, Adapter, Command string
	Cells                                                            []summaryCell
	Why                                                              []string // the findings, or why the run is unknown
	Events, Published, Failed, Faults                                int
}

type summaryCell struct{ Text, Class, Title string }

func renderSummary(w io.Writer, runs []RunLink, all []verdict.Results, skipped []skippedView) error {
	results := make([]check.Result, 0, len(all))
	ids := invariantIDs(all)
	p := summaryPage{IDs: ids, Skipped: skipped}
	counts := map[check.Verdict]int{}
	idle := 0
	for i, r := range all {
		idle += countIdle(r.Invariants)
		v := r.Verdict
		counts[v]++
		results = append(results, check.Result{ID: strconv.Itoa(i), Verdict: v})
		p.Rows = append(p.Rows, summaryRow{
			Href: strings.TrimSuffix(runs[i].Path, "/") + "/" + FileHTML, Scenario: r.Run.Scenario,
			Seed: strconv.FormatInt(r.Run.Seed, 10), Verdict: strings.ToUpper(string(v)), Class: verdictClass(v),
			Duration: shortDuration(r.Duration.D()), Adapter: r.Run.Adapter, Command: r.Run.Command,
			Cells: summaryCells(ids, r.Invariants), Events: r.Counts.Events, Published: r.Counts.Published,
			Failed: r.Counts.Failed, Faults: r.Counts.Faults, Why: why(r),
		})
	}
	overall := check.Overall(results)
	p.Verdict, p.VerdictClass = strings.ToUpper(string(overall)), verdictClass(overall)
	p.Headline = fmt.Sprintf("%s: %d pass, %d fail, %d unknown.", count(len(all), "run", "runs"), counts[check.Pass], counts[check.Fail], len(all)-counts[check.Pass]-counts[check.Fail])
	if idle > 0 {
		p.Headline += fmt.Sprintf(" %s had nothing to check (not exercised): no pass is claimed for them.", count(idle, "invariant result", "invariant results"))
	}
	if len(skipped) > 0 {
		p.Headline += fmt.Sprintf(" %s skipped: see below.", count(len(skipped), "scenario", "scenarios"))
	}
	if err := pageTemplates.ExecuteTemplate(w, "summary.html", p); err != nil {
		return fmt.Errorf("render summary index.html: %w", err)
	}
	return nil
}

// countIdle counts the required results that had nothing to check.
func countIdle(rs []check.Result) int { return len(check.Classify(rs, nil).Idle) }

// why tells a run in lines: its findings' headlines when it has any (the
// first maxSummaryWhy), else each failed required invariant with its first
// violation, else why it is unknown.
func why(res verdict.Results) []string {
	if len(res.Findings) > 0 {
		shown, omitted := capSlice(res.Findings, maxSummaryWhy)
		out := make([]string, 0, len(shown)+1)
		for _, f := range shown {
			out = append(out, strings.Join(f.Invariants, ", ")+": "+f.Headline)
		}
		if omitted > 0 {
			out = append(out, fmt.Sprintf("and %s on the run's page", count(omitted, "more finding", "more findings")))
		}
		return out
	}
	if out := failedLines(res.Invariants); len(out) > 0 {
		return out
	}
	if res.Verdict != check.Pass && res.VerdictReason != "" {
		out := []string{res.VerdictReason}
		for _, d := range res.Declarations {
			out = append(out, fmt.Sprintf("declaring %s would settle %s: the lines are on the run's page", d.Section, strings.Join(d.Settles, ", ")))
		}
		return out
	}
	return nil
}

// maxSummaryWhy bounds the findings the summary lists per run.
const maxSummaryWhy = 10

// failedLines names each failed, required invariant with its first violation.
func failedLines(rs []check.Result) []string {
	var out []string
	for _, r := range rs {
		if r.Waived != "" || r.Verdict != check.Fail {
			continue
		}
		line := r.ID + " " + r.Name
		if len(r.Violations) > 0 {
			line += ": " + r.Violations[0].Summary
			if n := len(r.Violations); n > 1 {
				line += fmt.Sprintf(" (and %d more)", n-1)
			}
		} else if r.Reason != "" {
			line += ": " + r.Reason
		}
		out = append(out, line)
	}
	return out
}

// invariantIDs lists the invariant ids of every run, in first-seen order.
func invariantIDs(all []verdict.Results) []string {
	seen := make(map[string]bool)
	var ids []string
	for _, r := range all {
		for _, inv := range r.Invariants {
			if !seen[inv.ID] {
				seen[inv.ID] = true
				ids = append(ids, inv.ID)
			}
		}
	}
	return ids
}

func summaryCells(ids []string, rs []check.Result) []summaryCell {
	by := make(map[string]check.Result, len(rs))
	for _, r := range rs {
		by[r.ID] = r
	}
	out := make([]summaryCell, len(ids))
	for i, id := range ids {
		r, ok := by[id]
		switch {
		case !ok:
			out[i] = summaryCell{Text: "–", Class: "none", Title: id + " not checked"}
		case r.Waived != "":
			out[i] = summaryCell{Text: "waived", Class: "none", Title: id + " " + r.Name + " waived: " + r.Waived}
		case r.Verdict == check.NotExercised:
			out[i] = summaryCell{Text: "N/E", Class: "nx", Title: id + " " + r.Name + " not exercised: " + r.Reason}
		case r.Verdict == check.NotApplicable:
			out[i] = summaryCell{Text: "N/A", Class: "na", Title: id + " " + r.Name + " " + r.Reason}
		default:
			out[i] = summaryCell{Text: verdictLabel(r.Verdict), Class: verdictClass(r.Verdict), Title: id + " " + r.Name + ": " + r.Reason}
		}
	}
	return out
}
