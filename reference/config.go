package reference

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"github.com/outboxchaos/outboxchaos/reference/bullmq"
	"github.com/outboxchaos/outboxchaos/reference/failpoint"
)

// EventTypeEnqueue is the only event type the dispatcher dispatches.
const EventTypeEnqueue = "ai.job.enqueue"

// Limits on configuration values.
const (
	MaxBatchSize     = 10000
	MaxAttemptsLimit = 1000
	maxInstanceIDLen = 128 // outbox_events.locked_by is VARCHAR(128)
	maxQueueNameLen  = 128 // ai_jobs.queue_name is VARCHAR(128)
)

// Config is the dispatcher's configuration. ConfigFromEnv reads it from the
// contract's OUTBOX_* variables; DefaultConfig gives the defaults. Validate
// checks every value.
type Config struct {
	MySQLDSN        string        // OUTBOX_MYSQL_DSN, Go driver DSN (required)
	RedisURL        string        // OUTBOX_REDIS_URL, redis://host:port/db (required)
	Queues          []string      // OUTBOX_QUEUES, comma-separated allowlist (required)
	InstanceID      string        // OUTBOX_INSTANCE_ID, default <hostname>-<pid>
	BullPrefix      string        // OUTBOX_BULL_PREFIX, default "bull"
	PollInterval    time.Duration // OUTBOX_POLL_INTERVAL, default 100ms
	BatchSize       int           // OUTBOX_BATCH_SIZE, default 100, 1..10000
	Lease           time.Duration // OUTBOX_LEASE, default max(30s, 2 x PublishTimeout), >= 2 x PublishTimeout
	MaxAttempts     int           // OUTBOX_MAX_ATTEMPTS, default 10, 1..1000
	BackoffBase     time.Duration // OUTBOX_BACKOFF_BASE, default min(1s, BackoffMax)
	BackoffMax      time.Duration // OUTBOX_BACKOFF_MAX, default max(5m, BackoffBase), >= BackoffBase
	PublishTimeout  time.Duration // OUTBOX_PUBLISH_TIMEOUT, default min(5s, Lease/2)
	DedupeHorizon   time.Duration // OUTBOX_DEDUPE_HORIZON, default 168h
	ShutdownTimeout time.Duration // OUTBOX_SHUTDOWN_TIMEOUT, default max(10s, 2 x PublishTimeout)
	RecoveryMargin  time.Duration // OUTBOX_RECOVERY_MARGIN, default min(Lease/10, 1s), < Lease
	MetricsAddr     string        // OUTBOX_METRICS_ADDR, host:port, "" = no HTTP server
	RedisReplicas   int           // OUTBOX_REDIS_REPLICAS, replicas each add must reach (WAIT), default 0
	Failpoints      string        // OUTBOX_FAILPOINTS, see package failpoint; "" = off
	FailpointSeed   int64         // OUTBOX_FAILPOINT_SEED, default 1
	LogLevel        slog.Level    // OUTBOX_LOG_LEVEL: debug, info, warn, error; default info
}

// Defaults. They suit a production deployment; the harness overrides the
// tuning through the environment.
const (
	DefaultBullPrefix      = bullmq.DefaultPrefix
	DefaultPollInterval    = 100 * time.Millisecond
	DefaultBatchSize       = 100
	DefaultLease           = 30 * time.Second
	DefaultMaxAttempts     = 10
	DefaultBackoffBase     = time.Second
	DefaultBackoffMax      = 5 * time.Minute
	DefaultPublishTimeout  = 5 * time.Second
	DefaultDedupeHorizon   = 168 * time.Hour
	DefaultShutdownTimeout = 10 * time.Second
	DefaultFailpointSeed   = 1
	maxDefaultMargin       = time.Second
)

// DefaultConfig returns the defaults; MySQLDSN, RedisURL and Queues have none.
// The values whose defaults depend on another value (Lease, PublishTimeout,
// BackoffBase, BackoffMax, ShutdownTimeout, RecoveryMargin) are left 0,
// meaning "unset": WithDerived fills them so that they fit the values that
// are set.
func DefaultConfig() Config {
	return Config{
		InstanceID:    defaultInstanceID(),
		BullPrefix:    DefaultBullPrefix,
		PollInterval:  DefaultPollInterval,
		BatchSize:     DefaultBatchSize,
		MaxAttempts:   DefaultMaxAttempts,
		DedupeHorizon: DefaultDedupeHorizon,
		FailpointSeed: DefaultFailpointSeed,
		LogLevel:      slog.LevelInfo,
	}
}

