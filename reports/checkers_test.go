package reports

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/redact"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

// TestRendersRealCheckerResults renders what harness/check itself says about
// the stored runs: whatever the checkers find, the page, results.json and
// junit.xml must tell the same story.
func TestRendersRealCheckerResults(t *testing.T) {
	for name := range fixtures {
		t.Run(name, func(t *testing.T) {
			run, _ := loadStored(t, name)
			results := check.Evaluate(run)
			require.Len(t, results, 9)
			dir := t.TempDir()
			require.NoError(t, WriteRun(dir, run, results))
			page := readFile(t, filepath.Join(dir, FileHTML))
			want, _ := check.Fold(results, run.Meta.Exercises)
			requireIn(t, page, `<div class="v">`+strings.ToUpper(string(want))+`</div>`)
			res, err := verdict.Read(filepath.Join(dir, FileResults))
			require.NoError(t, err)
			require.Equal(t, want, res.Verdict)
			doc := parseJUnit(t, filepath.Join(dir, FileJUnit))
			require.Len(t, doc.Suites[0].Cases, 9)
			for _, r := range results {
				t.Logf("%s %s: %s (%s) %d violations", r.ID, r.Name, r.Verdict, r.Reason, len(r.Violations))
				for _, v := range r.Violations {
					t.Logf("   %s", v.Summary)
					requireIn(t, page, htmlText(t, redact.String(v.Summary)))
				}
			}
		})
	}
}
