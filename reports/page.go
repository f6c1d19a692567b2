package reports

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/declare"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

//go:embed templates/*.html
var templateFS embed.FS

var pageTemplates = template.Must(template.New("").ParseFS(templateFS, "templates/*.html"))

// runPage is everything index.html shows. Every string in it comes from a
// redacted run or from Results, and html/template escapes each one.
type runPage struct {
	Verdict       string
	VerdictClass  string
	Headline      string
	Meta          history.Meta
	Seed          string
	Duration      string
	Facts         []kv
	Tuning        []kv
	Params        []kv
	Versions      []kv
	Waived        []kv
	Counts        verdict.Counts
	Latency       verdict.Latency
	Exercises     string
	Findings      []findingView
	FindingsMore  int
	Invariants    []invariantRow
	Landing       []landingRow
	LostAdds      lostAddsView
	Declarations  []declarationView
	Violated      []violatedInvariant
	Timeline      timeline
	Backlog       chart
	LatencyChart  chart
	Faults        []faultRow
	FaultsOmitted int
	FaultKeys     []faultKeyItem // every fault label, when a drawing shortened one
	FaultKeysMore int
	Gaps          []history.Gap
	GapsOmitted   int
	Legend        legendBox
	SchemaVersion int
}

type kv struct{ Key, Value string }

type invariantRow struct {
	ID, Name, Verdict, Class, Waived, Reason, Anchor string
	Takeover                                         string // I8's takeover delays, when measured
	Exercised                                        bool   // the scenario exists to exercise it
	Violations                                       int
}

// declarationView is one declare.Suggestion as the page shows it.
type declarationView struct {
	Section, Settles, Why, YAML string
}

func declarationViews(ds []declare.Suggestion) []declarationView {
	out := make([]declarationView, 0, len(ds))
	for _, d := range ds {
		out = append(out, declarationView{Section: d.Section, Settles: strings.Join(d.Settles, ", "), Why: d.Why, YAML: d.YAML})
	}
	return out
}

// lostAddsView is the page's account of the jobs Redis lost: how many,
// the first few in words, and what a dispatcher can do.
type lostAddsView struct {
	Count, Acknowledged, Recreated int
	Lines                          []string
	Omitted                        int
	Advice                         string
	// Wait: the adapter declares durability: wait, so the harness ran a
	// replica, cut it off with the file, and judges these jobs (I3).
	Wait bool
}

// lostAddsShown bounds the lost jobs the page lists one by one.
const lostAddsShown = 10

func newLostAddsView(ls []check.LostAdd, durability string) lostAddsView {
	v := lostAddsView{Count: len(ls), Advice: check.LostAddsAdvice, Wait: durability == check.DurabilityWait}
	for i, l := range ls {
		if l.Acknowledged {
			v.Acknowledged++
		}
		if !l.Recreated.IsZero() {
			v.Recreated++
		}
		if i < lostAddsShown {
			v.Lines = append(v.Lines, l.String())
		}
	}
	v.Omitted = len(ls) - len(v.Lines)
	return v
}

type landingRow struct {
	Fault, Class, State, Reason string
}

func landingRows(ls []check.Landing) []landingRow {
	out := make([]landingRow, 0, len(ls))
	for _, l := range ls {
		row := landingRow{Fault: l.Fault, Class: "pass", State: "LANDED", Reason: l.Reason}
		if !l.Met {
			row.Class, row.State = "unknown", "DID NOT LAND"
		}
		out = append(out, row)
	}
	return out
}

type violatedInvariant struct {
	ID, Name, Waived, Anchor string
	Items                    []violationView
	Omitted                  int
}

type violationView struct {
	Anchor       string
	Summary      string
	Rule         string
	Facts        []kv
	Swimlane     *swimlane
	Steps        []stepView
	StepsOmitted int
}

type stepView struct{ Time, Source, Class, Text string }

type faultRow struct {
	ID                               int
	Kind, Target, Start, End, Length string
	Params                           string
}

// renderRun writes index.html for a redacted run and its results.
func renderRun(w io.Writer, run history.Run, res verdict.Results) error {
	if err := pageTemplates.ExecuteTemplate(w, "run.html", newRunPage(run, res)); err != nil {
		return fmt.Errorf("render index.html: %w", err)
	}
	return nil
}

