package env

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/localenv"
	"github.com/outboxchaos/outboxchaos/harness/localenv/localtest"
)

// testCtx bounds one test's server calls: opening local servers on a
// loaded machine may take minutes.
func testCtx(t *testing.T) context.Context { return localtest.ContextWithin(t, 3*time.Minute) }

func TestOpenLocalServersWithControl(t *testing.T) {
	ctx := testCtx(t)
	e, err := Open(ctx, Config{Kind: KindLocal, RedisPersistence: true, RedisReplica: true})
	require.NoError(t, err)
	le := e.(*localEnv)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	require.Equal(t, le.replica.Addr(), RedisReplicaAddr(e))
	require.NotEqual(t, e.RedisAddr(), RedisReplicaAddr(e))

	require.Equal(t, KindLocal, e.Name())
	require.True(t, strings.HasPrefix(e.MySQLAddr(), "127.0.0.1:"))
	require.NotEqual(t, "127.0.0.1:3306", e.MySQLAddr())
	require.NotEqual(t, "127.0.0.1:6379", e.RedisAddr())
	dsn := e.MySQLDSN("outboxchaos_x")
	for _, want := range []string{"root@tcp(" + e.MySQLAddr() + ")/outboxchaos_x?", "parseTime=true", "loc=UTC", "multiStatements=true"} {
		require.Contains(t, dsn, want)
	}
	v, err := e.Versions(ctx)
	require.NoError(t, err)
	require.Contains(t, v["mysql"], "MariaDB")
	require.NotEmpty(t, v["redis"])

	mysqlAddr, redisAddr := e.MySQLAddr(), e.RedisAddr()
	require.NoError(t, e.MySQL().Kill())
	_, err = e.Versions(ctx)
	require.Error(t, err, "versions of a killed MySQL")
	require.NoError(t, e.MySQL().Start(ctx))
	require.NoError(t, e.Redis().Kill())
	require.NoError(t, e.Redis().Restart(ctx))
	require.NoError(t, e.MySQL().Restart(ctx))
	require.Equal(t, mysqlAddr, e.MySQLAddr())
	require.Equal(t, redisAddr, e.RedisAddr())
	_, err = e.Versions(ctx)
	require.NoError(t, err)
	require.NoError(t, le.replica.WaitLinked(ctx), "the replica follows the restarted Redis")

	require.NoError(t, e.Close())
	require.NoDirExists(t, le.maria.Dir())
	require.NoDirExists(t, le.redis.Dir())
	require.NoDirExists(t, le.replica.Dir())
}

func TestExternalRejectsBadDSNAndURL(t *testing.T) {
	good := Config{Kind: KindExternal, MySQLDSN: "root@tcp(127.0.0.1:1)/", RedisURL: "redis://127.0.0.1:2/0"}
	for _, tc := range []struct {
		name     string
		dsn, url string
		want     []string
	}{
		{"dsn syntax", "root@tcp(127.0.0.1:1/", good.RedisURL, []string{EnvMySQLDSN, "not a go-sql-driver DSN"}},
		{"dsn unix socket", "root@unix(/run/mysqld/mysqld.sock)/", good.RedisURL, []string{EnvMySQLDSN, "needs TCP"}},
		{"url scheme", good.MySQLDSN, "http://127.0.0.1:2", []string{EnvRedisURL, "not a Redis URL"}},
		{"url db", good.MySQLDSN, "redis://127.0.0.1:2/x", []string{EnvRedisURL, "not a Redis URL"}},
		{"url tls", good.MySQLDSN, "rediss://127.0.0.1:2/0", []string{EnvRedisURL, "TLS", "fault proxy forwards plain TCP", "use redis://"}},
		{"url tls with password", good.MySQLDSN, "rediss://:pw@127.0.0.1:2/0", []string{EnvRedisURL, "TLS"}},
		{"url user without password", good.MySQLDSN, "redis://app@127.0.0.1:2/0", []string{EnvRedisURL, "without a password"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good
			cfg.MySQLDSN, cfg.RedisURL = tc.dsn, tc.url
			_, err := Open(context.Background(), cfg)
			require.Error(t, err)
			for _, s := range tc.want {
				require.ErrorContains(t, err, s)
			}
		})
	}
}

