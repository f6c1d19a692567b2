package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
)

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
	res, err := ReadResults(filepath.Join(dir, "r1", FileResults))
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