// WithDerived fills every unset (zero) value whose default depends on
// another value, so that a default always gives way to what the user set:
//
//	Lease           max(30s, 2 x PublishTimeout, 2 x RecoveryMargin), when those are set
//	PublishTimeout  min(5s, Lease/2)
//	BackoffBase     min(1s, BackoffMax)
//	BackoffMax      max(5m, BackoffBase)
//	ShutdownTimeout max(10s, 2 x PublishTimeout)
//	RecoveryMargin  min(Lease/10, 1s)
//
// Only two explicit values can then break a relation Validate checks.
func (c Config) WithDerived() Config {
	if c.Lease == 0 {
		c.Lease = max(DefaultLease, 2*c.PublishTimeout, 2*c.RecoveryMargin)
	}
	if c.PublishTimeout == 0 {
		c.PublishTimeout = min(DefaultPublishTimeout, c.Lease/2)
	}
	if c.BackoffBase == 0 {
		c.BackoffBase = DefaultBackoffBase
		if c.BackoffMax > 0 {
			c.BackoffBase = min(c.BackoffBase, c.BackoffMax)
		}
	}
	if c.BackoffMax == 0 {
		c.BackoffMax = max(DefaultBackoffMax, c.BackoffBase)
	}
	if c.ShutdownTimeout == 0 {
		c.ShutdownTimeout = max(DefaultShutdownTimeout, 2*c.PublishTimeout)
	}
	if c.RecoveryMargin == 0 && c.Lease > 0 {
		c.RecoveryMargin = min(c.Lease/10, maxDefaultMargin)
	}
	return c
}

// ConfigError is a configuration value the dispatcher refuses. Its message
// is one line: config: VAR="value": what is wrong.
type ConfigError struct {
	Var     string // the environment variable, e.g. OUTBOX_LEASE
	Value   string // the offending value; "" when it is secret or absent
	Problem string // what is wrong and how to fix it
	secret  bool
}

func (e *ConfigError) Error() string {
	if e.secret || (e.Value == "" && e.Var != "") {
		return fmt.Sprintf("config: %s: %s", e.Var, e.Problem)
	}
	return fmt.Sprintf("config: %s=%q: %s", e.Var, e.Value, e.Problem)
}

func bad(name, value, format string, args ...any) *ConfigError {
	return &ConfigError{Var: name, Value: value, Problem: fmt.Sprintf(format, args...)}
}

// IsConfigError reports whether err is (or wraps) a *ConfigError.
func IsConfigError(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce)
}

// Validate checks every value and the relations between them. The first
// problem is returned as a *ConfigError naming the variable.
func (c Config) Validate() error {
	checks := []func() error{
		c.validateConnections, c.validateQueues, c.validateIdentity,
		c.validateDurations, c.validateCounts, c.validateRelations, c.validateExtras,
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (c Config) validateConnections() error {
	if strings.TrimSpace(c.MySQLDSN) == "" {
		return bad(envMySQLDSN, "", "is required, e.g. user:pass@tcp(127.0.0.1:3306)/outbox")
	}
	if _, err := mysql.ParseDSN(c.MySQLDSN); err != nil {
		return &ConfigError{Var: envMySQLDSN, Problem: "not a Go MySQL driver DSN (user:pass@tcp(host:port)/db): " + err.Error(), secret: true}
	}
	if strings.TrimSpace(c.RedisURL) == "" {
		return bad(envRedisURL, "", "is required, e.g. redis://127.0.0.1:6379/0")
	}
	if _, err := redis.ParseURL(c.RedisURL); err != nil {
		return &ConfigError{Var: envRedisURL, Problem: "not a Redis URL (redis://host:port/db): " + err.Error(), secret: true}
	}
	return nil
}

func (c Config) validateQueues() error {
	joined := strings.Join(c.Queues, ",")
	if len(c.Queues) == 0 {
		return bad(envQueues, "", "is required: a comma-separated list of allowed queue names, e.g. ai-default,ai-bulk")
	}
	seen := map[string]bool{}
	for _, q := range c.Queues {
		switch {
		case q == "":
			return bad(envQueues, joined, "has an empty queue name; remove the extra comma")
		case len(q) > maxQueueNameLen:
			return bad(envQueues, joined, "queue name %q is longer than %d bytes", q, maxQueueNameLen)
		case strings.ContainsAny(q, ": \t\r\n"):
			return bad(envQueues, joined, "queue name %q must not contain ':' or whitespace", q)
		case seen[q]:
			return bad(envQueues, joined, "queue name %q is listed twice", q)
		}
		seen[q] = true
	}
	return nil
}

func (c Config) validateIdentity() error {
	switch {
	case strings.TrimSpace(c.InstanceID) == "":
		return bad(envInstanceID, c.InstanceID, "must not be empty; give each instance and each start its own id")
	case len(c.InstanceID) > maxInstanceIDLen:
		return bad(envInstanceID, c.InstanceID, "is longer than %d bytes (outbox_events.locked_by)", maxInstanceIDLen)
	case strings.TrimSpace(c.BullPrefix) == "" || strings.ContainsAny(c.BullPrefix, " \t\r\n"):
		return bad(envBullPrefix, c.BullPrefix, "must be a non-empty key prefix without whitespace, e.g. bull")
	}
	return nil
}

func (c Config) validateDurations() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{envPollInterval, c.PollInterval}, {envLease, c.Lease}, {envBackoffBase, c.BackoffBase},
		{envBackoffMax, c.BackoffMax}, {envPublishTimeout, c.PublishTimeout},
		{envDedupeHorizon, c.DedupeHorizon}, {envShutdownTimeout, c.ShutdownTimeout},
		{envRecoveryMargin, c.RecoveryMargin},
	} {
		if d.v <= 0 {
			return bad(d.name, d.v.String(), "must be a positive duration, e.g. 30s")
		}
	}
	if c.DedupeHorizon < time.Millisecond {
		return bad(envDedupeHorizon, c.DedupeHorizon.String(), "must be at least 1ms")
	}
	return nil
}

