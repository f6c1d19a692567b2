package reference

import (
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/spelling"
)

// The environment variables the dispatcher reads.
const (
	envPrefix          = "OUTBOX_"
	envMySQLDSN        = "OUTBOX_MYSQL_DSN"
	envMySQLURL        = "OUTBOX_MYSQL_URL"
	envRedisURL        = "OUTBOX_REDIS_URL"
	envQueues          = "OUTBOX_QUEUES"
	envInstanceID      = "OUTBOX_INSTANCE_ID"
	envBullPrefix      = "OUTBOX_BULL_PREFIX"
	envPollInterval    = "OUTBOX_POLL_INTERVAL"
	envBatchSize       = "OUTBOX_BATCH_SIZE"
	envLease           = "OUTBOX_LEASE"
	envMaxAttempts     = "OUTBOX_MAX_ATTEMPTS"
	envBackoffBase     = "OUTBOX_BACKOFF_BASE"
	envBackoffMax      = "OUTBOX_BACKOFF_MAX"
	envPublishTimeout  = "OUTBOX_PUBLISH_TIMEOUT"
	envDedupeHorizon   = "OUTBOX_DEDUPE_HORIZON"
	envShutdownTimeout = "OUTBOX_SHUTDOWN_TIMEOUT"
	envMetricsAddr     = "OUTBOX_METRICS_ADDR"
	envFailpoints      = "OUTBOX_FAILPOINTS"
	envFailpointSeed   = "OUTBOX_FAILPOINT_SEED"
	envLogLevel        = "OUTBOX_LOG_LEVEL"
	envRecoveryMargin  = "OUTBOX_RECOVERY_MARGIN"
	envRedisReplicas   = "OUTBOX_REDIS_REPLICAS"
)

// setter stores one variable's text into a Config, or says why it cannot.
type setter func(c *Config, name, value string) error

// envSetters maps every known variable to its setter.
var envSetters = map[string]setter{
	envMySQLDSN:        func(c *Config, _, v string) error { c.MySQLDSN = v; return nil },
	envMySQLURL:        func(*Config, string, string) error { return nil }, // for other languages; the Go DSN is used
	envRedisURL:        func(c *Config, _, v string) error { c.RedisURL = v; return nil },
	envQueues:          func(c *Config, _, v string) error { c.Queues = splitQueues(v); return nil },
	envInstanceID:      func(c *Config, _, v string) error { c.InstanceID = v; return nil },
	envBullPrefix:      func(c *Config, _, v string) error { c.BullPrefix = v; return nil },
	envPollInterval:    durationInto(func(c *Config) *time.Duration { return &c.PollInterval }),
	envBatchSize:       intInto(func(c *Config) *int { return &c.BatchSize }),
	envLease:           durationInto(func(c *Config) *time.Duration { return &c.Lease }),
	envMaxAttempts:     intInto(func(c *Config) *int { return &c.MaxAttempts }),
	envBackoffBase:     durationInto(func(c *Config) *time.Duration { return &c.BackoffBase }),
	envBackoffMax:      durationInto(func(c *Config) *time.Duration { return &c.BackoffMax }),
	envPublishTimeout:  durationInto(func(c *Config) *time.Duration { return &c.PublishTimeout }),
	envDedupeHorizon:   durationInto(func(c *Config) *time.Duration { return &c.DedupeHorizon }),
	envShutdownTimeout: durationInto(func(c *Config) *time.Duration { return &c.ShutdownTimeout }),
	envRecoveryMargin:  durationInto(func(c *Config) *time.Duration { return &c.RecoveryMargin }),
	envMetricsAddr:     func(c *Config, _, v string) error { c.MetricsAddr = v; return nil },
	envRedisReplicas:   intInto(func(c *Config) *int { return &c.RedisReplicas }),
	envFailpoints:      func(c *Config, _, v string) error { c.Failpoints = v; return nil },
	envFailpointSeed:   parseSeed,
	envLogLevel:        parseLogLevel,
}

// EnvNames lists every variable ConfigFromEnv knows, sorted.
func EnvNames() []string {
	out := make([]string, 0, len(envSetters))
	for n := range envSetters {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ConfigFromEnv reads the configuration from environ (os.Environ()'s form,
// KEY=value), on top of DefaultConfig, derives what is unset and validates
// the result. Any variable with the OUTBOX_ prefix that is not known is an
// error naming the closest known name. Errors are *ConfigError.
func ConfigFromEnv(environ []string) (Config, error) {
	c := DefaultConfig()
	vars := map[string]string{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && strings.HasPrefix(name, envPrefix) {
			vars[name] = value
		}
	}
	// Visit in sorted order so the reported error does not depend on map order.
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := envSetters[name]; !ok {
			return Config{}, &ConfigError{Var: name, Problem: fmt.Sprintf("unknown variable; did you mean %s?", closestName(name))}
		}
	}
	for _, name := range names {
		if err := envSetters[name](&c, name, vars[name]); err != nil {
			return Config{}, err
		}
	}
	c = c.WithDerived()
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func durationInto(field func(*Config) *time.Duration) setter {
	return func(c *Config, name, v string) error {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return bad(name, v, "not a duration (e.g. 30s)")
		}
		if d <= 0 {
			return bad(name, v, "must be a positive duration (e.g. 30s)")
		}
		*field(c) = d
		return nil
	}
}

func intInto(field func(*Config) *int) setter {
	return func(c *Config, name, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return bad(name, v, "not a whole number (e.g. 100)")
		}
		*field(c) = n
		return nil
	}
}

func parseSeed(c *Config, name, v string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return bad(name, v, "not a 64-bit integer (e.g. 1)")
	}
	c.FailpointSeed = n
	return nil
}

func parseLogLevel(c *Config, name, v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "debug":
		c.LogLevel = slog.LevelDebug
	case "info", "":
		c.LogLevel = slog.LevelInfo
	case "warn", "warning":
		c.LogLevel = slog.LevelWarn
	case "error":
		c.LogLevel = slog.LevelError
	default:
		return bad(name, v, "not a log level (debug, info, warn or error)")
	}
	return nil
}

// splitQueues splits a comma-separated list, trimming spaces around names.
// Empty names are kept so that Validate can point at the extra comma.
func splitQueues(v string) []string {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	parts := strings.Split(v, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func defaultInstanceID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "dispatcher"
	}
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}

// closestName returns the known variable nearest to name by edit distance.
func closestName(name string) string {
	best, _ := spelling.Nearest(name, EnvNames())
	return best
}
