package roomservice

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// RetryFixedInterval is the only retry strategy (the guide's V1).
const RetryFixedInterval = "fixed_interval"

// Config is the worker's configuration: the guide's OutboxWorkerConfig plus
// the connections and the BullMQ sink.
type Config struct {
	MySQLDSN   string
	RedisURL   string
	NodeID     string   // worker_id written on claimed rows
	Queues     []string // BullMQ queues the worker may add to
	BullPrefix string

	Enabled        bool
	PollInterval   time.Duration
	BatchSize      int
	PublishTimeout time.Duration
	RetryStrategy  string
	RetryInterval  time.Duration // fixed delay before a retryable row is due again; 0: the next scan
	LockTTL        time.Duration // lease written to lock_until
	MaxRetries     int           // failed deliveries before failed; 0: retry forever (the guide's V1)
}

// Defaults from the guide.
const (
	DefaultPollInterval   = time.Second
	DefaultBatchSize      = 100
	DefaultPublishTimeout = 3 * time.Second
	DefaultLockTTL        = 30 * time.Second
)

// Environment variable names.
const (
	EnvMySQLDSN       = "ROOM_MYSQL_DSN"
	EnvRedisURL       = "ROOM_REDIS_URL"
	EnvNodeID         = "ROOM_NODE_ID"
	EnvQueues         = "ROOM_OUTBOX_QUEUES"
	EnvBullPrefix     = "ROOM_OUTBOX_BULL_PREFIX"
	EnvEnabled        = "ROOM_OUTBOX_ENABLED"
	EnvPollInterval   = "ROOM_OUTBOX_POLL_INTERVAL"
	EnvBatchSize      = "ROOM_OUTBOX_BATCH_SIZE"
	EnvPublishTimeout = "ROOM_OUTBOX_PUBLISH_TIMEOUT"
	EnvRetryStrategy  = "ROOM_OUTBOX_RETRY_STRATEGY"
	EnvRetryInterval  = "ROOM_OUTBOX_RETRY_INTERVAL"
	EnvLockTTL        = "ROOM_OUTBOX_LOCK_TTL"
	EnvMaxRetries     = "ROOM_OUTBOX_MAX_RETRIES"
)

// ConfigFromEnv reads the configuration through getenv. Following the
// guide, a non-positive poll interval, batch size or publish timeout falls
// back to its default; an unparseable value or an unknown retry strategy is
// an error.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		MySQLDSN: getenv(EnvMySQLDSN), RedisURL: getenv(EnvRedisURL), NodeID: getenv(EnvNodeID),
		BullPrefix: strings.TrimSpace(getenv(EnvBullPrefix)), RetryStrategy: strings.TrimSpace(getenv(EnvRetryStrategy)),
	}
	for _, q := range strings.Split(getenv(EnvQueues), ",") {
		if q = strings.TrimSpace(q); q != "" {
			c.Queues = append(c.Queues, q)
		}
	}
	var errs []error
	c.Enabled = parseBool(getenv, EnvEnabled, true, &errs)
	c.PollInterval = parseDuration(getenv, EnvPollInterval, &errs)
	c.PublishTimeout = parseDuration(getenv, EnvPublishTimeout, &errs)
	c.RetryInterval = parseDuration(getenv, EnvRetryInterval, &errs)
	c.LockTTL = parseDuration(getenv, EnvLockTTL, &errs)
	c.BatchSize = parseInt(getenv, EnvBatchSize, &errs)
	c.MaxRetries = parseInt(getenv, EnvMaxRetries, &errs)
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	c = c.withDefaults()
	return c, c.Validate()
}

func (c Config) withDefaults() Config {
	if c.PollInterval <= 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.PublishTimeout <= 0 {
		c.PublishTimeout = DefaultPublishTimeout
	}
	if c.LockTTL <= 0 {
		c.LockTTL = DefaultLockTTL
	}
	if c.BullPrefix == "" {
		c.BullPrefix = "bull"
	}
	return c
}

// Validate checks what has no default.
func (c Config) Validate() error {
	switch {
	case c.MySQLDSN == "":
		return fmt.Errorf("%s is not set: give a Go MySQL DSN", EnvMySQLDSN)
	case c.RedisURL == "":
		return fmt.Errorf("%s is not set: give redis://host:port/db", EnvRedisURL)
	case c.NodeID == "":
		return fmt.Errorf("%s is not set: name this node", EnvNodeID)
	case len(c.Queues) == 0:
		return fmt.Errorf("%s is empty: list the queues events may go to", EnvQueues)
	case c.RetryStrategy != "" && c.RetryStrategy != RetryFixedInterval:
		return fmt.Errorf("%s=%q: only %q is supported", EnvRetryStrategy, c.RetryStrategy, RetryFixedInterval)
	case c.MaxRetries < 0:
		return fmt.Errorf("%s=%d: use 0 (retry forever) or more", EnvMaxRetries, c.MaxRetries)
	case c.LockTTL < 2*c.PublishTimeout:
		return fmt.Errorf("%s=%s must be at least twice %s=%s", EnvLockTTL, c.LockTTL, EnvPublishTimeout, c.PublishTimeout)
	}
	return nil
}

func parseDuration(getenv func(string) string, name string, errs *[]error) time.Duration {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q: not a duration (e.g. 1s)", name, v))
	}
	return d
}

func parseInt(getenv func(string) string, name string, errs *[]error) int {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q: not a whole number", name, v))
	}
	return n
}

func parseBool(getenv func(string) string, name string, dflt bool, errs *[]error) bool {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return dflt
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q: use true or false", name, v))
	}
	return b
}
