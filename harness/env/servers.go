package env

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

// adminDSN returns base (user, password, TLS and other parameters kept)
// pointed at addr and database, with the parameters the harness relies on.
func adminDSN(base *mysql.Config, addr, database string) string {
	c := base.Clone()
	c.Net = "tcp"
	c.Addr = addr
	c.DBName = database
	c.ParseTime = true
	c.Loc = time.UTC
	c.MultiStatements = true
	dsn := c.FormatDSN()
	if !strings.Contains(dsn, "loc=") {
		// FormatDSN leaves out the default; spell it out for readers.
		dsn += "&loc=UTC"
	}
	return dsn
}

// rootConfig is the base config of the servers an environment starts
// itself: root with an empty password.
func rootConfig() *mysql.Config {
	c := mysql.NewConfig()
	c.User = "root"
	return c
}

// mysqlVersion connects with dsn and returns SELECT VERSION().
func mysqlVersion(ctx context.Context, dsn string) (string, error) {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return "", err
	}
	defer db.Close()
	var v string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return "", err
	}
	return v, nil
}

// redisVersion connects with o and returns redis_version from INFO server.
func redisVersion(ctx context.Context, o *redis.Options) (string, error) {
	o.MaxRetries, o.DialTimeout = -1, 5*time.Second
	c := redis.NewClient(o)
	defer c.Close()
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("INFO server has no redis_version")
}

// versions asks both servers of e for their version, and adds the
// PostgreSQL server's when pg has opened one.
func versions(ctx context.Context, e Env, pg *postgresPart) (map[string]string, error) {
	mv, err := mysqlVersion(ctx, e.MySQLDSN(""))
	if err != nil {
		return nil, fmt.Errorf("mysql version at %s: %w", e.MySQLAddr(), err)
	}
	rv, err := redisVersion(ctx, RedisOptions(e))
	if err != nil {
		return nil, fmt.Errorf("redis version at %s: %w", e.RedisAddr(), err)
	}
	v := map[string]string{"mysql": mv, "redis": rv}
	if pv := pg.version(); pv != "" {
		v["postgres"] = pv
	}
	return v, nil
}

// waitUntil polls check every 100 ms until it succeeds or ctx ends.
func waitUntil(ctx context.Context, what string, check func(context.Context) error) error {
	for {
		attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := check(attempt)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready: %w (last error: %v)", what, ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
