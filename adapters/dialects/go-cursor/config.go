package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config is the relay's settings: the contract's variables (section 3) it
// honours, and two of its own.
type config struct {
	dsn, redisURL  string
	instance       string
	prefix         string
	queues         []string
	poll           time.Duration
	batch          int
	publishTimeout time.Duration
	// gapLag is how long a missing offset must stay missing before the
	// relay asks the database whether a transaction still holds it
	// (OUTBOX_GAP_LAG).
	gapLag time.Duration
	group  string // OUTBOX_CONSUMER_GROUP: the offsets row this relay moves
	plant  string // OUTBOXCHAOS_PLANT
}

// plants are the bugs that can be planted (doc.go).
var plants = []string{"trusts-id", "ack-before-publish"}

// settings reads environment variables and remembers the first bad one.
type settings struct {
	get   func(string) string
	first error
}

func (s *settings) fail(format string, a ...any) {
	if s.first == nil {
		s.first = fmt.Errorf(format, a...)
	}
}

func (s *settings) text(name, fallback string) string {
	if v := strings.TrimSpace(s.get(name)); v != "" {
		return v
	}
	return fallback
}

func (s *settings) required(name string) string {
	v := s.text(name, "")
	if v == "" {
		s.fail("%s is not set", name)
	}
	return v
}

func (s *settings) duration(name string, fallback time.Duration) time.Duration {
	v := strings.TrimSpace(s.get(name))
	if v == "" {
		return fallback
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		s.fail("%s=%q: want a positive Go duration such as 50ms or 2s", name, v)
		return fallback
	}
	return d
}

func (s *settings) positive(name string, fallback int) int {
	v := strings.TrimSpace(s.get(name))
	if v == "" {
		return fallback
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		s.fail("%s=%q: want a positive integer", name, v)
		return fallback
	}
	return n
}

// loadConfig reads the configuration; any bad value is an error naming
// the variable and what it wants.
func loadConfig(get func(string) string) (config, error) {
	s := &settings{get: get}
	c := config{
		dsn:            s.required("OUTBOX_MYSQL_DSN"),
		redisURL:       s.required("OUTBOX_REDIS_URL"),
		instance:       s.text("OUTBOX_INSTANCE_ID", fmt.Sprintf("go-cursor-%d", os.Getpid())),
		prefix:         s.text("OUTBOX_BULL_PREFIX", "bull"),
		poll:           s.duration("OUTBOX_POLL_INTERVAL", 100*time.Millisecond),
		batch:          s.positive("OUTBOX_BATCH_SIZE", 100),
		publishTimeout: s.duration("OUTBOX_PUBLISH_TIMEOUT", 2*time.Second),
		gapLag:         s.duration("OUTBOX_GAP_LAG", 2*time.Second),
		group:          s.text("OUTBOX_CONSUMER_GROUP", "bullmq-relay"),
		plant:          s.text("OUTBOXCHAOS_PLANT", ""),
	}
	for _, q := range strings.Split(s.required("OUTBOX_QUEUES"), ",") {
		if q = strings.TrimSpace(q); q != "" {
			c.queues = append(c.queues, q)
		}
	}
	switch {
	case s.first != nil:
		return c, s.first
	case len(c.queues) == 0:
		return c, fmt.Errorf("OUTBOX_QUEUES names no queue: list at least one, comma-separated")
	case c.plant != "" && !slices.Contains(plants, c.plant):
		return c, fmt.Errorf("OUTBOXCHAOS_PLANT=%q: go-cursor plants only %s", c.plant, strings.Join(plants, ", "))
	}
	return c, nil
}
