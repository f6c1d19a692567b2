package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is the contract's environment, read once at start.
type Config struct {
	MySQLDSN, RedisURL, Instance, Prefix string
	Allowed                              []string

	PollInterval, Lease, BackoffBase, BackoffMax, PublishTimeout time.Duration
	BatchSize, MaxAttempts                                       int

	Plant string
}

// Planted bugs (doc.go).
const (
	PlantMarkBeforeEnqueue = "mark-before-enqueue"
)

var errConfig = errors.New("config")

func configFromEnv() (Config, error) {
	c := Config{
		MySQLDSN: os.Getenv("OUTBOX_MYSQL_DSN"), RedisURL: os.Getenv("OUTBOX_REDIS_URL"),
		Instance: os.Getenv("OUTBOX_INSTANCE_ID"), Prefix: os.Getenv("OUTBOX_BULL_PREFIX"),
		Plant:        os.Getenv("OUTBOXCHAOS_PLANT"),
		PollInterval: 100 * time.Millisecond, Lease: 30 * time.Second, BackoffBase: time.Second,
		BackoffMax: 5 * time.Minute, PublishTimeout: 5 * time.Second, BatchSize: 100, MaxAttempts: 10,
	}
	bad := func(name, why string) error { return fmt.Errorf("%w: %s %s", errConfig, name, why) }
	if c.MySQLDSN == "" {
		return c, bad("OUTBOX_MYSQL_DSN", "is required")
	}
	if c.RedisURL == "" {
		return c, bad("OUTBOX_REDIS_URL", "is required")
	}
	for _, q := range strings.Split(os.Getenv("OUTBOX_QUEUES"), ",") {
		if q = strings.TrimSpace(q); q != "" {
			c.Allowed = append(c.Allowed, q)
		}
	}
	if len(c.Allowed) == 0 {
		return c, bad("OUTBOX_QUEUES", "is required (a comma-separated allowlist)")
	}
	if c.Instance == "" {
		return c, bad("OUTBOX_INSTANCE_ID", "is required: it is written to locked_by, the only fence this dispatcher has")
	}
	if c.Prefix == "" {
		c.Prefix = "bull"
	}
	switch c.Plant {
	case "", PlantMarkBeforeEnqueue:
	default:
		return c, bad("OUTBOXCHAOS_PLANT", fmt.Sprintf("=%q is unknown: the only bug planted here is %s", c.Plant, PlantMarkBeforeEnqueue))
	}
	for name, into := range map[string]*time.Duration{
		"OUTBOX_POLL_INTERVAL": &c.PollInterval, "OUTBOX_LEASE": &c.Lease, "OUTBOX_BACKOFF_BASE": &c.BackoffBase,
		"OUTBOX_BACKOFF_MAX": &c.BackoffMax, "OUTBOX_PUBLISH_TIMEOUT": &c.PublishTimeout,
	} {
		if raw := os.Getenv(name); raw != "" {
			d, err := time.ParseDuration(raw)
			if err != nil || d <= 0 {
				return c, bad(name, fmt.Sprintf("=%q is not a positive duration (e.g. 2s)", raw))
			}
			*into = d
		}
	}
	for name, into := range map[string]*int{"OUTBOX_BATCH_SIZE": &c.BatchSize, "OUTBOX_MAX_ATTEMPTS": &c.MaxAttempts} {
		if raw := os.Getenv(name); raw != "" {
			n, err := strconv.Atoi(raw)
			if err != nil || n < 1 {
				return c, bad(name, fmt.Sprintf("=%q is not a positive integer", raw))
			}
			*into = n
		}
	}
	if c.Lease < 2*c.PublishTimeout {
		return c, bad("OUTBOX_LEASE", fmt.Sprintf("=%s must be at least twice OUTBOX_PUBLISH_TIMEOUT (%s)", c.Lease, c.PublishTimeout))
	}
	return c, nil
}

func (c Config) allowed(queue string) bool {
	for _, q := range c.Allowed {
		if q == queue {
			return true
		}
	}
	return false
}
