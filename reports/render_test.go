package reports

import (
	"encoding/json"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

// htmlText is s as html/template writes it in text.
func htmlText(t testing.TB, s string) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, template.Must(template.New("").Parse("{{.}}")).Execute(&b, s))
	return b.String()
}

// writeStored renders a stored run into a fresh folder and returns the page.
func writeStored(t *testing.T, name string) (dir, page string) {
	t.Helper()
	run, checks := loadStored(t, name)
	dir = t.TempDir()
	require.NoError(t, WriteRun(dir, run, checks))
	b, err := os.ReadFile(filepath.Join(dir, FileHTML))
	require.NoError(t, err)
	return dir, string(b)
}

func TestPassPage(t *testing.T) {
	_, page := writeStored(t, "pass-baseline")
	requireIn(t, page, `<div class="banner pass" id="verdict">`)
	requireIn(t, page, `<div class="v">PASS</div>`)
	requireIn(t, page, "5 of 9 required invariants hold; 4 had nothing to check: I4 poison fails fast, I6 backoff respected, I7 bounded attempts, I8 lease recovery.")
	require.NotContains(t, page, `id="violations"`)
	require.NotContains(t, page, `id="findings"`)
	require.NotContains(t, page, `aria-label="swimlane"`)
	rows := invariantTable(t, page)
	require.Equal(t, 5, strings.Count(rows, `<span class="pill pass">PASS</span>`))
	require.Equal(t, 4, strings.Count(rows, `<span class="pill nx">NOT EXERCISED</span>`))
	requireIn(t, rows, "nothing to check: the run produced no poison events")
	requireIn(t, page, "This scenario exists to exercise I1, I2")
	require.Equal(t, 2, strings.Count(rows, `<span class="owed">exercised</span>`))
	requireIn(t, page, "outboxchaos run --scenario baseline --seed 42")
	assertSelfContained(t, page)
}

func TestFailPage(t *testing.T) {
	_, page := writeStored(t, "fail-several")
	run, checks := loadStored(t, "fail-several")
	requireIn(t, page, `<div class="v">FAIL</div>`)
	requireIn(t, page, `id="violations"`)
	requireIn(t, page, htmlText(t, run.Meta.Command))
	violated := 0
	for _, r := range checks {
		if r.Verdict != check.Fail {
			continue
		}
		violated++
		requireIn(t, page, "<b>"+r.ID+"</b></td><td>"+r.Name+"</td>")
		requireIn(t, page, ">"+r.ID+" "+r.Name)
		for _, v := range r.Violations {
			summary := htmlText(t, v.Summary)
			i := strings.Index(page, `<p class="summary">`+summary+`</p>`)
			require.GreaterOrEqual(t, i, 0, "summary of %s on the page", r.ID)
			block := page[i:]
			if end := strings.Index(block[1:], `<div class="violation`); end >= 0 {
				block = block[:end+1]
			}
			require.Contains(t, block, `<svg`, "%s violation has a swimlane", r.ID)
			require.Contains(t, block, `aria-label="swimlane"`)
			require.Contains(t, block, `<ol class="steps">`)
			require.Equal(t, len(v.Steps), strings.Count(block, "<li>"), "%s steps listed", r.ID)
		}
	}
	require.GreaterOrEqual(t, violated, 3)
	requireIn(t, page, `<span class="pill unknown">UNKNOWN</span>`) // I9
	requireIn(t, page, `<span class="waived">waived</span>`)        // I6
	// the swimlane of I1 draws both adds of job-0007, the second as a duplicate
	requireIn(t, page, `class="m-dup"`)
	requireIn(t, page, "while d2 held the claim (inferred")
	assertSelfContained(t, page)
}

// invariantTable is the invariants section of a page.
func invariantTable(t *testing.T, page string) string {
	t.Helper()
	i := strings.Index(page, `<section id="invariants">`)
	require.GreaterOrEqual(t, i, 0, "no invariants section")
	j := strings.Index(page[i:], "</table>")
	require.GreaterOrEqual(t, j, 0)
	k := strings.Index(page[i:i+j], "<table>")
	return page[i+k : i+j]
}

