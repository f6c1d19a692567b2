package reports

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

const (
	hostileScript = `<script>alert(1)</script>`
	hostileImg    = `"><img src=x onerror=alert(1)>`
	hostileAmp    = `a & b &amp; c`
)

// hostileRun puts markup and ampersands into every string a dispatcher, a
// row, Redis or a scenario can hand the report.
func hostileRun(t *testing.T) (history.Run, []check.Result) {
	t.Helper()
	run, checks := loadStored(t, "fail-several")
	inst := "d1" + hostileImg
	job := "job-0007" + hostileScript
	run.Meta.Scenario = "random" + hostileScript
	run.Meta.Params = map[string]string{"schedule" + hostileImg: hostileScript + hostileAmp}
	run.Meta.Adapter = hostileAmp
	run.Meta.Versions = map[string]string{"redis": hostileImg}
	for i := range run.Transitions {
		tr := &run.Transitions[i]
		if tr.Key == "7" {
			tr.LastError = hostileScript + hostileImg + hostileAmp
			if tr.LockedBy == "d1" {
				tr.LockedBy = inst
			}
		}
	}
	for i := range run.Processes {
		if run.Processes[i].Instance == "d1" {
			run.Processes[i].Instance = inst
		}
	}
	for i := range run.Events {
		if run.Events[i].ID == 7 {
			run.Events[i].JobID = job
		}
	}
	for i := range run.Stream {
		if run.Stream[i].JobID == "job-0007" {
			run.Stream[i].JobID = job
		}
	}
	for i := range run.Takes {
		if run.Takes[i].JobID == "job-0007" {
			run.Takes[i].JobID, run.Takes[i].DataJobID, run.Takes[i].Worker = job, job, hostileImg
		}
	}
	run.Faults[0].Target = "redis/" + inst
	run.Faults[0].Params[hostileScript] = hostileAmp
	run.Gaps[0].Detail = hostileScript
	v := &checks[0].Violations[0]
	v.JobID, v.Instances = job, []string{inst, "d2"}
	v.Summary = "Job " + job + " was added twice by " + inst + " & d2."
	v.Steps[0].Text = hostileScript
	v.Steps[0].Source = hostileImg
	v.Rule = "contract " + hostileScript + hostileAmp
	checks[2].Verdict, checks[2].Reason = check.NotExercised, hostileImg+hostileAmp
	checks[7].Takeover = &check.Distribution{Count: 1, P50: 1, P99: 1, Max: 1}
	checks[8].Reason = hostileAmp + hostileImg
	return run, checks
}

func TestHostileStringsAreEscaped(t *testing.T) {
	run, checks := hostileRun(t)
	dir := t.TempDir()
	require.NoError(t, WriteRun(dir, run, checks))

	page := readFile(t, filepath.Join(dir, FileHTML))
	for _, bad := range []string{"<script", "<img"} {
		requireAbsent(t, strings.ToLower(page), bad, FileHTML)
	}
	requireEntitiesOnly(t, page)
	// the strings were rendered, as text
	require.Contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;")
	require.Contains(t, page, "a &amp; b &amp;amp; c")
	require.Contains(t, page, htmlText(t, checks[0].Violations[0].Summary))
	require.Contains(t, page, `<p class="rule">rule: `+htmlText(t, checks[0].Violations[0].Rule)+`</p>`)
	require.Contains(t, page, `<p class="fhead">`+htmlText(t, check.Findings(checks)[0].Headline)+`</p>`)
	require.Contains(t, page, "nothing to check: "+htmlText(t, checks[2].Reason))

	junit := readFile(t, filepath.Join(dir, FileJUnit))
	for _, bad := range []string{"<script", "<img"} {
		requireAbsent(t, junit, bad, FileJUnit)
	}
	requireEntitiesOnly(t, junit)
	var doc junitSuites
	require.NoError(t, xml.Unmarshal([]byte(junit), &doc))
	require.Equal(t, "random"+hostileScript, doc.Suites[0].Name, "the XML round-trips the hostile text")
	require.Contains(t, doc.Suites[0].Cases[0].Failure.Message, checks[0].Violations[0].Summary)

	raw := readFile(t, filepath.Join(dir, FileResults))
	for _, bad := range []string{"<script", "<img", "&amp;"} {
		requireAbsent(t, raw, bad, FileResults)
	}
	var res verdict.Results
	require.NoError(t, json.Unmarshal([]byte(raw), &res))
	require.Equal(t, "random"+hostileScript, res.Run.Scenario)
	require.Equal(t, hostileAmp, res.Run.Adapter)
}