func newRunPage(run history.Run, res verdict.Results) runPage {
	s := runSpan(run)
	ix := indexRun(run)
	p := runPage{
		Verdict:       strings.ToUpper(string(res.Verdict)),
		VerdictClass:  verdictClass(res.Verdict),
		Headline:      headline(res),
		Meta:          res.Run,
		Seed:          strconv.FormatInt(res.Run.Seed, 10),
		Duration:      shortDuration(res.Duration.D()),
		Facts:         facts(res),
		Tuning:        tuning(res.Run.Tuning),
		Params:        pairs(res.Run.Params),
		Versions:      pairs(res.Run.Versions),
		Waived:        pairs(res.Run.Waived),
		Counts:        res.Counts,
		Latency:       res.Latency,
		Exercises:     strings.Join(res.Run.Exercises, ", "),
		Invariants:    invariantRows(res.Invariants, res.Run.Exercises),
		Landing:       landingRows(res.Landing),
		LostAdds:      newLostAddsView(res.LostAdds, run.Meta.Durability),
		Declarations:  declarationViews(res.Declarations),
		Timeline:      buildTimeline(run, s),
		Backlog:       backlogChart(run, ix, s),
		LatencyChart:  latencyChart(run, ix, s),
		Legend:        legend(),
		SchemaVersion: verdict.SchemaVersion,
	}
	p.Violated = violated(newLookup(run), res.Invariants)
	p.Findings, p.FindingsMore = findingViews(res.Findings, res.Invariants)
	p.Faults, p.FaultsOmitted = faultRows(run.Faults)
	p.FaultKeys, p.FaultKeysMore = faultKeyList(run.Faults, s, p.Timeline.Bands, p.Backlog.Bands, p.LatencyChart.Bands)
	p.Gaps, p.GapsOmitted = capSlice(run.Gaps, maxGapRows)
	return p
}

func verdictClass(v check.Verdict) string {
	switch v {
	case check.Pass:
		return "pass"
	case check.Fail:
		return "fail"
	case check.NotExercised:
		return "nx"
	case check.NotApplicable:
		return "na"
	default:
		return "unknown"
	}
}

// verdictLabel is a verdict as the page writes it: "PASS", "NOT EXERCISED".
func verdictLabel(v check.Verdict) string {
	return strings.ToUpper(strings.ReplaceAll(string(v), "-", " "))
}

// headline is the sentence under the verdict, from check.Classify.
func headline(res verdict.Results) string {
	c := check.Classify(res.Invariants, res.Run.Exercises)
	required := c.Required()
	var missed []string
	for _, l := range check.Unlanded(res.Landing) {
		missed = append(missed, l.Fault)
	}
	w := ""
	if n := len(c.Waived); n > 0 {
		w = fmt.Sprintf(" (%d waived by the scenario)", n)
	}
	if n := len(c.NotApplicable); n > 0 {
		w += fmt.Sprintf(" (%d not applicable to this outbox: %s)", n, strings.Join(named(c.NotApplicable), ", "))
	}
	judged := required - len(c.NotApplicable)
	switch {
	case required == 0 && len(c.Waived) == 0:
		return "No checker result was recorded for this run."
	case len(c.Failed) > 0:
		return fmt.Sprintf("%s; %d of %d required invariants violated: %s.", count(len(res.Findings), "finding", "findings"), len(c.Failed), judged, strings.Join(named(c.Failed), ", "))
	case len(missed) > 0:
		return fmt.Sprintf("No violation found, but the verdict does not count: %d of %d faults did not land where they matter (%s).", len(missed), len(res.Landing), strings.Join(missed, ", "))
	case len(c.Undecided) > 0 || len(c.Owed) > 0:
		var parts []string
		if len(c.Undecided) > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d required invariants could not be decided: %s", len(c.Undecided), judged, strings.Join(named(c.Undecided), ", ")))
		}
		if len(c.Owed) > 0 {
			parts = append(parts, fmt.Sprintf("%s, which this scenario exists to exercise, had nothing to check", strings.Join(named(c.Owed), ", ")))
		}
		return "No violation found, but " + strings.Join(parts, "; ") + "."
	case len(c.Idle) == judged:
		return "No violation found, but no required invariant had anything to check" + w + "."
	case len(c.Idle) > 0:
		return fmt.Sprintf("%d of %d required invariants hold%s; %d had nothing to check: %s.", judged-len(c.Idle), judged, w, len(c.Idle), strings.Join(named(c.Idle), ", "))
	default:
		return fmt.Sprintf("All %d required invariants hold%s.", judged, w)
	}
}

// named is each result's id and name ("I1 no duplicate job").
func named(rs []check.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID + " " + r.Name
	}
	return out
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func facts(res verdict.Results) []kv {
	m := res.Run
	yes := map[bool]string{true: "yes", false: "no"}
	return []kv{
		{"scenario", m.Scenario},
		{"seed", strconv.FormatInt(m.Seed, 10)},
		{"adapter", m.Adapter},
		{"environment", m.Environment},
		{"queues", strings.Join(m.Queues, ", ")},
		{"BullMQ prefix", m.Prefix},
		{"started", stamp(m.Started)},
		{"healed", stamp(m.Healed)},
		{"ended", stamp(m.Ended)},
		{"duration", shortDuration(res.Duration.D())},
		{"drained to quiet", yes[m.Quiesced]},
		{"consumer ran", yes[m.Consumer]},
		{"consumer removes completed jobs", yes[m.RemoveOnEnd]},
	}
}

