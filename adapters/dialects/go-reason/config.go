package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// settings is everything the dispatcher reads from its environment.
type settings struct {
	dsn, redisURL, instance, prefix string
	queues                          map[string]bool

	poll, lease, backoffBase, backoffMax, publishTimeout time.Duration
	batch, maxAttempts                                   int

	plant string // OUTBOXCHAOS_PLANT: a planted bug, or ""
}

// plants are the bugs this dialect can carry on purpose (doc.go).
var plants = map[string]bool{"no-backoff": true, "poison-as-transient": true, "no-jobid": true}

// loadSettings reads the contract's variables; the first bad one is the error.
func loadSettings() (settings, error) {
	s := settings{
		dsn: os.Getenv("OUTBOX_MYSQL_DSN"), redisURL: os.Getenv("OUTBOX_REDIS_URL"),
		instance: os.Getenv("OUTBOX_INSTANCE_ID"), prefix: os.Getenv("OUTBOX_BULL_PREFIX"),
		queues: map[string]bool{}, plant: os.Getenv("OUTBOXCHAOS_PLANT"),
	}
	if s.dsn == "" || s.redisURL == "" {
		return s, fmt.Errorf("OUTBOX_MYSQL_DSN and OUTBOX_REDIS_URL are required")
	}
	for _, q := range strings.Split(os.Getenv("OUTBOX_QUEUES"), ",") {
		if q = strings.TrimSpace(q); q != "" {
			s.queues[q] = true
		}
	}
	if len(s.queues) == 0 {
		return s, fmt.Errorf("OUTBOX_QUEUES is empty: give the queue allowlist, e.g. ai-default,ai-bulk")
	}
	if s.instance == "" {
		host, _ := os.Hostname()
		s.instance = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if s.prefix == "" {
		s.prefix = "bull"
	}
	if s.plant != "" && !plants[s.plant] {
		return s, fmt.Errorf("OUTBOXCHAOS_PLANT=%q: not a bug of this dialect (no-backoff, poison-as-transient, no-jobid)", s.plant)
	}
	durations := []struct {
		name string
		into *time.Duration
		def  time.Duration
	}{
		{"OUTBOX_POLL_INTERVAL", &s.poll, 100 * time.Millisecond},
		{"OUTBOX_LEASE", &s.lease, 30 * time.Second},
		{"OUTBOX_BACKOFF_BASE", &s.backoffBase, time.Second},
		{"OUTBOX_BACKOFF_MAX", &s.backoffMax, 5 * time.Minute},
		{"OUTBOX_PUBLISH_TIMEOUT", &s.publishTimeout, 5 * time.Second},
	}
	for _, d := range durations {
		v, err := durationVar(d.name, d.def)
		if err != nil {
			return s, err
		}
		*d.into = v
	}
	var err error
	if s.batch, err = intVar("OUTBOX_BATCH_SIZE", 100); err != nil {
		return s, err
	}
	if s.maxAttempts, err = intVar("OUTBOX_MAX_ATTEMPTS", 10); err != nil {
		return s, err
	}
	if s.lease < 2*s.publishTimeout {
		return s, fmt.Errorf("OUTBOX_LEASE=%s must be at least twice OUTBOX_PUBLISH_TIMEOUT=%s", s.lease, s.publishTimeout)
	}
	return s, nil
}

func durationVar(name string, def time.Duration) (time.Duration, error) {
	raw := os.Getenv(name)
	if raw == "" {
		return def, nil
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 250ms or 2s", name, raw)
	}
	return d, nil
}

func intVar(name string, def int) (int, error) {
	raw := os.Getenv(name)
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive whole number", name, raw)
	}
	return n, nil
}