// requireIn fails naming what is missing, not printing the whole page.
func requireIn(t *testing.T, page, want string) {
	t.Helper()
	if !strings.Contains(page, want) {
		t.Fatalf("the page (%d bytes) lacks %q", len(page), want)
	}
}

// requireAbsent fails with the neighbourhood of bad, not the whole file.
func requireAbsent(t *testing.T, s, bad, file string) {
	t.Helper()
	if i := strings.Index(s, bad); i >= 0 {
		t.Fatalf("%s holds %q unescaped: ...%s...", file, bad, s[max(0, i-80):min(len(s), i+80)])
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// requireEntitiesOnly: every '&' starts a character reference.
func requireEntitiesOnly(t *testing.T, s string) {
	t.Helper()
	for i := strings.IndexByte(s, '&'); i >= 0; {
		end := strings.IndexByte(s[i:], ';')
		require.True(t, end > 1 && end < 12 && validEntity(s[i+1:i+end]), "bare '&' at %q", s[i:min(len(s), i+30)])
		next := strings.IndexByte(s[i+1:], '&')
		if next < 0 {
			break
		}
		i += next + 1
	}
}

func validEntity(name string) bool {
	if strings.HasPrefix(name, "#x") {
		name = name[2:]
		return name != "" && strings.Trim(name, "0123456789abcdefABCDEF") == ""
	}
	if strings.HasPrefix(name, "#") {
		return len(name) > 1 && strings.Trim(name[1:], "0123456789") == ""
	}
	return name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// TestNoPasswordInAnyFile puts DSN passwords everywhere a run can carry
// them and checks that no file WriteRun or WriteSummary writes holds one.
func TestNoPasswordInAnyFile(t *testing.T) {
	const secret = "s3cret"
	mysqlDSN := "root:" + secret + "@tcp(127.0.0.1:41001)/outbox?parseTime=true"
	redisURL := "redis://:" + secret + "@127.0.0.1:41002/0"
	run, checks := loadStored(t, "fail-several")
	run.Meta.Command = "OUTBOX_MYSQL_DSN='" + mysqlDSN + "' outboxchaos run --redis-url " + redisURL + " --scenario random"
	run.Meta.Params = map[string]string{"mysql_dsn": mysqlDSN, "redis_url": redisURL, "note": "password=" + secret}
	run.Meta.Versions = map[string]string{"mysql": "8.0 via " + mysqlDSN}
	run.Meta.Environment = "external " + redisURL
	run.Meta.Waived = map[string]string{"I6": "external server " + mysqlDSN}
	run.Transitions[5].LastError = "dial " + mysqlDSN + ": connection refused"
	run.Processes[0].Detail = "OUTBOX_REDIS_URL=" + redisURL
	run.Faults[0].Params["upstream"] = redisURL
	run.Gaps[0].Detail = "lost " + redisURL
	run.Final.Outbox[3].LastError = "publish: " + redisURL + " i/o timeout"
	checks[0].Violations[0].Steps[1].Text = "d1 connected to " + mysqlDSN
	checks[0].Violations[0].Summary += " (" + redisURL + ")"
	checks[8].Reason = "gap on " + redisURL

	dir := t.TempDir()
	require.NoError(t, WriteRun(filepath.Join(dir, "r1"), run, checks))
	res, err := verdict.Read(filepath.Join(dir, "r1", FileResults))
	require.NoError(t, err)
	require.NoError(t, WriteSummary(dir, []RunLink{{Path: "r1", Results: Build(run, checks)}, {Path: "r1", Results: res}}))

	seen := 0
	require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NotContains(t, string(b), secret, "%s leaks a password", path)
		if strings.Contains(string(b), "root:***@tcp(127.0.0.1:41001)") {
			seen++
		}
		return nil
	}))
	require.GreaterOrEqual(t, seen, 4, "the redacted DSN is still shown (html, json, junit of the run, summary)")
	require.Equal(t, check.Fail, res.Verdict)
}
