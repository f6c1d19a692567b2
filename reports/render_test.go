package reports

import (
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
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
	res, err := ReadResults(filepath.Join(dir, FileResults))
	require.NoError(t, err)
	require.Equal(t, check.Fail, res.Verdict)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 3, "no temporary file left behind")
}
