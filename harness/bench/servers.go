package bench

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/harness/localenv"
	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// servers are the private MariaDB and Redis of a run, with the harness's
// own connections to them.
type servers struct {
	maria    *localenv.MariaDB
	redis    *localenv.Redis
	closers  []func() error
	admin    *sql.DB
	rdb      *redis.Client
	counters *counters
}

// openServers uses cfg's servers, or starts private ones.
func openServers(ctx context.Context, cfg Config) (s *servers, err error) {
	s = &servers{maria: cfg.MariaDB, redis: cfg.Redis}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Close())
		}
	}()
	if s.maria == nil {
		if s.maria, err = localenv.StartMariaDB(ctx, localenv.MariaDBOptions{}); err != nil {
			return s, fmt.Errorf("start private mariadb: %w", err)
		}
		s.closers = append(s.closers, s.maria.Close)
	}
	if s.redis == nil {
		if s.redis, err = localenv.StartRedis(ctx, localenv.RedisOptions{}); err != nil {
			return s, fmt.Errorf("start private redis: %w", err)
		}
		s.closers = append(s.closers, s.redis.Close)
	}
	if s.admin, err = sql.Open("mysql", s.maria.DSN("")); err != nil {
		return s, fmt.Errorf("open mysql admin pool: %w", err)
	}
	s.closers = append(s.closers, s.admin.Close)
	s.rdb = redis.NewClient(&redis.Options{Addr: s.redis.Addr(), DialTimeout: 5 * time.Second})
	s.closers = append(s.closers, s.rdb.Close)
	if s.counters, err = newCounters(ctx, s.admin, s.rdb); err != nil {
		return s, err
	}
	return s, nil
}

// Close closes the connections, then the servers this run started, in
// reverse order.
func (s *servers) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	s.closers = nil
	return errors.Join(errs...)
}

// caseDB is one case's fresh database.
type caseDB struct {
	name string
	db   *sql.DB // the harness's pool: arguments interpolated, one round trip a statement
	dsn  string  // the dispatchers' DSN, direct (no fault proxy)
	own  statementCount
}

var unsafeName = regexp.MustCompile(`[^a-z0-9_]+`)

// newCase creates a database with the reference schema and empties the
// private Redis database.
func (s *servers) newCase(ctx context.Context, label string) (*caseDB, error) {
	name := "bench_" + strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(label), "_"), "_") + "_" + randomHex(3)
	if _, err := s.admin.ExecContext(ctx, "CREATE DATABASE `"+name+"`"); err != nil {
		return nil, fmt.Errorf("create database %s: %w", name, err)
	}
	c := &caseDB{name: name, dsn: s.maria.DSN(name)}
	cfg, err := mysql.ParseDSN(c.dsn)
	if err != nil {
		return nil, fmt.Errorf("parse DSN of %s: %w", name, err)
	}
	cfg.InterpolateParams = true
	if c.db, err = sql.Open("mysql", cfg.FormatDSN()); err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	for _, stmt := range schema.Reference().DDL {
		if _, err := c.db.ExecContext(ctx, stmt); err != nil {
			return nil, errors.Join(fmt.Errorf("apply the reference schema to %s: %w", name, err), s.dropCase(c))
		}
	}
	if err := s.rdb.FlushDB(ctx).Err(); err != nil {
		return nil, errors.Join(fmt.Errorf("flush the private redis: %w", err), s.dropCase(c))
	}
	return c, nil
}

// dropCase closes the case's pool and drops its database.
func (s *servers) dropCase(c *caseDB) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cerr := c.db.Close()
	if _, err := s.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+c.name+"`"); err != nil {
		return errors.Join(cerr, fmt.Errorf("drop database %s: %w", c.name, err))
	}
	return cerr
}

// contractEnv is the environment of docs/contract.md §3 for the case,
// pointing straight at the servers: the benchmark injects no faults.
func (s *servers) contractEnv(c *caseDB, cfg Config) map[string]string {
	u := url.URL{Scheme: "mysql", Host: s.maria.Addr(), Path: "/" + c.name, User: url.User("root")}
	return map[string]string{
		"OUTBOX_MYSQL_DSN":       c.dsn,
		"OUTBOX_MYSQL_URL":       u.String(),
		"OUTBOX_REDIS_URL":       s.redis.URL(0),
		"OUTBOX_QUEUES":          strings.Join(queues, ","),
		"OUTBOX_BULL_PREFIX":     "bull",
		"OUTBOX_POLL_INTERVAL":   cfg.PollInterval.String(),
		"OUTBOX_BATCH_SIZE":      fmt.Sprint(cfg.BatchSize),
		"OUTBOX_LEASE":           "30s",
		"OUTBOX_MAX_ATTEMPTS":    "10",
		"OUTBOX_BACKOFF_BASE":    "1s",
		"OUTBOX_BACKOFF_MAX":     "30s",
		"OUTBOX_PUBLISH_TIMEOUT": "5s",
	}
}

// queues is the allowlist; the workload spreads valid events over it.
var queues = []string{"ai-default", "ai-bulk"}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on Linux
	return hex.EncodeToString(b)
}
