package env

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"

	"github.com/outboxchaos/outboxchaos/harness/localenv"
	"github.com/outboxchaos/outboxchaos/harness/redact"
)

func TestDecidePostgres(t *testing.T) {
	const dsn = "postgres://app:pw@db:5432/outbox"
	errNoPG := errors.New("postgres and initdb not found together on PATH: install them with `apt-get install postgresql`")
	errNoUser := errors.New(`initdb and postgres refuse to run as root, and there is no user "postgres" to run them as`)
	for _, tc := range []struct {
		name       string
		cfg        Config
		f          fakeProbes
		want       string
		wantErr    []string
		wantDocker int
	}{
		{name: "external when the DSN is set", cfg: Config{PostgresDSN: dsn}, want: KindExternal},
		{name: "local when postgres, initdb and the account are there", want: KindLocal},
		{name: "testcontainers without binaries", f: fakeProbes{pgServer: errNoPG, pgInitdb: errNoPG}, want: KindTestcontainers, wantDocker: 1},
		{name: "testcontainers without the postgres user", f: fakeProbes{pgAccount: errNoUser}, want: KindTestcontainers, wantDocker: 1},
		{name: "nothing fits", f: fakeProbes{pgServer: errNoPG, pgInitdb: errNoPG, pgAccount: errNoUser, docker: errNoDocker},
			wantErr: []string{"no PostgreSQL environment available", "postgres and initdb not found", `no user "postgres"`,
				errNoDocker.Error(), "apt-get install postgresql", EnvPostgresDSN}, wantDocker: 1},
		{name: "explicit local is not probed", cfg: Config{Kind: KindLocal, PostgresDSN: dsn}, f: fakeProbes{pgServer: errNoPG}, want: KindLocal},
		{name: "explicit testcontainers", cfg: Config{Kind: KindTestcontainers}, f: fakeProbes{docker: errNoDocker}, want: KindTestcontainers},
		{name: "explicit external", cfg: Config{Kind: KindExternal, PostgresDSN: dsn}, want: KindExternal},
		{name: "explicit external needs the DSN", cfg: Config{Kind: KindExternal}, wantErr: []string{"OUTBOXCHAOS_ENV=external needs " + EnvPostgresDSN}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := decidePostgres(context.Background(), tc.cfg, tc.f.probes())
			if len(tc.wantErr) > 0 {
				for _, s := range tc.wantErr {
					require.ErrorContains(t, err, s)
				}
				if tc.f.pgServer != nil {
					require.Equal(t, 1, strings.Count(err.Error(), "postgres and initdb not found"), "each missing part once")
				}
			} else {
				require.NoError(t, err)
				require.Equal(t, tc.want, d.Kind)
				require.NotEmpty(t, d.Reason)
			}
			require.Equal(t, tc.wantDocker, tc.f.dockerCalls)
		})
	}
}

// PostgreSQL is opened on demand: Open starts none, the first Postgres
// call starts a private server, later calls return it, Close removes it.
func TestLocalPostgresOnDemand(t *testing.T) {
	ctx := testCtx(t)
	e, err := Open(ctx, Config{Kind: KindLocal})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	v, err := e.Versions(ctx)
	require.NoError(t, err)
	require.NotContains(t, v, "postgres", "Open must not start PostgreSQL")
	require.Nil(t, e.(*localEnv).pg.pg)

	pg, err := e.Postgres(ctx)
	require.NoError(t, err)
	again, err := e.Postgres(ctx)
	require.NoError(t, err)
	require.Same(t, pg, again)
	require.Equal(t, KindLocal, pg.Kind())
	require.Equal(t, "postgres", pg.User())
	require.Empty(t, pg.RestartInPlace())
	require.Equal(t, "postgres://postgres@"+pg.Addr()+"/postgres?sslmode=disable", pg.URL(""))
	require.Equal(t, "postgres://postgres@127.0.0.1:1/x?sslmode=disable", pg.URLVia("127.0.0.1:1", "x"))
	v, err = e.Versions(ctx)
	require.NoError(t, err)
	require.Equal(t, pg.Version(), v["postgres"])

	addr := pg.Addr()
	require.NoError(t, pg.Control().Kill())
	require.Error(t, pg.CreateDatabase(ctx, "oc_down"), "a killed server")
	require.NoError(t, pg.Control().Start(ctx))
	require.Equal(t, addr, pg.Addr())
	require.NoError(t, pg.CreateDatabase(ctx, "oc_up"), "the admin connects afresh after a restart")
	require.NoError(t, pg.DropDatabase(ctx, "oc_up"))

	dir := e.(*localEnv).pg.pg.control.(*localenv.Postgres).Dir()
	require.NoError(t, e.Close())
	require.NoDirExists(t, dir)
	_, err = e.Postgres(ctx)
	require.ErrorContains(t, err, "closed")
}

