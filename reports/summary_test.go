package reports

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

func TestWriteSummary(t *testing.T) {
	root := t.TempDir()
	var links []RunLink
	for _, name := range []string{"pass-baseline", "fail-several"} {
		run, checks := loadStored(t, name)
		require.NoError(t, WriteRun(filepath.Join(root, name), run, checks))
		res, err := verdict.Read(filepath.Join(root, name, FileResults))
		require.NoError(t, err)
		links = append(links, RunLink{Path: name, Results: res})
	}
	require.NoError(t, WriteSummary(root, links))

	page := readFile(t, filepath.Join(root, FileHTML))
	requireIn(t, page, `<div class="v">FAIL</div>`)
	requireIn(t, page, "2 runs: 1 pass, 1 fail, 0 unknown. 4 invariant results had nothing to check (not exercised): no pass is claimed for them.")
	requireIn(t, page, `<a href="pass-baseline/index.html">baseline</a>`)
	requireIn(t, page, `<a href="fail-several/index.html">random</a>`)
	requireIn(t, page, ">1337<")
	requireIn(t, page, "6.1s")
	for _, f := range links[1].Results.Findings {
		requireIn(t, page, "<li>"+htmlText(t, strings.Join(f.Invariants, ", ")+": "+f.Headline)+"</li>")
	}
	require.Equal(t, 4, strings.Count(page, `<td class="cell nx" title="`), "I4, I6, I7, I8 of the baseline")
	requireIn(t, page, `title="I4 poison fails fast not exercised: the run produced no poison events">N/E</td>`)
	assertSelfContained(t, page)

	doc := parseJUnit(t, filepath.Join(root, FileJUnit))
	require.Len(t, doc.Suites, 2, "one testsuite per scenario")
	require.Equal(t, "baseline", doc.Suites[0].Name)
	require.Equal(t, "random", doc.Suites[1].Name)
	require.Equal(t, 18, doc.Tests)
	require.Equal(t, 4, doc.Failures)
	for _, s := range doc.Suites {
		require.Len(t, s.Cases, 9)
	}
}

// An unknown run says why on the summary, and counts as unknown.
func TestWriteSummaryUnknownRunSaysWhy(t *testing.T) {
	run, checks := loadStored(t, "pass-baseline")
	run.Meta.Exercises = []string{"I6"}
	res := Build(run, checks)
	require.Equal(t, check.Unknown, res.Verdict)
	root := t.TempDir()
	require.NoError(t, WriteSummary(root, []RunLink{{Path: "baseline", Results: res}}))
	page := readFile(t, filepath.Join(root, FileHTML))
	requireIn(t, page, `<div class="v">UNKNOWN</div>`)
	requireIn(t, page, "1 run: 0 pass, 0 fail, 1 unknown.")
	requireIn(t, page, "<li>"+htmlText(t, res.VerdictReason)+"</li>")
	requireIn(t, page, "I6 backoff respected, which this scenario exists to exercise, had nothing to check")
}

func TestWriteSummarySameScenarioTwice(t *testing.T) {
	run, checks := loadStored(t, "fail-several")
	a, b := Build(run, checks), Build(run, checks)
	b.Run.Seed = 7
	root := t.TempDir()
	require.NoError(t, WriteSummary(root, []RunLink{{Path: "a", Results: a}, {Path: "b/", Results: b}}))
	doc := parseJUnit(t, filepath.Join(root, FileJUnit))
	require.Equal(t, "random (seed 1337)", doc.Suites[0].Name)
	require.Equal(t, "random (seed 7)", doc.Suites[1].Name)
	require.Contains(t, readFile(t, filepath.Join(root, FileHTML)), `href="b/index.html"`)
}

func TestWriteSummaryRejectsBadInput(t *testing.T) {
	res := verdict.Results{SchemaVersion: verdict.SchemaVersion, Verdict: check.Pass}
	for path, want := range map[string]string{
		"":                        "empty Path",
		"/abs/run":                "absolute",
		`runs\a`:                  "use '/'",
		"javascript:alert(1)":     "plain relative folder",
		"https://example.com/run": "plain relative folder",
		"run?x=1":                 "plain relative folder",
	} {
		err := WriteSummary(t.TempDir(), []RunLink{{Path: path, Results: res}})
		require.Error(t, err, "path %q", path)
		require.True(t, strings.Contains(err.Error(), want), "path %q: %v", path, err)
	}
	err := WriteSummary(t.TempDir(), nil)
	require.ErrorContains(t, err, "no runs")
}
