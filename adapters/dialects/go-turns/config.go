package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// settings are the contract's variables (docs/contract.md §3), with this
// dialect's defaults: seed 001's batch of 20, 10 attempts, 5 s queue
// operation timeout (also the lock's TTL), 1 s interval; a 30 s lease.
type settings struct {
	mysqlDSN, redisURL string
	instance, prefix   string
	queues             []string

	interval        time.Duration // between two tries for a turn
	batch           int           // events claimed in one turn
	lease           time.Duration // of a claim
	maxAttempts     int
	backoffBase     time.Duration
	backoffMax      time.Duration
	queueOpTimeout  time.Duration // one Redis round trip, and the lock's TTL (OUTBOX_PUBLISH_TIMEOUT)
	highWaterMarked bool          // the planted bug (OUTBOXCHAOS_PLANT=high-water-mark)
}

// plantHighWaterMark is the only bug this dialect plants (doc.go).
const plantHighWaterMark = "high-water-mark"

// env reads variables and keeps the first problem it meets.
type env struct {
	lookup func(string) string
	err    error
}

func (e *env) fail(name, value, want string) {
	if e.err == nil {
		e.err = fmt.Errorf("%s=%q: %s", name, value, want)
	}
}

func (e *env) required(name string) string {
	v := strings.TrimSpace(e.lookup(name))
	if v == "" && e.err == nil {
		e.err = fmt.Errorf("%s is not set: the harness, or you, must pass it", name)
	}
	return v
}

func (e *env) text(name, def string) string {
	if v := strings.TrimSpace(e.lookup(name)); v != "" {
		return v
	}
	return def
}

func (e *env) duration(name string, def time.Duration) time.Duration {
	v := strings.TrimSpace(e.lookup(name))
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		e.fail(name, v, "want a positive Go duration such as 500ms or 2s")
		return def
	}
	return d
}

func (e *env) positive(name string, def int) int {
	v := strings.TrimSpace(e.lookup(name))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		e.fail(name, v, "want a positive integer")
		return def
	}
	return n
}

// loadSettings reads the settings through lookup (os.Getenv in main) and
// returns the first problem found, naming its variable.
func loadSettings(lookup func(string) string) (settings, error) {
	e := &env{lookup: lookup}
	s := settings{
		mysqlDSN:       e.required("OUTBOX_MYSQL_DSN"),
		redisURL:       e.required("OUTBOX_REDIS_URL"),
		instance:       e.text("OUTBOX_INSTANCE_ID", fmt.Sprintf("go-turns-%d", os.Getpid())),
		prefix:         e.text("OUTBOX_BULL_PREFIX", "bull"),
		interval:       e.duration("OUTBOX_POLL_INTERVAL", time.Second),
		batch:          e.positive("OUTBOX_BATCH_SIZE", 20),
		lease:          e.duration("OUTBOX_LEASE", 30*time.Second),
		maxAttempts:    e.positive("OUTBOX_MAX_ATTEMPTS", 10),
		backoffBase:    e.duration("OUTBOX_BACKOFF_BASE", time.Second),
		backoffMax:     e.duration("OUTBOX_BACKOFF_MAX", 5*time.Minute),
		queueOpTimeout: e.duration("OUTBOX_PUBLISH_TIMEOUT", 5*time.Second),
	}
	for _, q := range strings.Split(e.required("OUTBOX_QUEUES"), ",") {
		if q = strings.TrimSpace(q); q != "" {
			s.queues = append(s.queues, q)
		}
	}
	switch plant := e.text("OUTBOXCHAOS_PLANT", ""); plant {
	case "":
	case plantHighWaterMark:
		s.highWaterMarked = true
	default:
		e.fail("OUTBOXCHAOS_PLANT", plant, "this dialect plants only "+plantHighWaterMark)
	}
	if e.err != nil {
		return s, e.err
	}
	return s, s.check()
}

// check rejects settings that each parse but do not fit together.
func (s settings) check() error {
	switch {
	case len(s.queues) == 0:
		return errors.New("OUTBOX_QUEUES names no queue: give a comma-separated allowlist")
	case s.backoffMax < s.backoffBase:
		return fmt.Errorf("OUTBOX_BACKOFF_MAX=%s is below OUTBOX_BACKOFF_BASE=%s", s.backoffMax, s.backoffBase)
	case s.lease < 2*s.queueOpTimeout:
		return fmt.Errorf("OUTBOX_LEASE=%s must be at least twice OUTBOX_PUBLISH_TIMEOUT=%s: a turn's adds must fit in its lease", s.lease, s.queueOpTimeout)
	}
	return nil
}

// allowed tells whether queue is in the allowlist.
func (s settings) allowed(queue string) bool {
	for _, q := range s.queues {
		if q == queue {
			return true
		}
	}
	return false
}
