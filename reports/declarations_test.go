package reports

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/declare"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

// undeclaredRun is go-nolock's recorded redis-latency run (harness/check's
// testdata) without its conventions: a first manifest's run, I6 unknown
// because releases under latency look like retries without backoff.
func undeclaredRun(t *testing.T) (history.Run, []check.Result) {
	t.Helper()
	run, err := history.Load(filepath.Join("..", "testdata", "histories", "recorded-go-nolock-redis-latency"))
	require.NoError(t, err)
	run.Meta.Conventions = history.Conventions{}
	return run, check.Evaluate(run)
}

// The page, results.json and the returned results carry the same
// suggestion: the conventions block with the prefix the run wrote.
func TestReportNamesTheMissingDeclaration(t *testing.T) {
	run, results := undeclaredRun(t)
	dir := t.TempDir()
	res, err := WriteRunResults(dir, run, results)
	require.NoError(t, err)
	require.Equal(t, check.Unknown, res.Verdict)
	require.Len(t, res.Declarations, 1)
	d := res.Declarations[0]
	require.Equal(t, declare.SectionConventions, d.Section)
	require.Equal(t, []string{"I6"}, d.Settles)
	require.Contains(t, d.YAML, "conventions:\n  releases:\n    last_error_prefixes:\n      - \"released: \"  # GUESS")

	back, err := verdict.Read(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	require.Equal(t, res.Declarations, back.Declarations, "results.json holds the typed suggestion")
	raw, err := os.ReadFile(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &top))
	require.Contains(t, string(top["declarations"]), `"section": "conventions"`)

	page, err := os.ReadFile(filepath.Join(dir, FileHTML))
	require.NoError(t, err)
	text := html.UnescapeString(string(page))
	require.Contains(t, text, `<section id="declarations">`)
	require.Contains(t, text, "<pre>"+d.YAML+"</pre>", "the page shows the lines exactly")
	require.Contains(t, text, d.Why)
	require.Contains(t, text, "settles I6")
}

// A run with nothing unknown for lack of a declaration shows no section
// and an empty list.
func TestNoDeclarationSectionWhenNothingIsMissing(t *testing.T) {
	run, _ := undeclaredRun(t)
	run.Meta.Conventions = history.Conventions{ReleaseErrors: []string{"released: "}}
	results := check.Evaluate(run)
	dir := t.TempDir()
	res, err := WriteRunResults(dir, run, results)
	require.NoError(t, err)
	require.NotNil(t, res.Declarations)
	require.Empty(t, res.Declarations)
	page, err := os.ReadFile(filepath.Join(dir, FileHTML))
	require.NoError(t, err)
	require.NotContains(t, string(page), `id="declarations"`)
}

// A DSN in a last_error never reaches the suggestion.
func TestDeclarationsAreRedacted(t *testing.T) {
	in := []declare.Suggestion{declare.Conventions([]string{"I6"}, []declare.Return{{Event: 1, LastError: "released: mysql://root:s3cret@db:3306/x"}})}
	in[0].Why += " mysql://root:s3cret@db"
	out := redactDeclarations(in)
	raw, err := json.Marshal(out)
	require.NoError(t, err)
	require.NotContains(t, string(raw), "s3cret")
	require.Contains(t, in[0].Why, "s3cret", "the caller's values are not modified")
}

// The summary's row for such a run says which declaration would settle it.
func TestSummarySaysADeclarationWouldSettleIt(t *testing.T) {
	run, results := undeclaredRun(t)
	res := Build(run, results)
	dir := t.TempDir()
	require.NoError(t, WriteSummary(dir, []RunLink{{Path: "redis-latency", Results: res}}))
	page, err := os.ReadFile(filepath.Join(dir, FileHTML))
	require.NoError(t, err)
	require.Contains(t, html.UnescapeString(string(page)), "declaring conventions would settle I6: the lines are on the run's page")
}

// A skipped clock-skew is listed on the summary with why and the clock
// line that would let it run; a skip without one shows only why.
func TestSummaryListsSkippedScenariosWithTheirLines(t *testing.T) {
	run, results := undeclaredRun(t)
	clock := declare.ClockSuggestion("clock-skew", []string{"node", "main.js"}, nil)
	dir := t.TempDir()
	require.NoError(t, WriteSummary(dir, []RunLink{{Path: "redis-latency", Results: Build(run, results)}},
		SkippedRun{Scenario: "clock-skew", Why: "the adapter declares no way to skew its clock", Declarations: []declare.Suggestion{clock}},
		SkippedRun{Scenario: "mysql-restart", Why: "the staging environment cannot restart MySQL in place"}))
	page, err := os.ReadFile(filepath.Join(dir, FileHTML))
	require.NoError(t, err)
	text := html.UnescapeString(string(page))
	require.Contains(t, text, "2 scenarios skipped: see below.")
	require.Contains(t, text, `<section id="skipped">`)
	require.Contains(t, text, "<h3>clock-skew <span")
	require.Contains(t, text, "<pre>"+clock.YAML+"</pre>")
	require.Contains(t, text, "  clock: faketime  # GUESS: node reads the time through libc")
	require.Contains(t, text, "the staging environment cannot restart MySQL in place")
	require.Equal(t, 1, strings.Count(text, "<pre>capabilities:"))
}