func pgDB(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func count(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(query, args...).Scan(&n))
	return n
}

// A role made by CreateRole connects with its password, is current_user,
// and may write the tables the admin made before and after it; DropRole and
// DropDatabase remove everything, also when called again.
func requireRolesAndDatabases(t *testing.T, ctx context.Context, pg *Postgres) {
	const db, role, pass = "oc_roles", "oc_slot_a", "Sl'ot+pw/1"
	require.NoError(t, pg.CreateDatabase(ctx, db))
	admin := pgDB(t, pg.URL(db))
	_, err := admin.ExecContext(ctx, "CREATE TABLE before (id bigserial PRIMARY KEY, who text)")
	require.NoError(t, err)
	require.NoError(t, pg.CreateRole(ctx, role, pass, db))
	_, err = admin.ExecContext(ctx, "CREATE TABLE after (id bigserial PRIMARY KEY, who text)")
	require.NoError(t, err)

	slot := pgDB(t, pg.RoleURL(pg.Addr(), db, role, pass))
	for _, table := range []string{"before", "after"} {
		_, err := slot.ExecContext(ctx, "INSERT INTO "+table+" (who) VALUES (current_user)")
		require.NoError(t, err, table)
		require.Equal(t, 1, count(t, admin, "SELECT count(*) FROM "+table+" WHERE who = $1", role))
	}
	_, err = slot.ExecContext(ctx, "CREATE TEMPORARY TABLE scratch (x int)")
	require.NoError(t, err)
	require.ErrorContains(t, pgDB(t, pg.RoleURL(pg.Addr(), db, role, "wrong")).PingContext(ctx), "password authentication failed")
	require.NoError(t, slot.Close())

	require.NoError(t, pg.DropRole(ctx, role, db))
	require.Zero(t, count(t, admin, "SELECT count(*) FROM pg_roles WHERE rolname = $1", role))
	require.NoError(t, pg.DropRole(ctx, role, db), "dropping a dropped role")
	require.NoError(t, admin.Close())
	require.NoError(t, pg.DropDatabase(ctx, db))
	require.Zero(t, count(t, pgDB(t, pg.URL("")), "SELECT count(*) FROM pg_database WHERE datname = $1", db))
	require.NoError(t, pg.DropDatabase(ctx, db), "dropping a dropped database")
	require.NoError(t, pg.DropRole(ctx, role, db), "a role of a dropped database")

	// A session left open (a killed dispatcher's) does not stop the drop.
	require.NoError(t, pg.CreateDatabase(ctx, db))
	require.NoError(t, pg.CreateRole(ctx, role, pass, db))
	held := pgDB(t, pg.RoleURL(pg.Addr(), db, role, pass))
	require.NoError(t, held.PingContext(ctx))
	require.NoError(t, pg.DropDatabase(ctx, db))
	require.NoError(t, pg.DropRole(ctx, role, ""))
	require.Contains(t, redact.String("auth "+pass), redact.Mask, "CreateRole registers the password")
}

func TestPostgresRolesAndDatabasesOnAPrivateServer(t *testing.T) {
	ctx := testCtx(t)
	pg, err := openLocalPostgres(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pg.close()) })
	requireRolesAndDatabases(t, ctx, pg)
}

