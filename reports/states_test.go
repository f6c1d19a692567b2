package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
)

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

	res, err := ReadResults(filepath.Join(dir, FileResults))
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

	res, err := ReadResults(filepath.Join(dir, FileResults))
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

	res, err := ReadResults(filepath.Join(dir, FileResults))
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
	res, err := ReadResults(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	require.Equal(t, checks[7].Takeover, res.Invariants[7].Takeover)
	raw := readFile(t, filepath.Join(dir, FileResults))
	requireIn(t, raw, `"takeover": {`)
	requireIn(t, raw, `"p99_s": 1.25`)
}

// results.json round-trips: what ReadResults reads back is what Build made,
// at this schema version.
func TestResultsRoundTrip(t *testing.T) {
	for name := range fixtures {
		t.Run(name, func(t *testing.T) {
			run, checks := loadStored(t, name)
			dir := t.TempDir()
			require.NoError(t, WriteRun(dir, run, checks))
			got, err := ReadResults(filepath.Join(dir, FileResults))
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
