package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// settings is what the relay runs with: the contract's variables
// (shared/contract.md section 3) and the planted bug, if any.
type settings struct {
	dsn, redisURL string
	topics        []string // OUTBOX_QUEUES: the streams a row's topic may name
	instance      string

	poll           time.Duration
	batch          int
	lease          time.Duration
	maxAttempts    int
	backoffBase    time.Duration
	backoffMax     time.Duration
	publishTimeout time.Duration

	plant string // OUTBOXCHAOS_PLANT
}

// Planted bugs (doc.go); "" plants none.
const (
	plantRecoveryIgnoresProcessed = "recovery-ignores-processed"
	plantNewIDOnRepublish         = "new-id-on-republish"
)

var plants = []string{plantRecoveryIgnoresProcessed, plantNewIDOnRepublish}

// envParser reads variables through lookup and keeps the first problem.
type envParser struct {
	lookup  func(string) string
	problem error
}

func (p *envParser) fail(format string, args ...any) {
	if p.problem == nil {
		p.problem = fmt.Errorf(format, args...)
	}
}

func (p *envParser) required(name string) string {
	v := strings.TrimSpace(p.lookup(name))
	if v == "" {
		p.fail("%s is required (set it to the value contract.md section 3 describes)", name)
	}
	return v
}

func (p *envParser) optional(name, fallback string) string {
	if v := strings.TrimSpace(p.lookup(name)); v != "" {
		return v
	}
	return fallback
}

func (p *envParser) span(name string, fallback time.Duration) time.Duration {
	raw := strings.TrimSpace(p.lookup(name))
	if raw == "" {
		return fallback
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d <= 0 {
		p.fail("%s=%q: want a positive Go duration such as 250ms or 2s", name, raw)
		return fallback
	}
	return d
}

func (p *envParser) positive(name string, fallback int) int {
	raw := strings.TrimSpace(p.lookup(name))
	if raw == "" {
		return fallback
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		p.fail("%s=%q: want a whole number of at least 1", name, raw)
		return fallback
	}
	return n
}

// readSettings reads and checks the environment.
func readSettings(lookup func(string) string) (settings, error) {
	p := &envParser{lookup: lookup}
	s := settings{
		dsn:            p.required("OUTBOX_MYSQL_DSN"),
		redisURL:       p.required("OUTBOX_REDIS_URL"),
		instance:       p.optional("OUTBOX_INSTANCE_ID", fmt.Sprintf("pid%d", os.Getpid())),
		poll:           p.span("OUTBOX_POLL_INTERVAL", 250*time.Millisecond),
		batch:          p.positive("OUTBOX_BATCH_SIZE", 100),
		lease:          p.span("OUTBOX_LEASE", 30*time.Second),
		maxAttempts:    p.positive("OUTBOX_MAX_ATTEMPTS", 5),
		backoffBase:    p.span("OUTBOX_BACKOFF_BASE", time.Second),
		backoffMax:     p.span("OUTBOX_BACKOFF_MAX", 2*time.Minute),
		publishTimeout: p.span("OUTBOX_PUBLISH_TIMEOUT", 5*time.Second),
		plant:          p.optional("OUTBOXCHAOS_PLANT", ""),
	}
	for _, t := range strings.Split(p.required("OUTBOX_QUEUES"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			s.topics = append(s.topics, t)
		}
	}
	if p.problem != nil {
		return s, p.problem
	}
	return s, s.check()
}

// check finds values that are each fine but do not fit together.
func (s settings) check() error {
	switch {
	case s.plant != "" && !slices.Contains(plants, s.plant):
		return fmt.Errorf("OUTBOXCHAOS_PLANT=%q is not a bug of this dialect (have: %s)", s.plant, strings.Join(plants, ", "))
	case len(s.topics) == 0:
		return fmt.Errorf("OUTBOX_QUEUES names no stream: list the topics, comma-separated")
	case s.lease < 2*s.publishTimeout:
		return fmt.Errorf("OUTBOX_LEASE=%s must be at least twice OUTBOX_PUBLISH_TIMEOUT=%s: a claim must outlive its publish", s.lease, s.publishTimeout)
	case s.backoffMax < s.backoffBase:
		return fmt.Errorf("OUTBOX_BACKOFF_MAX=%s is below OUTBOX_BACKOFF_BASE=%s: raise the maximum", s.backoffMax, s.backoffBase)
	}
	return nil
}

// backoff is how long a row waits after its n-th attempt failed: base
// doubled per attempt, capped at the maximum, less up to a quarter of
// jitter drawn by jitter (a fraction in [0, 1)).
func (s settings) backoff(n int, jitter float64) time.Duration {
	d := s.backoffBase
	for i := 1; i < n && d < s.backoffMax; i++ {
		d *= 2
	}
	d = min(d, s.backoffMax)
	return d - time.Duration(jitter*float64(d)/4)
}