// assertSelfContained: no script, no external reference of any kind.
func assertSelfContained(t *testing.T, page string) {
	t.Helper()
	lower := strings.ToLower(page)
	for _, bad := range []string{"<script", "src=", "<link", "@import", "http://", "https://", "url("} {
		require.NotContains(t, lower, bad)
	}
}

func TestWriteRunFiles(t *testing.T) {
	dir, _ := writeStored(t, "fail-several")
	for _, f := range []string{FileHTML, FileResults, FileJUnit} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
		require.Positive(t, st.Size())
	}
	res, err := verdict.Read(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	require.Equal(t, check.Fail, res.Verdict)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 3, "no temporary file left behind")
}

// The four states each show as their own pill on the page, with the reason,
// and as their own kind of testcase in junit.xml.
func TestFourStates(t *testing.T) {
	run, checks := loadStored(t, "fail-several")
	checks[2] = check.Result{ID: "I3", Name: "consistent", Verdict: check.NotExercised, Reason: "the run produced no events"}
	dir := t.TempDir()
	require.NoError(t, WriteRun(dir, run, checks))
	rows := invariantTable(t, readFile(t, filepath.Join(dir, FileHTML)))
	for _, want := range []string{
		`<span class="pill pass">PASS</span>`, `<span class="pill fail">FAIL</span>`,
		`<span class="pill unknown">UNKNOWN</span>`, `<span class="pill nx">NOT EXERCISED</span>`,
	} {
		requireIn(t, rows, want)
	}
	requireIn(t, rows, `<tr class="inv-nx"><td><b>I3</b></td><td>consistent</td><td><span class="pill nx">NOT EXERCISED</span></td><td>nothing to check: the run produced no events</td></tr>`)

	doc := parseJUnit(t, filepath.Join(dir, FileJUnit))
	c := doc.Suites[0].Cases[2]
	require.Equal(t, "I3 consistent", c.Name)
	require.Nil(t, c.Failure)
	require.NotNil(t, c.Skipped)
	require.Equal(t, "not exercised: the run produced no events", c.Skipped.Message)
	require.Equal(t, 3, doc.Suites[0].Skipped, "I3 not exercised, I6 waived, I9 unknown")
	require.Equal(t, 4, doc.Suites[0].Failures)

	res, err := verdict.Read(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	require.Equal(t, check.NotExercised, res.Invariants[2].Verdict)
	require.Equal(t, check.Fail, res.Verdict, "not exercised does not hide a fail")
}

// An invariant the scenario exists to exercise that had nothing to check
// makes the run unknown, and every file says which one and why.
func TestUnexercisedScenarioInvariantMakesTheRunUnknown(t *testing.T) {
	run, checks := loadStored(t, "pass-baseline")
	run.Meta.Exercises = []string{"I2", "I8"}
	dir := t.TempDir()
	require.NoError(t, WriteRun(dir, run, checks))

	res, err := verdict.Read(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	require.Equal(t, check.Unknown, res.Verdict)
	require.Equal(t, "I8 lease recovery, which this scenario exists to exercise, had nothing to check: no dead owner's claim expired", res.VerdictReason)
	require.Equal(t, []string{"I2", "I8"}, res.Run.Exercises)

	page := readFile(t, filepath.Join(dir, FileHTML))
	requireIn(t, page, `<div class="banner unknown" id="verdict">`)
	requireIn(t, page, "No violation found, but I8 lease recovery, which this scenario exists to exercise, had nothing to check.")
	requireIn(t, page, "This scenario exists to exercise I2, I8")

	doc := parseJUnit(t, filepath.Join(dir, FileJUnit))
	props := map[string]string{}
	for _, p := range doc.Suites[0].Properties {
		props[p.Name] = p.Value
	}
	require.Equal(t, "unknown", props["verdict"])
	require.Equal(t, res.VerdictReason, props["verdict_reason"])
}

// Findings lead the page and results.json: the I2 and I8 violations of event
// 23 are one finding, each finding links its invariants and violations, and
// the rule a violation names is shown.
func TestFindingsLeadThePage(t *testing.T) {
	run, checks := loadStored(t, "fail-several")
	dir := t.TempDir()
	require.NoError(t, WriteRun(dir, run, checks))
	page := readFile(t, filepath.Join(dir, FileHTML))

	f, r, inv := strings.Index(page, `id="findings"`), strings.Index(page, `id="reproduce"`), strings.Index(page, `id="invariants"`)
	require.Positive(t, f)
	require.Less(t, f, r, "findings come before the command")
	require.Less(t, r, inv)
	require.Equal(t, 3, strings.Count(page, `<div class="finding">`))

	res, err := verdict.Read(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	require.Equal(t, check.Findings(res.Invariants), res.Findings)
	require.Len(t, res.Findings, 3)
	var lease check.Finding
	for _, fd := range res.Findings {
		if len(fd.Invariants) == 2 {
			lease = fd
		}
	}
	require.Equal(t, []string{"I2", "I8"}, lease.Invariants)
	require.Equal(t, []int64{23}, lease.Events)
	require.Equal(t, []check.ViolationRef{{Invariant: "I8", Index: 0}, {Invariant: "I2", Index: 0}}, lease.Violations)
	requireIn(t, page, `<p class="fhead">`+htmlText(t, lease.Headline)+`</p>`)
	requireIn(t, page, `breaks <a href="#inv-1">I2 eventually published</a>, <a href="#inv-7">I8 lease recovery</a> · event <b>23</b> · job <b>job-0023</b> · instances <b>d3</b>`)
	requireIn(t, page, `violations: <a href="#inv-7-0">I8 event 23</a>, <a href="#inv-1-0">I2 event 23</a>`)
	requireIn(t, page, `id="inv-7-0"`)
	requireIn(t, page, `id="inv-1-0"`)
	rule := checks[3].Violations[0].Rule
	require.NotEmpty(t, rule)
	requireIn(t, page, `<p class="rule">rule: `+htmlText(t, rule)+`</p>`)
	requireIn(t, page, "3 findings; 4 of 8 required invariants violated")
}

// I8's takeover measurements are shown in its row and kept in results.json.
func TestTakeoverDistributionShownAndKept(t *testing.T) {
	run, checks := loadStored(t, "pass-baseline")
	checks[7] = check.Result{ID: "I8", Name: "lease recovery", Verdict: check.Pass, Reason: "3 expired claims of dead owners; 3 were taken over in time",
		Takeover: &check.Distribution{Count: 3, P50: 0.412, P99: 1.25, Max: 1.25}}
	dir := t.TempDir()
	require.NoError(t, WriteRun(dir, run, checks))
	rows := invariantTable(t, readFile(t, filepath.Join(dir, FileHTML)))
	requireIn(t, rows, `takeover after lease: n=3, p50 412ms, p99 1.25s, max 1.25s`)
	res, err := verdict.Read(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	require.Equal(t, checks[7].Takeover, res.Invariants[7].Takeover)
	raw := readFile(t, filepath.Join(dir, FileResults))
	requireIn(t, raw, `"takeover": {`)
	requireIn(t, raw, `"p99_s": 1.25`)
}

// results.json round-trips: what verdict.Read reads back is what Build made,
// at this schema version.
func TestResultsRoundTrip(t *testing.T) {
	for name := range fixtures {
		t.Run(name, func(t *testing.T) {
			run, checks := loadStored(t, name)
			dir := t.TempDir()
			require.NoError(t, WriteRun(dir, run, checks))
			got, err := verdict.Read(filepath.Join(dir, FileResults))
			require.NoError(t, err)
			require.Equal(t, 2, got.SchemaVersion)
			require.Equal(t, jsonValue(t, marshal(t, Build(run, checks))), jsonValue(t, marshal(t, got)))
			raw, err := os.ReadFile(filepath.Join(dir, FileResults))
			require.NoError(t, err)
			var top map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(raw, &top))
			require.Contains(t, top, "findings", "findings are always present, if empty")
		})
	}
}

// Rules and headlines are redacted like every other string.
func TestFindingsAreRedacted(t *testing.T) {
	run, checks := loadStored(t, "fail-several")
	checks[0].Violations[0].Rule = "see mysql://root:s3cret@db:3306/outbox"
	res := Build(run, checks)
	raw := string(marshal(t, res))
	require.NotContains(t, raw, "s3cret")
	require.Contains(t, res.Findings[0].Headline, "mysql://root:")
}