// A Redis URL's credentials reach the harness's clients and, through
// RedisURL, each instance's URL pointed at its proxy link; String hides them.
func TestExternalRedisCredentials(t *testing.T) {
	e, err := parseExternal(Config{Kind: KindExternal, MySQLDSN: "root@tcp(127.0.0.1:1)/", RedisURL: "redis://app:p%40ss%2Fw@127.0.0.1:2/3"})
	require.NoError(t, err)
	user, pass := e.RedisCredentials()
	require.Equal(t, "app", user)
	require.Equal(t, "p@ss/w", pass)
	o := RedisOptions(e)
	require.Equal(t, "app", o.Username)
	require.Equal(t, "p@ss/w", o.Password)
	require.Equal(t, 3, o.DB)
	require.Equal(t, "redis://app:p%40ss%2Fw@127.0.0.1:9/3", RedisURL(e, "127.0.0.1:9"))
	require.NotContains(t, e.String(), "p@ss")
	require.Contains(t, e.String(), "AUTH as app")

	e, err = parseExternal(Config{Kind: KindExternal, MySQLDSN: "root@tcp(127.0.0.1:1)/", RedisURL: "redis://:only@127.0.0.1:2/0"})
	require.NoError(t, err)
	require.Equal(t, "redis://:only@127.0.0.1:9/0", RedisURL(e, "127.0.0.1:9"))
	require.Contains(t, e.String(), "AUTH as default")

	e, err = parseExternal(Config{Kind: KindExternal, MySQLDSN: "root@tcp(127.0.0.1:1)/", RedisURL: "redis://127.0.0.1:2/0"})
	require.NoError(t, err)
	require.Equal(t, "redis://127.0.0.1:9/0", RedisURL(e, "127.0.0.1:9"))
}

func TestExternalAgainstPrivateServers(t *testing.T) {
	ctx := testCtx(t)
	m, err := localenv.StartMariaDB(ctx, localenv.MariaDBOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, m.Close()) })
	r, err := localenv.StartRedis(ctx, localenv.RedisOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, r.Close()) })

	// Auto-selection picks external when both are set.
	e, err := Open(ctx, Config{MySQLDSN: m.DSN(""), RedisURL: r.URL(2)})
	require.NoError(t, err)
	require.Equal(t, KindExternal, e.Name())
	require.Equal(t, m.Addr(), e.MySQLAddr())
	require.Equal(t, r.Addr(), e.RedisAddr())
	require.Equal(t, 2, e.RedisDB())
	require.Nil(t, e.MySQL())
	require.Nil(t, e.Redis())
	require.Contains(t, e.MySQLDSN("db1"), "/db1?")
	v, err := e.Versions(ctx)
	require.NoError(t, err)
	require.Equal(t, m.Version(), v["mysql"])
	require.Equal(t, r.Version(), v["redis"])
	require.NoError(t, e.Close())
	require.NoError(t, pingBoth(ctx, m, r), "closing an external env must not touch the servers")

	// A server that does not answer is a clear error, not a hang.
	require.NoError(t, m.Kill())
	start := time.Now()
	_, err = Open(ctx, Config{Kind: KindExternal, MySQLDSN: m.DSN(""), RedisURL: r.URL(0)})
	require.ErrorContains(t, err, "connect to MySQL at "+m.Addr())
	require.Less(t, time.Since(start), time.Minute)
}

func pingBoth(ctx context.Context, m *localenv.MariaDB, r *localenv.Redis) error {
	if _, err := mysqlVersion(ctx, m.DSN("")); err != nil {
		return err
	}
	_, err := redisVersion(ctx, RedisOptions(&externalEnv{redisAddr: r.Addr()}))
	return err
}

func TestDoctorReportsTheChoice(t *testing.T) {
	ctx := testCtx(t)
	var out bytes.Buffer
	require.NoError(t, Doctor(ctx, Config{}, &out))
	s := out.String()
	for _, want := range []string{"environment: local", "reason: local servers found", "mariadbd:", "redis-server:", "node:", "docker daemon:", "MariaDB",
		"postgres:", "initdb:", "(PostgreSQL)", "postgres account:", "postgresql environment: local (opened only for an adapter whose store is PostgreSQL)",
		"postgresql reason: local PostgreSQL found: "} {
		require.Contains(t, s, want)
	}

	out.Reset()
	require.NoError(t, Doctor(ctx, Config{MySQLDSN: "root@tcp(127.0.0.1:1)/", RedisURL: "redis://127.0.0.1:2/0"}, &out))
	require.Contains(t, out.String(), "environment: external")
	require.NotContains(t, out.String(), "root@tcp", "Doctor must not print the DSN")

	out.Reset()
	err := Doctor(ctx, Config{Kind: "bogus"}, &out)
	require.ErrorContains(t, err, "is unknown")
	require.Contains(t, out.String(), "environment: none")
}

