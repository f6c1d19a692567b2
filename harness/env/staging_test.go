package env_test

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/adapters/manifest"
	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/env"
	"github.com/outboxchaos/outboxchaos/harness/localenv"
	"github.com/outboxchaos/outboxchaos/harness/runner"
	"github.com/outboxchaos/outboxchaos/reports"
	"github.com/outboxchaos/outboxchaos/scenarios"
)

// The staging passwords. Each has characters that URLs escape, so the
// escaped and the plain form both have to stay out of the run folder.
const (
	stagingMySQLUser = "stage"
	stagingMySQLPass = "Maria:Stg+9k"
	stagingRedisPass = "Rds+pw/Q7z="
)

// stagingServers starts a private MariaDB with a password user and a
// private Redis with requirepass, and returns what a user would export to
// point outboxchaos at them: a DSN and a redis:// URL with the passwords.
func stagingServers(t *testing.T, ctx context.Context) (dsn, redisURL string) {
	t.Helper()
	m, err := localenv.StartMariaDB(ctx, localenv.MariaDBOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, m.Close()) })
	root, err := sql.Open("mysql", m.DSN(""))
	require.NoError(t, err)
	defer root.Close()
	for _, stmt := range []string{
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", stagingMySQLUser, stagingMySQLPass),
		fmt.Sprintf("GRANT ALL PRIVILEGES ON *.* TO '%s'@'%%' WITH GRANT OPTION", stagingMySQLUser),
	} {
		_, err := root.ExecContext(ctx, stmt)
		require.NoError(t, err, stmt)
	}
	r, err := localenv.StartRedis(ctx, localenv.RedisOptions{Password: stagingRedisPass})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, r.Close()) })

	// The server really asks for AUTH: a client without it is refused.
	anon := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1})
	defer anon.Close()
	require.ErrorContains(t, anon.Ping(ctx).Err(), "NOAUTH")
	return fmt.Sprintf("%s:%s@tcp(%s)/", stagingMySQLUser, stagingMySQLPass, m.Addr()), r.URL(0)
}

// TestStagingWithPasswords points external mode at servers that need
// passwords, the way a user points it at staging (OUTBOXCHAOS_MYSQL_DSN and
// OUTBOXCHAOS_REDIS_URL with the passwords in them), and runs baseline with
// the reference dispatcher behind a script that prints every variable it
// gets and each password alone. The dispatcher reaches Redis through the
// fault proxy, so its AUTH passes through the proxy. The verdict is a pass,
// and no file of the run folder holds either password in any form.
func TestStagingWithPasswords(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers, builds the reference and runs baseline")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dsn, redisURL := stagingServers(t, ctx)
	t.Setenv(env.EnvKind, "")
	t.Setenv(env.EnvMySQLDSN, dsn)
	t.Setenv(env.EnvRedisURL, redisURL)
	e, err := env.Open(ctx, env.ConfigFromEnv())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	require.Equal(t, env.KindExternal, e.Name())

	a, err := manifest.Load("testdata/staging/manifest.yaml")
	require.NoError(t, err)
	s, err := scenarios.Get("baseline")
	require.NoError(t, err)
	s.Events = 200
	out := filepath.Join(t.TempDir(), "run")
	o, err := runner.Run(ctx, runner.Options{
		Scenario: s, Adapter: a, Env: e, Seed: 1, Out: out, WorkDir: t.TempDir(), Progress: testLog{t},
		// A command line as a user may paste it, passwords and all.
		Command: fmt.Sprintf("%s='%s' %s=%s outboxchaos run --scenario baseline --adapter %s --seed 1 --out %s",
			env.EnvMySQLDSN, dsn, env.EnvRedisURL, redisURL, "testdata/staging/manifest.yaml", out),
	})
	require.NoError(t, err)
	require.Empty(t, o.Skipped)
	// The runner returns the history and the results; the report is the
	// caller's to write, as the CLI and chaostest do.
	_, err = reports.WriteRunResults(o.Dir, o.History, o.Results)
	require.NoError(t, err, "write the report")
	require.Equal(t, check.Pass, o.Verdict, o.Reason)

	requireNoPassword(t, out)
	logs := readLogs(t, out)
	// The dispatcher did print them, masked: the grep above is not vacuous.
	for _, want := range []string{
		"config | redis auth | ***", "config | mysql auth | ***", "config | mysql url auth | ***",
		"OUTBOX_REDIS_URL=redis://:***@127.0.0.1:", "OUTBOX_MYSQL_DSN=" + stagingMySQLUser + ":***@tcp(127.0.0.1:",
		"stderr copy: redis://:***@",
	} {
		require.Contains(t, logs, want)
	}
}

// passwordForms are the ways a password may be written: as is, and escaped
// as in a URL's userinfo, path or query.
func passwordForms(p string) []string {
	forms := []string{p, url.PathEscape(p), url.QueryEscape(p), strings.TrimSuffix(strings.TrimPrefix(url.UserPassword("", p).String(), ":"), "@")}
	// The most telling part of each, in case a form is written cut.
	return append(forms, p[len(p)/2:])
}

// requireNoPassword greps every file under dir for every form of both
// passwords.
func requireNoPassword(t *testing.T, dir string) {
	t.Helper()
	files := 0
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, p := range append(passwordForms(stagingMySQLPass), passwordForms(stagingRedisPass)...) {
			if i := strings.Index(string(b), p); i >= 0 {
				lo, hi := max(0, i-60), min(len(b), i+len(p)+20)
				t.Errorf("%s holds the password form %q: ...%s...", path, p, b[lo:hi])
			}
		}
		return nil
	}))
	for _, want := range []string{"meta.json", "results.json", "index.html"} {
		require.FileExists(t, filepath.Join(dir, want))
	}
	t.Logf("grepped %d files of %s", files, dir)
}

// readLogs concatenates the instances' logs.
func readLogs(t *testing.T, dir string) string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "logs", "*.log"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		b.Write(data)
	}
	return b.String()
}

// testLog sends the runner's progress lines to the test log.
type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// An ACL user (redis://user:pass@host/db, as managed Redis hands out)
// opens too; a wrong password is a clear error without the password.
func TestExternalWithRedisACLUser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn, adminURL := stagingServers(t, ctx)
	opts, err := redis.ParseURL(adminURL)
	require.NoError(t, err)
	admin := redis.NewClient(opts)
	defer admin.Close()
	const aclPass = "Acl+pw/1"
	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "stager", "on", ">"+aclPass, "~*", "&*", "+@all").Err())
	u := url.URL{Scheme: "redis", User: url.UserPassword("stager", aclPass), Host: opts.Addr, Path: "/1"}

	e, err := env.Open(ctx, env.Config{Kind: env.KindExternal, MySQLDSN: dsn, RedisURL: u.String()})
	require.NoError(t, err)
	defer e.Close()
	v, err := e.Versions(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, v["redis"])
	require.Equal(t, 1, e.RedisDB())

	u.User = url.UserPassword("stager", "Wrong+pw/2")
	_, err = env.Open(ctx, env.Config{Kind: env.KindExternal, MySQLDSN: dsn, RedisURL: u.String()})
	require.ErrorContains(t, err, "connect to Redis at "+opts.Addr)
	require.NotContains(t, err.Error(), "Wrong+pw")
}
