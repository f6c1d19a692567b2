package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/check"
)

func TestRedact(t *testing.T) {
	cases := []struct{ in, want string }{
		{"root:s3cret@tcp(127.0.0.1:3306)/outbox?parseTime=true", "root:***@tcp(127.0.0.1:3306)/outbox?parseTime=true"},
		{"OUTBOX_MYSQL_DSN=app:p@ss:w0rd@tcp(db:3306)/x", "OUTBOX_MYSQL_DSN=app:***@tcp(db:3306)/x"},
		{"user:pw@unix(/tmp/mysql.sock)/db", "user:***@unix(/tmp/mysql.sock)/db"},
		{"user:pw@/db", "user:***@/db"},
		{"root:@tcp(127.0.0.1:3306)/outbox", "root:@tcp(127.0.0.1:3306)/outbox"}, // no password: nothing to hide
		{"redis://:s3cret@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"},
		{"redis://default:s3cret@127.0.0.1:6379/0", "redis://default:***@127.0.0.1:6379/0"},
		{"mysql://root:s3cret@127.0.0.1:41001/outbox", "mysql://root:***@127.0.0.1:41001/outbox"},
		{"redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"},
		{"dial redis://u:s3cret@h:1/0: connection refused", "dial redis://u:***@h:1/0: connection refused"},
		{"host=db password=s3cret sslmode=disable", "host=db password=*** sslmode=disable"},
		{"?user=root&password=s3cret&tls=true", "?user=root&password=***&tls=true"},
		{"MYSQL_PWD=s3cret REDIS_PASSWORD=s3cret", "MYSQL_PWD=*** REDIS_PASSWORD=***"},
		{`{"password":"s3cret"}`, `{"password":"***"}`},
		{"redis-server --requirepass s3cret --port 1", "redis-server --requirepass *** --port 1"},
		{"d1 claimed event 7 (token d1-7-1)", "d1 claimed event 7 (token d1-7-1)"},
		{"10:00:01.350 lease until 10:00:03.322", "10:00:01.350 lease until 10:00:03.322"},
		{"", ""},
	}
	for _, c := range cases {
		got := Redact(c.in)
		require.Equal(t, c.want, got, "Redact(%q)", c.in)
		require.NotContains(t, got, "s3cret")
		require.Equal(t, got, Redact(got), "Redact is idempotent on %q", c.in)
	}
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
