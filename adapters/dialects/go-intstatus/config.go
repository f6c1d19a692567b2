package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config is the contract's configuration (docs/contract.md §3) plus this
// relay's own sent-record lifetime.
type config struct {
	mysqlDSN string
	redisURL string
	owner    string // OUTBOX_INSTANCE_ID, written to owner
	prefix   string
	topics   []string // OUTBOX_QUEUES: the topics this relay may publish to

	poll           time.Duration
	batch          int
	lease          time.Duration
	maxTries       int
	backoffBase    time.Duration
	backoffMax     time.Duration
	publishTimeout time.Duration
	sentTTL        time.Duration // OUTBOX_SENT_TTL: how long a sent record outlives its add

	plant string // OUTBOXCHAOS_PLANT
}

// Plants are the bugs OUTBOXCHAOS_PLANT can switch on (doc.go).
const (
	plantClaimsSent  = "claims-sent"
	plantRetryAsDead = "retry-as-dead"
	plantJobIDOnly   = "jobid-only"
)

var plants = []string{plantClaimsSent, plantRetryAsDead, plantJobIDOnly}

// env reads variables and keeps the first problem.
type env struct {
	get func(string) string
	err error
}

func (e *env) fail(format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf(format, args...)
	}
}

func (e *env) str(name, def string, required bool) string {
	v := strings.TrimSpace(e.get(name))
	if v == "" {
		if required {
			e.fail("%s is required", name)
		}
		return def
	}
	return v
}

func (e *env) dur(name string, def time.Duration) time.Duration {
	v := strings.TrimSpace(e.get(name))
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		e.fail("%s=%q: want a positive Go duration such as 250ms or 2s", name, v)
		return def
	}
	return d
}

func (e *env) num(name string, def int) int {
	v := strings.TrimSpace(e.get(name))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		e.fail("%s=%q: want a positive whole number", name, v)
		return def
	}
	return n
}

// loadConfig reads the configuration from get (os.Getenv) and checks it.
func loadConfig(get func(string) string) (config, error) {
	e := &env{get: get}
	c := config{
		mysqlDSN:       e.str("OUTBOX_MYSQL_DSN", "", true),
		redisURL:       e.str("OUTBOX_REDIS_URL", "", true),
		owner:          e.str("OUTBOX_INSTANCE_ID", fmt.Sprintf("go-intstatus-%d", os.Getpid()), false),
		prefix:         e.str("OUTBOX_BULL_PREFIX", "bull", false),
		poll:           e.dur("OUTBOX_POLL_INTERVAL", 250*time.Millisecond),
		batch:          e.num("OUTBOX_BATCH_SIZE", 100),
		lease:          e.dur("OUTBOX_LEASE", 20*time.Second),
		maxTries:       e.num("OUTBOX_MAX_ATTEMPTS", 10),
		backoffBase:    e.dur("OUTBOX_BACKOFF_BASE", time.Second),
		backoffMax:     e.dur("OUTBOX_BACKOFF_MAX", 2*time.Minute),
		publishTimeout: e.dur("OUTBOX_PUBLISH_TIMEOUT", 2*time.Second),
		sentTTL:        e.dur("OUTBOX_SENT_TTL", 7*24*time.Hour),
		plant:          e.str("OUTBOXCHAOS_PLANT", "", false),
	}
	c.topics = e.topicList("OUTBOX_QUEUES")
	if e.err != nil {
		return c, e.err
	}
	return c, c.check()
}

// topicList reads the comma-separated topic allowlist.
func (e *env) topicList(name string) []string {
	var out []string
	for _, t := range strings.Split(e.str(name, "", true), ",") {
		t = strings.TrimSpace(t)
		switch {
		case t == "":
			continue
		case strings.Contains(t, ":"):
			e.fail("%s: topic %q contains ':', which a BullMQ queue name cannot", name, t)
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		e.fail("%s names no topic", name)
	}
	return out
}

// check tests the values against each other.
func (c config) check() error {
	switch {
	case c.plant != "" && !slices.Contains(plants, c.plant):
		return fmt.Errorf("OUTBOXCHAOS_PLANT=%q: this relay plants only %s", c.plant, strings.Join(plants, ", "))
	case c.lease < 2*c.publishTimeout:
		return fmt.Errorf("OUTBOX_LEASE=%s: make it at least twice OUTBOX_PUBLISH_TIMEOUT=%s, so a round ends inside its lease", c.lease, c.publishTimeout)
	case c.backoffMax < c.backoffBase:
		return fmt.Errorf("OUTBOX_BACKOFF_MAX=%s is below OUTBOX_BACKOFF_BASE=%s", c.backoffMax, c.backoffBase)
	case c.sentTTL <= c.lease:
		return fmt.Errorf("OUTBOX_SENT_TTL=%s: make it far longer than OUTBOX_LEASE=%s (a re-publish after a crash comes a lease later)", c.sentTTL, c.lease)
	}
	return nil
}

// dbTimeout bounds one claim or settle transaction: half a lease, so a
// claim committed late still leaves its owner most of the lease.
func (c config) dbTimeout() time.Duration { return max(c.lease/2, 500*time.Millisecond) }