func TestPostgresNamesAndPasswordsAreChecked(t *testing.T) {
	pg := &Postgres{addr: func() string { return "127.0.0.1:1" }, maint: "postgres", user: "postgres"}
	ctx := context.Background()
	require.ErrorContains(t, pg.CreateDatabase(ctx, "Bad-Name"), "lower-case letters")
	require.ErrorContains(t, pg.DropDatabase(ctx, `x"; DROP`), "lower-case letters")
	require.ErrorContains(t, pg.CreateRole(ctx, "r1", "", "db"), "give it a password")
	require.ErrorContains(t, pg.CreateRole(ctx, "1r", "pw", "db"), "role name")
	require.ErrorContains(t, pg.DropRole(ctx, "r1", "Db"), "database name")
	require.ErrorContains(t, pg.CreateDatabase(ctx, strings.Repeat("a", 64)), "1 to 63")
	require.Equal(t, `'it''s'`, quoteLiteral("it's"))
}

// stagePostgres starts a private server with a role that may create
// databases and roles but is no superuser, as a managed PostgreSQL hands
// out, and returns the server and the role's password.
func stagePostgres(t *testing.T, ctx context.Context) (*localenv.Postgres, string) {
	t.Helper()
	srv, err := localenv.StartPostgres(ctx, localenv.PostgresOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	const pass = "St+g:pw/1 x"
	_, err = pgDB(t, srv.URL("")).ExecContext(ctx, "CREATE ROLE stage LOGIN CREATEDB CREATEROLE PASSWORD "+quoteLiteral(pass))
	require.NoError(t, err)
	return srv, pass
}

func TestExternalPostgresAgainstAPrivateServer(t *testing.T) {
	ctx := testCtx(t)
	srv, pass := stagePostgres(t, ctx)
	u := url.URL{Scheme: "postgres", User: url.UserPassword("stage", pass), Host: srv.Addr(), Path: "/postgres"}
	keyValue := "host=127.0.0.1 port=" + strings.TrimPrefix(srv.Addr(), "127.0.0.1:") + " user=stage password='" + strings.ReplaceAll(pass, "'", `\'`) + "' dbname=postgres sslmode=prefer"
	for name, dsn := range map[string]string{"url": u.String(), "key=value": keyValue} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, Config{PostgresDSN: dsn, MySQLDSN: "root@tcp(127.0.0.1:1)/", RedisURL: "redis://127.0.0.1:2/0"}.Validate())
			part := &postgresPart{cfg: Config{PostgresDSN: dsn}}
			pg, err := part.get(ctx)
			require.NoError(t, err)
			require.Equal(t, KindExternal, pg.Kind())
			require.Equal(t, srv.Addr(), pg.Addr())
			require.Equal(t, "stage", pg.User())
			require.Equal(t, srv.Version(), pg.Version())
			require.Nil(t, pg.Control())
			require.Contains(t, pg.RestartInPlace(), "never kills or restarts it")
			require.Contains(t, pg.URL("x"), "@"+srv.Addr()+"/x?sslmode=disable")
			require.NotContains(t, redact.String(pg.URL("x")), "St+g", "the DSN's password is registered")
			require.NotContains(t, redact.String("password "+pass), "St+g")
			requireRolesAndDatabases(t, ctx, pg)
			require.NoError(t, part.close())
			require.NoError(t, pingPG(ctx, srv.URL("")), "closing an external PostgreSQL must not touch the server")
		})
	}
}

func pingPG(ctx context.Context, url string) error {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PingContext(ctx)
}

// A role that may not create databases, a wrong password and a server that
// does not answer are clear errors without the password, and quick.
func TestExternalPostgresRefusals(t *testing.T) {
	ctx := testCtx(t)
	srv, pass := stagePostgres(t, ctx)
	_, err := pgDB(t, srv.URL("")).ExecContext(ctx, "CREATE ROLE plain LOGIN PASSWORD 'Plain+pw1'")
	require.NoError(t, err)
	dsn := func(user, pw string) string {
		return (&url.URL{Scheme: "postgres", User: url.UserPassword(user, pw), Host: srv.Addr(), Path: "/postgres"}).String()
	}
	_, err = openExternalPostgres(ctx, dsn("plain", "Plain+pw1"))
	require.ErrorContains(t, err, "role plain of "+EnvPostgresDSN+" may not create databases")
	require.ErrorContains(t, err, "ALTER ROLE plain CREATEDB")

	_, err = openExternalPostgres(ctx, dsn("stage", "Wrong+pw/2"))
	require.ErrorContains(t, err, "connect to PostgreSQL at "+srv.Addr())
	require.NotContains(t, err.Error(), "Wrong+pw")

	require.NoError(t, srv.Kill())
	start := time.Now()
	_, err = openExternalPostgres(ctx, dsn("stage", pass))
	require.ErrorContains(t, err, "connect to PostgreSQL at "+srv.Addr())
	require.Less(t, time.Since(start), time.Minute)
}

