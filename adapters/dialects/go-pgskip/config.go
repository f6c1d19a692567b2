package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// settings is what the relay reads from its environment (docs/contract.md
// §3, the PostgreSQL variables instead of the MySQL ones).
type settings struct {
	postgres    string // OUTBOX_POSTGRES_URL, else OUTBOX_POSTGRES_DSN
	postgresVar string // which of the two it came from
	redis       string
	me          string // OUTBOX_INSTANCE_ID: locked_by of this process's claims
	prefix      string
	queues      map[string]bool

	poll        time.Duration
	batch       int
	lease       time.Duration
	maxAttempts int
	backoffBase time.Duration
	backoffMax  time.Duration
	publishWait time.Duration

	bug string // OUTBOXCHAOS_PLANT, "" for none
}

// The planted bugs (doc.go); any other OUTBOXCHAOS_PLANT is a config error.
const (
	bugUnfencedFinalize = "unfenced-finalize"
	bugBackoffTxStart   = "backoff-at-tx-start"
	bugNoJobID          = "no-jobid"
)

var knownBugs = []string{bugUnfencedFinalize, bugBackoffTxStart, bugNoJobID}

// reader collects the first problem while variables are read.
type reader struct {
	lookup  func(string) string
	problem error
}

func (r *reader) complain(format string, args ...any) {
	if r.problem == nil {
		r.problem = fmt.Errorf(format, args...)
	}
}

func (r *reader) text(name string) string { return strings.TrimSpace(r.lookup(name)) }

func (r *reader) duration(name string, def time.Duration) time.Duration {
	v := r.text(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		r.complain("%s=%q is not a positive Go duration (write it as 500ms or 2s)", name, v)
		return def
	}
	return d
}

func (r *reader) count(name string, def int) int {
	v := r.text(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		r.complain("%s=%q is not a whole number of 1 or more", name, v)
		return def
	}
	return n
}

// readSettings reads and checks the environment through lookup (os.Getenv).
func readSettings(lookup func(string) string) (settings, error) {
	r := &reader{lookup: lookup}
	s := settings{
		postgres:    r.text("OUTBOX_POSTGRES_URL"),
		redis:       r.text("OUTBOX_REDIS_URL"),
		me:          r.text("OUTBOX_INSTANCE_ID"),
		prefix:      r.text("OUTBOX_BULL_PREFIX"),
		poll:        r.duration("OUTBOX_POLL_INTERVAL", 200*time.Millisecond),
		batch:       r.count("OUTBOX_BATCH_SIZE", 50),
		lease:       r.duration("OUTBOX_LEASE", 30*time.Second),
		maxAttempts: r.count("OUTBOX_MAX_ATTEMPTS", 8),
		backoffBase: r.duration("OUTBOX_BACKOFF_BASE", 500*time.Millisecond),
		backoffMax:  r.duration("OUTBOX_BACKOFF_MAX", time.Minute),
		publishWait: r.duration("OUTBOX_PUBLISH_TIMEOUT", 5*time.Second),
		bug:         r.text("OUTBOXCHAOS_PLANT"),
	}
	s.postgresVar = "OUTBOX_POSTGRES_URL"
	if s.postgres == "" {
		s.postgres, s.postgresVar = r.text("OUTBOX_POSTGRES_DSN"), "OUTBOX_POSTGRES_DSN"
	}
	if s.me == "" {
		s.me = fmt.Sprintf("go-pgskip-%d", os.Getpid())
	}
	if s.prefix == "" {
		s.prefix = "bull"
	}
	s.queues = r.queueSet("OUTBOX_QUEUES")
	if r.problem != nil {
		return s, r.problem
	}
	return s, s.validate()
}

// queueSet reads the allowlist of BullMQ queues.
func (r *reader) queueSet(name string) map[string]bool {
	out := map[string]bool{}
	for _, q := range strings.Split(r.text(name), ",") {
		q = strings.TrimSpace(q)
		if q == "" {
			continue
		}
		if strings.Contains(q, ":") {
			r.complain("%s: queue %q has a ':', which BullMQ keys cannot hold", name, q)
		}
		out[q] = true
	}
	if len(out) == 0 {
		r.complain("%s is empty: list the BullMQ queues this relay may add to, comma-separated", name)
	}
	return out
}

// validate checks the values against each other.
func (s settings) validate() error {
	switch {
	case s.postgres == "":
		return fmt.Errorf("OUTBOX_POSTGRES_URL (or OUTBOX_POSTGRES_DSN) is required")
	case s.redis == "":
		return fmt.Errorf("OUTBOX_REDIS_URL is required")
	case s.bug != "" && !contains(knownBugs, s.bug):
		return fmt.Errorf("OUTBOXCHAOS_PLANT=%q is not a bug of this relay: use one of %s, or leave it unset", s.bug, strings.Join(knownBugs, ", "))
	case s.lease < 2*s.publishWait:
		return fmt.Errorf("OUTBOX_LEASE=%s is shorter than twice OUTBOX_PUBLISH_TIMEOUT=%s: a delivery must end well inside its lease", s.lease, s.publishWait)
	case s.backoffMax < s.backoffBase:
		return fmt.Errorf("OUTBOX_BACKOFF_MAX=%s is below OUTBOX_BACKOFF_BASE=%s", s.backoffMax, s.backoffBase)
	}
	return nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// idleLimit is the server's idle_in_transaction_session_timeout for a
// delivery: longer than the publish it waits on, shorter than the lease,
// so a process stopped inside its delivery loses its session (and its row
// locks) before its lease ends.
func (s settings) idleLimit() time.Duration { return (s.lease + s.publishWait) / 2 }

// statementLimit bounds one claim or settle statement.
func (s settings) statementLimit() time.Duration { return max(s.lease/4, 250*time.Millisecond) }
