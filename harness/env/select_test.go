package env

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeProbes reports the given results and counts Docker probes.
type fakeProbes struct {
	mariadb, installer, redis, node, docker error
	pgServer, pgInitdb, pgAccount           error
	dockerCalls                             int
	dockerDeadline                          time.Duration
}

func (f *fakeProbes) probes() probes {
	look := func(path string, err *error) func() (string, error) {
		return func() (string, error) {
			if *err != nil {
				return "", *err
			}
			return path, nil
		}
	}
	return probes{
		mariadb:   look("/usr/sbin/mariadbd", &f.mariadb),
		installer: look("/usr/bin/mariadb-install-db", &f.installer),
		redis:     look("/usr/bin/redis-server", &f.redis),
		node:      look("/usr/bin/node", &f.node),
		pgServer:  look("/usr/lib/postgresql/15/bin/postgres", &f.pgServer),
		pgInitdb:  look("/usr/lib/postgresql/15/bin/initdb", &f.pgInitdb),
		pgAccount: look("runs as postgres (uid 101: initdb and postgres refuse to run as root)", &f.pgAccount),
		docker: func(ctx context.Context) error {
			f.dockerCalls++
			if dl, ok := ctx.Deadline(); ok {
				f.dockerDeadline = time.Until(dl)
			}
			return f.docker
		},
	}
}

var (
	errNoMaria  = errors.New("mariadbd or mysqld not found: install it with `apt-get install mariadb-server`")
	errNoRedis  = errors.New("redis-server not found: install it with `apt-get install redis-server`")
	errNoDocker = errors.New("rootless Docker not found")
)

func TestDecideOrder(t *testing.T) {
	external := Config{MySQLDSN: "root@tcp(127.0.0.1:1)/", RedisURL: "redis://127.0.0.1:2/0"}
	for _, tc := range []struct {
		name       string
		cfg        Config
		f          fakeProbes
		want       string
		wantErr    []string
		wantDocker int
	}{
		{name: "external when both set", cfg: external, f: fakeProbes{}, want: KindExternal},
		{name: "external wins over local binaries", cfg: Config{Kind: "auto", MySQLDSN: external.MySQLDSN, RedisURL: external.RedisURL}, want: KindExternal},
		{name: "only dsn is an error", cfg: Config{MySQLDSN: external.MySQLDSN}, wantErr: []string{EnvMySQLDSN, EnvRedisURL, "set both"}},
		{name: "only url is an error", cfg: Config{RedisURL: external.RedisURL}, wantErr: []string{"set both"}},
		{name: "local when binaries exist, docker not asked", cfg: Config{}, want: KindLocal},
		{name: "testcontainers when redis missing and docker answers", cfg: Config{}, f: fakeProbes{redis: errNoRedis}, want: KindTestcontainers, wantDocker: 1},
		{name: "testcontainers when installer missing", cfg: Config{}, f: fakeProbes{installer: errors.New("mariadb-install-db not found")}, want: KindTestcontainers, wantDocker: 1},
		{name: "nothing fits", cfg: Config{}, f: fakeProbes{mariadb: errNoMaria, redis: errNoRedis, docker: errNoDocker},
			wantErr: []string{"mariadbd or mysqld not found", "redis-server not found", errNoDocker.Error(), "apt-get install mariadb-server redis-server", EnvMySQLDSN}, wantDocker: 1},
		{name: "explicit local is not probed", cfg: Config{Kind: KindLocal}, f: fakeProbes{mariadb: errNoMaria, docker: errNoDocker}, want: KindLocal},
		{name: "explicit testcontainers", cfg: Config{Kind: KindTestcontainers}, f: fakeProbes{docker: errNoDocker}, want: KindTestcontainers},
		{name: "explicit external needs both", cfg: Config{Kind: KindExternal, MySQLDSN: external.MySQLDSN}, wantErr: []string{"external needs both"}},
		{name: "unknown kind", cfg: Config{Kind: "docker"}, wantErr: []string{`OUTBOXCHAOS_ENV="docker" is unknown`}},
		{name: "unknown image", cfg: Config{MySQLImage: "postgres:16"}, wantErr: []string{EnvMySQLImage, "mysql:* or mariadb:*"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := decide(context.Background(), tc.cfg, tc.f.probes())
			if len(tc.wantErr) > 0 {
				require.Error(t, err)
				for _, s := range tc.wantErr {
					require.ErrorContains(t, err, s)
				}
			} else {
				require.NoError(t, err)
				require.Equal(t, tc.want, d.Kind)
				require.NotEmpty(t, d.Reason)
			}
			require.Equal(t, tc.wantDocker, tc.f.dockerCalls)
			if tc.f.dockerCalls > 0 {
				require.LessOrEqual(t, tc.f.dockerDeadline, dockerProbeTimeout, "docker probe must be bounded")
			}
		})
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Setenv(EnvKind, " local ")
	t.Setenv(EnvMySQLDSN, "root@tcp(127.0.0.1:1)/")
	t.Setenv(EnvRedisURL, "redis://127.0.0.1:2/3")
	t.Setenv(EnvMySQLImage, "mariadb:11")
	t.Setenv(EnvPostgresDSN, " postgres://app@db:5432/x ")
	cfg := ConfigFromEnv()
	require.Equal(t, Config{Kind: "local", MySQLDSN: "root@tcp(127.0.0.1:1)/", RedisURL: "redis://127.0.0.1:2/3", MySQLImage: "mariadb:11",
		PostgresDSN: "postgres://app@db:5432/x"}, cfg)
	require.NoError(t, cfg.Validate())
	flavor, err := cfg.mysqlFlavor()
	require.NoError(t, err)
	require.Equal(t, "mariadb", flavor)
	flavor, err = Config{MySQLImage: "docker.io/library/mysql:8.4"}.mysqlFlavor()
	require.NoError(t, err)
	require.Equal(t, "mysql", flavor)
}
