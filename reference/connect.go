package reference

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

// readCommitted is run on every new MySQL connection. READ COMMITTED keeps
// the claim and the recovery from taking gap locks (which would stall the
// producers' inserts) and lets the recovery UPDATE skip, without waiting,
// rows another session holds whose committed version does not match.
const readCommitted = "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"

// OpenMySQL opens a pool for dsn the way the dispatcher needs it: times are
// parsed (UTC), arguments are interpolated client-side (one round trip per
// statement instead of prepare/execute/close) and every connection runs at
// READ COMMITTED. It does not connect.
func OpenMySQL(dsn string) (*sql.DB, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("open mysql: parse DSN: %w", err)
	}
	cfg.ParseTime = true
	cfg.InterpolateParams = true
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second // dial timeout
	}
	base, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("open mysql: %w", err)
	}
	db := sql.OpenDB(sessionConnector{Connector: base})
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	db.SetConnMaxLifetime(5 * time.Minute)
	return db, nil
}

// sessionConnector sets the session isolation level on each new connection.
type sessionConnector struct{ driver.Connector }

func (c sessionConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("mysql connection cannot execute %q", readCommitted)
	}
	if _, err := ex.ExecContext(ctx, readCommitted, nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("set isolation level: %w", err)
	}
	return conn, nil
}

// OpenRedis builds a client for url whose operations are bounded by their
// context's deadline (the dispatcher gives each add OUTBOX_PUBLISH_TIMEOUT).
// It does not connect.
func OpenRedis(url string, timeout time.Duration) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("open redis: %w", err)
	}
	opts.ContextTimeoutEnabled = true
	opts.DialTimeout = timeout
	opts.ReadTimeout = timeout
	opts.WriteTimeout = timeout
	return redis.NewClient(opts), nil
}