func (c Config) validateCounts() error {
	if c.BatchSize < 1 || c.BatchSize > MaxBatchSize {
		return bad(envBatchSize, fmt.Sprint(c.BatchSize), "must be between 1 and %d", MaxBatchSize)
	}
	if c.MaxAttempts < 1 || c.MaxAttempts > MaxAttemptsLimit {
		return bad(envMaxAttempts, fmt.Sprint(c.MaxAttempts), "must be between 1 and %d", MaxAttemptsLimit)
	}
	return nil
}

// maxReplicas bounds OUTBOX_REDIS_REPLICAS: more is a typo, not a cluster.
const maxReplicas = 16

// validateRelations checks the values that depend on each other. After
// WithDerived a relation can only break between two explicit values, so
// each message names both variables and the ways out.
func (c Config) validateRelations() error {
	if c.BackoffMax < c.BackoffBase {
		return bad(envBackoffMax, c.BackoffMax.String(), "conflicts with %s=%s: the backoff cap must not be shorter than its base; raise %s to %s or more, lower %s, or leave one unset to follow the other",
			envBackoffBase, c.BackoffBase, envBackoffMax, c.BackoffBase, envBackoffBase)
	}
	if c.Lease < 2*c.PublishTimeout {
		return bad(envLease, c.Lease.String(), "conflicts with %s=%s: the lease must be at least twice the publish timeout, so a claim outlives a slow add; raise %s to %s or more, lower %s to %s or less, or leave one unset to follow the other",
			envPublishTimeout, c.PublishTimeout, envLease, 2*c.PublishTimeout, envPublishTimeout, c.Lease/2)
	}
	if c.RecoveryMargin >= c.Lease {
		return bad(envRecoveryMargin, c.RecoveryMargin.String(), "conflicts with %s=%s: the recovery margin must be shorter than the lease; lower %s, raise %s, or leave one unset to follow the other",
			envLease, c.Lease, envRecoveryMargin, envLease)
	}
	return nil
}

func (c Config) validateExtras() error {
	if c.RedisReplicas < 0 || c.RedisReplicas > maxReplicas {
		return bad(envRedisReplicas, fmt.Sprint(c.RedisReplicas), "must be between 0 (no WAIT) and %d", maxReplicas)
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			return bad(envMetricsAddr, c.MetricsAddr, "not a host:port address, e.g. :9090 or 127.0.0.1:9090")
		}
	}
	if _, err := failpoint.Parse(c.Failpoints, c.FailpointSeed); err != nil {
		return bad(envFailpoints, c.Failpoints, "%v", err)
	}
	return nil
}

// RetryBudget is the longest an event can stay unfinished through transient
// failures alone: MaxAttempts leases plus every backoff ceiling between
// them. The dedupe horizon should exceed it (the dispatcher warns if not).
func (c Config) RetryBudget() time.Duration {
	total := time.Duration(c.MaxAttempts) * c.Lease
	for a := 1; a < c.MaxAttempts; a++ {
		total += BackoffCeiling(a, c.BackoffBase, c.BackoffMax)
	}
	return total
}
