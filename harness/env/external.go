package env

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/redact"
)

// externalConnectTimeout bounds the first connection to external servers
// when the caller's context has no deadline.
const externalConnectTimeout = 15 * time.Second

// externalEnv points at servers the user runs; it never changes them.
type externalEnv struct {
	mysql     *mysql.Config
	redisAddr string
	redisDB   int
	redisUser string
	redisPass string
	pg        postgresPart
}

var (
	_ Env              = (*externalEnv)(nil)
	_ RedisCredentials = (*externalEnv)(nil)
)

// parseExternal validates the DSN and the URL without connecting.
func parseExternal(cfg Config) (*externalEnv, error) {
	mc, err := mysql.ParseDSN(cfg.MySQLDSN)
	if err != nil {
		return nil, fmt.Errorf("%s is not a go-sql-driver DSN (want user:password@tcp(host:port)/): %w", EnvMySQLDSN, err)
	}
	if mc.Net != "tcp" {
		return nil, fmt.Errorf("%s uses %q: the fault proxy needs TCP, write user:password@tcp(host:port)/", EnvMySQLDSN, mc.Net)
	}
	ro, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("%s is not a Redis URL (want redis://[user:password@]host:port/db): %w", EnvRedisURL, redact.Error(err))
	}
	if ro.TLSConfig != nil {
		return nil, fmt.Errorf("%s uses TLS (rediss://): the fault proxy forwards plain TCP and its protocol-aware faults read the RESP stream, which TLS hides; use redis:// (AUTH passes through the proxy)", EnvRedisURL)
	}
	if ro.Username != "" && ro.Password == "" {
		return nil, fmt.Errorf("%s names user %q without a password: write redis://%s:PASSWORD@host:port/db, or leave the user out", EnvRedisURL, ro.Username, ro.Username)
	}
	return &externalEnv{mysql: mc, redisAddr: ro.Addr, redisDB: ro.DB, redisUser: ro.Username, redisPass: ro.Password,
		pg: postgresPart{cfg: cfg}}, nil
}

// openExternal validates the config and checks both servers answer.
func openExternal(ctx context.Context, cfg Config) (*externalEnv, error) {
	e, err := parseExternal(cfg)
	if err != nil {
		return nil, err
	}
	// From here on, no text the harness writes may carry these passwords,
	// whatever prints them (a dispatcher's log, a driver's error).
	redact.Register(cfg.MySQLDSN, cfg.RedisURL)
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, externalConnectTimeout)
		defer cancel()
	}
	if _, err := mysqlVersion(ctx, e.MySQLDSN("")); err != nil {
		return nil, fmt.Errorf("connect to MySQL at %s (from %s): %w", e.mysql.Addr, EnvMySQLDSN, redact.Error(err))
	}
	if _, err := redisVersion(ctx, RedisOptions(e)); err != nil {
		return nil, fmt.Errorf("connect to Redis at %s (from %s): %w", e.redisAddr, EnvRedisURL, err)
	}
	return e, nil
}

func (e *externalEnv) Name() string      { return KindExternal }
func (e *externalEnv) MySQLAddr() string { return e.mysql.Addr }
func (e *externalEnv) MySQLDSN(database string) string {
	return adminDSN(e.mysql, e.mysql.Addr, database)
}
func (e *externalEnv) RedisAddr() string { return e.redisAddr }
func (e *externalEnv) RedisDB() int      { return e.redisDB }

// RedisCredentials are the user and password of the Redis URL ("" without).
func (e *externalEnv) RedisCredentials() (string, string) { return e.redisUser, e.redisPass }
func (e *externalEnv) Versions(ctx context.Context) (map[string]string, error) {
	return versions(ctx, e, &e.pg)
}
func (e *externalEnv) Postgres(ctx context.Context) (*Postgres, error) {
	return e.pg.get(ctx)
}

// MySQL is nil: external servers are never killed or restarted.
func (e *externalEnv) MySQL() Control { return nil }

// Redis is nil: external servers are never killed or restarted.
func (e *externalEnv) Redis() Control { return nil }

// Close closes the PostgreSQL the environment opened, if any: the
// external servers belong to the user and are left as they are.
func (e *externalEnv) Close() error { return e.pg.close() }

// String describes the environment without the password.
func (e *externalEnv) String() string {
	auth := ""
	if e.redisPass != "" {
		auth = " (AUTH as " + cmp.Or(e.redisUser, "default") + ")"
	}
	return "external mysql " + e.mysql.User + "@" + e.mysql.Addr + ", redis " + e.redisAddr + "/" + strconv.Itoa(e.redisDB) + auth
}