func TestPostgresDSNRefusedWithTheFix(t *testing.T) {
	for _, tc := range []struct {
		dsn  string
		want []string
	}{
		{"postgres://app:pw@db:5432/x?sslmode=require", []string{"requires TLS", "sslmode=disable"}},
		{"host=db user=app password=pw sslmode=verify-full", []string{"requires TLS"}},
		{"postgres://app:pw@db1:5432,db2:5432/x", []string{"several hosts", "name one"}},
		{"host=/var/run/postgresql user=app", []string{"Unix socket", "the fault proxy needs TCP"}},
		{"postgres://app:pw@db:notaport/x", []string{EnvPostgresDSN, "not a PostgreSQL URL or key=value DSN"}},
		{"host=db port=5432 user=app password='Sec ret", []string{"not a PostgreSQL URL"}},
	} {
		err := Config{PostgresDSN: tc.dsn}.Validate()
		for _, w := range tc.want {
			require.ErrorContains(t, err, w, tc.dsn)
		}
		require.NotContains(t, err.Error(), "Sec ret", tc.dsn)
	}
	require.NoError(t, Config{Kind: KindLocal, PostgresDSN: "postgres://app:pw@db:5432/x?sslmode=require"}.Validate(),
		"an explicit local environment ignores the DSN")
	p, err := parsePostgresDSN("postgres://app@db:5433?sslmode=prefer")
	require.NoError(t, err)
	require.Equal(t, "db:5433", p.Addr())
	require.Equal(t, "postgres://app@db:5433/postgres?sslmode=disable", p.URL(""), "the maintenance database defaults to postgres")
}

// Without a Docker daemon the testcontainers PostgreSQL fails at once,
// saying what to do.
func TestPostgresContainerFailsFastWithoutDocker(t *testing.T) {
	if dockerHealthWithin(context.Background()) == nil {
		t.Skip("a Docker daemon answers: TestPostgresContainer covers this machine")
	}
	start := time.Now()
	part := &postgresPart{cfg: Config{Kind: KindTestcontainers}}
	_, err := part.get(context.Background())
	require.ErrorContains(t, err, "open testcontainers PostgreSQL: no Docker daemon answers")
	require.ErrorContains(t, err, "apt-get install postgresql")
	require.Less(t, time.Since(start), 2*dockerProbeTimeout, "must not hang without Docker")
}

// TestPostgresContainer needs a Docker daemon (and the image, pulled on
// first use); it skips cleanly without one.
func TestPostgresContainer(t *testing.T) {
	testcontainers.SkipIfProviderIsNotHealthy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	part := &postgresPart{cfg: Config{Kind: KindTestcontainers}}
	t.Cleanup(func() { require.NoError(t, part.close()) })
	pg, err := part.get(ctx)
	require.NoError(t, err)
	require.Equal(t, KindTestcontainers, pg.Kind())
	require.True(t, strings.HasPrefix(pg.Version(), "16"), pg.Version())
	require.Contains(t, pg.RestartInPlace(), "new host port")
	require.Equal(t, "on", setting(t, pg, "fsync"), "the module's fsync=off must be overridden")
	requireRolesAndDatabases(t, ctx, pg)
	require.NoError(t, pg.Control().Kill())
	require.NoError(t, pg.Control().Start(ctx))
	require.NoError(t, pingPG(ctx, pg.URL("")), "the server answers at the re-read address")
}

func setting(t *testing.T, pg *Postgres, name string) string {
	t.Helper()
	var v string
	require.NoError(t, pgDB(t, pg.URL("")).QueryRow("SELECT current_setting($1)", name).Scan(&v))
	return v
}
