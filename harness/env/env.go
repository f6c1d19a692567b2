package env

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// Environment kinds.
const (
	KindAuto           = "auto"
	KindLocal          = "local"
	KindExternal       = "external"
	KindTestcontainers = "testcontainers"
)

// Environment variables read by ConfigFromEnv.
const (
	EnvKind       = "OUTBOXCHAOS_ENV"
	EnvMySQLDSN   = "OUTBOXCHAOS_MYSQL_DSN"
	EnvRedisURL   = "OUTBOXCHAOS_REDIS_URL"
	EnvMySQLImage = "OUTBOXCHAOS_MYSQL_IMAGE"
	// EnvPostgresDSN names an external PostgreSQL (a postgres:// URL or a
	// key=value DSN of a role that may create databases).
	EnvPostgresDSN = "OUTBOXCHAOS_POSTGRES_DSN"
)

// DefaultMySQLImage and DefaultRedisImage are the testcontainers images.
const (
	DefaultMySQLImage = "mysql:8.4"
	DefaultRedisImage = "redis:7"
)

// Env is a pair of MySQL and Redis servers for one run, and a PostgreSQL
// server opened on demand.
type Env interface {
	Name() string                    // "local", "external", "testcontainers"
	MySQLAddr() string               // host:port the fault proxy points at (direct, not proxied)
	MySQLDSN(database string) string // admin Go-driver DSN (parseTime, loc=UTC, multiStatements), direct
	RedisAddr() string
	RedisDB() int
	Versions(ctx context.Context) (map[string]string, error) // {"mysql": "...", "redis": "...", "postgres": "..." once opened}
	MySQL() Control                                          // nil when MySQL cannot be killed/restarted
	Redis() Control                                          // likewise
	// Postgres opens the environment's PostgreSQL on the first call (for an
	// adapter whose store is PostgreSQL) and returns the same server on
	// every later call; Close closes it.
	Postgres(ctx context.Context) (*Postgres, error)
	Close() error
}

// Replicated is an environment that runs a replica of its Redis
// (Config.RedisReplica).
type Replicated interface {
	// RedisReplicaAddr is the replica's host:port, direct.
	RedisReplicaAddr() string
}

// RedisReplicaAddr is the address of e's Redis replica, or "" when it runs
// none.
func RedisReplicaAddr(e Env) string {
	if r, ok := e.(Replicated); ok {
		return r.RedisReplicaAddr()
	}
	return ""
}

// Control kills and restarts one server. After Start and Restart the
// server answers; its address may change only in the testcontainers
// environment (read it again from the Env).
type Control interface {
	Kill() error
	Start(ctx context.Context) error
	Restart(ctx context.Context) error
}

// Config chooses and parameterises the environment.
type Config struct {
	Kind             string // "", "auto", "local", "external", "testcontainers"
	MySQLDSN         string // external: go-sql-driver DSN of an admin user
	RedisURL         string // external: redis://host:port/db
	RedisPersistence bool   // local, testcontainers: Redis with an append-only file
	// RedisReplica: local only, a second private redis-server replicating
	// the first, for a dispatcher that waits for a replica (WAIT).
	RedisReplica bool
	MySQLImage   string // testcontainers: a mysql:* or mariadb:* image; "" = mysql:8.4
	PostgresDSN  string // external PostgreSQL: a postgres:// URL or key=value DSN
}

// ConfigFromEnv reads OUTBOXCHAOS_ENV, OUTBOXCHAOS_MYSQL_DSN,
// OUTBOXCHAOS_REDIS_URL, OUTBOXCHAOS_MYSQL_IMAGE and
// OUTBOXCHAOS_POSTGRES_DSN.
func ConfigFromEnv() Config {
	return Config{
		Kind:        strings.TrimSpace(os.Getenv(EnvKind)),
		MySQLDSN:    strings.TrimSpace(os.Getenv(EnvMySQLDSN)),
		RedisURL:    strings.TrimSpace(os.Getenv(EnvRedisURL)),
		MySQLImage:  strings.TrimSpace(os.Getenv(EnvMySQLImage)),
		PostgresDSN: strings.TrimSpace(os.Getenv(EnvPostgresDSN)),
	}
}

// kind normalises Kind ("" means auto).
func (c Config) kind() string {
	if c.Kind == "" {
		return KindAuto
	}
	return c.Kind
}

// Validate checks the parts of the config that need no server.
func (c Config) Validate() error {
	switch c.kind() {
	case KindAuto:
		if (c.MySQLDSN == "") != (c.RedisURL == "") {
			return fmt.Errorf("only one of %s and %s is set: set both to use external servers, or neither", EnvMySQLDSN, EnvRedisURL)
		}
	case KindExternal:
		if c.MySQLDSN == "" || c.RedisURL == "" {
			return fmt.Errorf("%s=external needs both %s and %s", EnvKind, EnvMySQLDSN, EnvRedisURL)
		}
	case KindLocal, KindTestcontainers:
	default:
		return fmt.Errorf("%s=%q is unknown: use auto, local, external or testcontainers", EnvKind, c.Kind)
	}
	if _, err := c.mysqlFlavor(); err != nil {
		return err
	}
	if k := c.kind(); c.PostgresDSN != "" && (k == KindAuto || k == KindExternal) {
		if _, err := parsePostgresDSN(c.PostgresDSN); err != nil {
			return err
		}
	}
	return nil
}

// mysqlImage is the testcontainers MySQL image.
func (c Config) mysqlImage() string {
	if c.MySQLImage == "" {
		return DefaultMySQLImage
	}
	return c.MySQLImage
}

// mysqlFlavor is "mysql" or "mariadb", from the image name.
func (c Config) mysqlFlavor() (string, error) {
	img := c.mysqlImage()
	name := img[strings.LastIndex(img, "/")+1:]
	switch {
	case strings.HasPrefix(name, "mysql:") || name == "mysql":
		return "mysql", nil
	case strings.HasPrefix(name, "mariadb:") || name == "mariadb":
		return "mariadb", nil
	}
	return "", fmt.Errorf("%s=%q: use a mysql:* or mariadb:* image (e.g. %s or mariadb:11)", EnvMySQLImage, img, DefaultMySQLImage)
}

// Open validates cfg, selects the environment and starts or connects to
// its servers. Close the Env when done.
func Open(ctx context.Context, cfg Config) (Env, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("open environment: %w", err)
	}
	d, err := decide(ctx, cfg, systemProbes())
	if err != nil {
		return nil, fmt.Errorf("open environment: %w", err)
	}
	var e Env
	switch d.Kind {
	case KindExternal:
		e, err = openExternal(ctx, cfg)
	case KindLocal:
		e, err = openLocal(ctx, cfg)
	case KindTestcontainers:
		e, err = openContainers(ctx, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s environment: %w", d.Kind, err)
	}
	return e, nil
}
