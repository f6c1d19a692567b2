package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config is what the relay reads from its environment: the contract's
// variables it honours and its own consumer group.
type config struct {
	pgURL, redisURL string
	instance        string
	prefix          string
	queues          []string
	poll            time.Duration
	batch           int
	publishTimeout  time.Duration
	group           string // OUTBOX_CONSUMER_GROUP: the offsets row this relay moves
	plant           string // OUTBOXCHAOS_PLANT (doc.go, "Planted bugs")
}

// plants are the bugs that can be planted.
var plants = []string{"trusts-id", "ack-before-publish"}

// vars reads variables through get and keeps the first problem it finds,
// worded as what to fix.
type vars struct {
	get     func(string) string
	problem error
}

func (e *vars) bad(format string, a ...any) {
	if e.problem == nil {
		e.problem = fmt.Errorf(format, a...)
	}
}

func (e *vars) str(name, fallback string, required bool) string {
	v := strings.TrimSpace(e.get(name))
	if v == "" && required {
		e.bad("%s is not set", name)
	}
	if v == "" {
		return fallback
	}
	return v
}

func (e *vars) dur(name string, fallback time.Duration) time.Duration {
	v := strings.TrimSpace(e.get(name))
	if v == "" {
		return fallback
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		e.bad("%s=%q: want a positive Go duration such as 100ms or 2s", name, v)
		return fallback
	}
	return d
}

func (e *vars) count(name string, fallback int) int {
	v := strings.TrimSpace(e.get(name))
	if v == "" {
		return fallback
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		e.bad("%s=%q: want a positive integer", name, v)
		return fallback
	}
	return n
}

// loadConfig reads the configuration; a bad value is an error that names
// the variable and what it wants.
func loadConfig(get func(string) string) (config, error) {
	e := &vars{get: get}
	c := config{
		pgURL:          e.str("OUTBOX_POSTGRES_URL", "", true),
		redisURL:       e.str("OUTBOX_REDIS_URL", "", true),
		instance:       e.str("OUTBOX_INSTANCE_ID", fmt.Sprintf("go-pgcursor-%d", os.Getpid()), false),
		prefix:         e.str("OUTBOX_BULL_PREFIX", "bull", false),
		poll:           e.dur("OUTBOX_POLL_INTERVAL", 100*time.Millisecond),
		batch:          e.count("OUTBOX_BATCH_SIZE", 100),
		publishTimeout: e.dur("OUTBOX_PUBLISH_TIMEOUT", 2*time.Second),
		group:          e.str("OUTBOX_CONSUMER_GROUP", "bullmq-relay", false),
		plant:          e.str("OUTBOXCHAOS_PLANT", "", false),
	}
	for _, q := range strings.Split(e.str("OUTBOX_QUEUES", "", true), ",") {
		if q = strings.TrimSpace(q); q != "" {
			c.queues = append(c.queues, q)
		}
	}
	switch {
	case e.problem != nil:
		return c, e.problem
	case len(c.queues) == 0:
		return c, fmt.Errorf("OUTBOX_QUEUES names no queue: list at least one, comma-separated")
	case c.plant != "" && !slices.Contains(plants, c.plant):
		return c, fmt.Errorf("OUTBOXCHAOS_PLANT=%q: go-pgcursor plants only %s", c.plant, strings.Join(plants, ", "))
	}
	return c, nil
}
