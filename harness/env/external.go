package env

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

// externalConnectTimeout bounds the first connection to external servers
// when the caller's context has no deadline.
const externalConnectTimeout = 15 * time.Second

// externalEnv points at servers the user runs; it never changes them.
type externalEnv struct {
	mysql     *mysql.Config
	redisAddr string
	redisDB   int
}

var _ Env = (*externalEnv)(nil)

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
		return nil, fmt.Errorf("%s is not a Redis URL (want redis://host:port/db): %w", EnvRedisURL, err)
	}
	if ro.TLSConfig != nil {
		return nil, fmt.Errorf("%s uses TLS (rediss://): the fault proxy needs plain TCP, use redis://", EnvRedisURL)
	}
	if ro.Username != "" || ro.Password != "" {
		return nil, fmt.Errorf("%s has credentials: the harness reaches Redis by address and database only, use a Redis without AUTH", EnvRedisURL)
	}
	return &externalEnv{mysql: mc, redisAddr: ro.Addr, redisDB: ro.DB}, nil
}

// openExternal validates the config and checks both servers answer.
func openExternal(ctx context.Context, cfg Config) (*externalEnv, error) {
	e, err := parseExternal(cfg)
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, externalConnectTimeout)
		defer cancel()
	}
	if _, err := mysqlVersion(ctx, e.MySQLDSN("")); err != nil {
		return nil, fmt.Errorf("connect to MySQL at %s (from %s): %w", e.mysql.Addr, EnvMySQLDSN, err)
	}
	if _, err := redisVersion(ctx, e.redisAddr, e.redisDB); err != nil {
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
func (e *externalEnv) Versions(ctx context.Context) (map[string]string, error) {
	return versions(ctx, e)
}

// MySQL is nil: external servers are never killed or restarted.
func (e *externalEnv) MySQL() Control { return nil }

// Redis is nil: external servers are never killed or restarted.
func (e *externalEnv) Redis() Control { return nil }

// Close does nothing: the servers belong to the user.
func (e *externalEnv) Close() error { return nil }

// String describes the environment without the password.
func (e *externalEnv) String() string {
	return "external mysql " + e.mysql.User + "@" + e.mysql.Addr + ", redis " + e.redisAddr + "/" + strconv.Itoa(e.redisDB)
}