func tuning(t history.Tuning) []kv {
	d := func(x history.Duration) string { return x.D().String() }
	return []kv{
		{"poll interval", d(t.PollInterval)},
		{"batch size", strconv.Itoa(t.BatchSize)},
		{"lease", d(t.Lease)},
		{"max attempts", strconv.Itoa(t.MaxAttempts)},
		{"backoff base", d(t.BackoffBase)},
		{"backoff max", d(t.BackoffMax)},
		{"publish timeout", d(t.PublishTimeout)},
	}
}

func pairs(m map[string]string) []kv {
	out := make([]kv, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, kv{k, m[k]})
	}
	return out
}

func invariantRows(rs []check.Result, exercises []string) []invariantRow {
	owed := map[string]bool{}
	for _, id := range exercises {
		owed[id] = true
	}
	out := make([]invariantRow, len(rs))
	for i, r := range rs {
		out[i] = invariantRow{
			ID: r.ID, Name: r.Name, Verdict: verdictLabel(r.Verdict), Class: verdictClass(r.Verdict),
			Waived: r.Waived, Reason: r.Reason, Violations: len(r.Violations),
			Takeover: takeoverText(r.Takeover), Exercised: owed[r.ID],
		}
		if len(r.Violations) > 0 {
			out[i].Anchor = "#inv-" + strconv.Itoa(i)
		}
	}
	return out
}

// violated explains every invariant with violations (waived ones included,
// marked), drawing a swimlane for the first maxSwimlanes violations.
func violated(l *lookup, rs []check.Result) []violatedInvariant {
	var out []violatedInvariant
	drawn := 0
	for i, r := range rs {
		if len(r.Violations) == 0 {
			continue
		}
		vi := violatedInvariant{ID: r.ID, Name: r.Name, Waived: r.Waived, Anchor: "inv-" + strconv.Itoa(i)}
		shown, omitted := capSlice(r.Violations, maxViolationsShow)
		vi.Omitted = omitted
		for j, v := range shown {
			vv := newViolationView(v, vi.Anchor+"-"+strconv.Itoa(j))
			if drawn < maxSwimlanes {
				sl := l.swimlane(v)
				vv.Swimlane = &sl
				drawn++
			} else {
				vv.StepsOmitted += len(vv.Steps) // past the cap: the sentence only
				vv.Steps = nil
			}
			vi.Items = append(vi.Items, vv)
		}
		out = append(out, vi)
	}
	return out
}

func newViolationView(v check.Violation, anchor string) violationView {
	vv := violationView{Anchor: anchor, Summary: v.Summary, Rule: v.Rule}
	if v.EventID != 0 {
		vv.Facts = append(vv.Facts, kv{"event", strconv.FormatInt(v.EventID, 10)})
	}
	if v.JobID != "" {
		vv.Facts = append(vv.Facts, kv{"job", v.JobID})
	}
	if len(v.Instances) > 0 {
		vv.Facts = append(vv.Facts, kv{"instances", strings.Join(v.Instances, ", ")})
	}
	steps, omitted := capSlice(v.Steps, maxSteps)
	vv.StepsOmitted = omitted
	for _, s := range steps {
		vv.Steps = append(vv.Steps, stepView{Time: clock(s.At), Source: s.Source, Class: "src-" + sourceClass(s.Source), Text: s.Text})
	}
	return vv
}

// sourceClass maps a step's source onto a CSS class; anything unknown is
// "other" (the source text itself is shown, escaped).
func sourceClass(s string) string {
	switch s {
	case "mysql", "redis", "consumer", "fault", "process", "workload":
		return s
	case "postgres":
		return "mysql" // the database's lane, whichever store
	}
	return "other"
}

func faultRows(fs []history.Fault) ([]faultRow, int) {
	shown, omitted := capSlice(fs, maxFaultRows)
	out := make([]faultRow, len(shown))
	for i, f := range shown {
		r := faultRow{ID: f.ID, Kind: f.Kind, Target: f.Target, Start: clock(f.Start), End: "never healed", Length: "—"}
		if !f.End.IsZero() {
			r.End, r.Length = clock(f.End), shortDuration(f.End.Sub(f.Start))
		}
		var ps []string
		for _, k := range slices.Sorted(maps.Keys(f.Params)) {
			ps = append(ps, k+"="+f.Params[k])
		}
		r.Params = strings.Join(ps, " ")
		out[i] = r
	}
	return out, omitted
}

func capSlice[T any](s []T, n int) ([]T, int) {
	if len(s) <= n {
		return s, 0
	}
	return s[:n], len(s) - n
}

// takeoverText is I8's takeover distribution in one line, or "".
func takeoverText(d *check.Distribution) string {
	if d == nil {
		return ""
	}
	s := func(x float64) string { return shortDuration(time.Duration(math.Round(x * float64(time.Second)))) }
	return fmt.Sprintf("takeover after lease: n=%d, p50 %s, p99 %s, max %s", d.Count, s(d.P50), s(d.P99), s(d.Max))
}