func TestDoctorSaysWhatToInstall(t *testing.T) {
	errNoPG := errors.New("postgres and initdb not found together on PATH: install them with `apt-get install postgresql`")
	f := &fakeProbes{mariadb: errNoMaria, installer: errNoMaria, redis: errNoRedis, node: errors.New("node not found"), docker: errNoDocker,
		pgServer: errNoPG, pgInitdb: errNoPG, pgAccount: errors.New(`there is no user "postgres" to run them as`)}
	var out bytes.Buffer
	err := doctor(testCtx(t), Config{}, &out, f.probes())
	require.ErrorContains(t, err, "no environment available")
	require.NotContains(t, err.Error(), "PostgreSQL", "a missing PostgreSQL is said, not an error")
	s := out.String()
	for _, want := range []string{"environment: none", "apt-get install mariadb-server redis-server",
		"mariadbd:            missing", "redis-server:        missing", "node:                missing",
		"docker daemon:       not reachable (rootless Docker not found)",
		"postgres:            missing: postgres and initdb not found", "initdb:              missing: postgres and initdb not found",
		`postgres account:    missing: there is no user "postgres"`,
		"postgresql environment: none (needed only by an adapter whose store is PostgreSQL)\npostgresql problem: no PostgreSQL environment available",
		"apt-get install postgresql", "or set " + EnvPostgresDSN} {
		require.Contains(t, s, want)
	}
	require.Equal(t, 1, f.dockerCalls, "Docker is asked once")
}

// The PostgreSQL lines follow the configuration: an external DSN (never
// printed), an explicit kind, a DSN the harness cannot use.
func TestDoctorSaysWhichPostgreSQL(t *testing.T) {
	ctx := testCtx(t)
	run := func(cfg Config) (string, error) {
		var out bytes.Buffer
		f := &fakeProbes{docker: errNoDocker}
		err := doctor(ctx, cfg, &out, f.probes())
		return out.String(), err
	}
	s, err := run(Config{PostgresDSN: "postgres://app:Pg+Secret9@db:5432/outbox"})
	require.NoError(t, err)
	require.Contains(t, s, EnvPostgresDSN+"=(set)")
	require.Contains(t, s, "postgresql environment: external (opened only for an adapter whose store is PostgreSQL)\npostgresql reason: "+EnvPostgresDSN+" is set\n")
	require.NotContains(t, s, "Pg+Secret9")

	s, err = run(Config{Kind: KindTestcontainers})
	require.NoError(t, err)
	require.Contains(t, s, "postgresql environment: testcontainers (opened only for an adapter whose store is PostgreSQL)\npostgresql reason: chosen by OUTBOXCHAOS_ENV=testcontainers\n")

	s, err = run(Config{Kind: KindExternal, MySQLDSN: "root@tcp(127.0.0.1:1)/", RedisURL: "redis://127.0.0.1:2/0"})
	require.NoError(t, err, "MySQL and Redis are fine; PostgreSQL is needed only by a PostgreSQL store")
	require.Contains(t, s, "postgresql environment: none (needed only by an adapter whose store is PostgreSQL)\npostgresql problem: OUTBOXCHAOS_ENV=external needs "+EnvPostgresDSN)

	s, err = run(Config{PostgresDSN: "postgres://app:Pg+Secret9@db:5432/outbox?sslmode=verify-full"})
	require.ErrorContains(t, err, "requires TLS", "a DSN the harness cannot use is a configuration error")
	require.Contains(t, s, "postgresql problem: "+EnvPostgresDSN+" requires TLS")
	require.NotContains(t, s, "Pg+Secret9")
}

func TestOnlyTheLocalEnvironmentRestartsMySQLInPlace(t *testing.T) {
	require.Empty(t, MySQLRestartInPlace(&localEnv{}))
	require.Contains(t, MySQLRestartInPlace(&externalEnv{}), "never kills or restarts it")
	require.Contains(t, MySQLRestartInPlace(&containerEnv{}), "new host port")
}
