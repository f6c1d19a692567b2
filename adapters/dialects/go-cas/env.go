package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// options is the contract's configuration (section 3).
type options struct {
	mysqlDSN   string
	redisURL   string
	instanceID string
	prefix     string
	queues     []string

	poll           time.Duration
	batch          int
	lease          time.Duration
	maxAttempts    int
	backoffBase    time.Duration
	backoffMax     time.Duration
	publishTimeout time.Duration

	bug string // OUTBOXCHAOS_PLANT
}

// The bugs that can be planted (doc.go).
var bugs = []string{"unfenced-finalize", "select-then-update", "unbounded-attempts", "no-lease-recovery"}

type envReader struct {
	get func(string) string
	err error
}

func (r *envReader) text(name, def string, required bool) string {
	v := strings.TrimSpace(r.get(name))
	if v == "" && required && r.err == nil {
		r.err = fmt.Errorf("%s is not set", name)
	}
	if v == "" {
		return def
	}
	return v
}

func (r *envReader) duration(name string, def time.Duration) time.Duration {
	v := r.get(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if (err != nil || d <= 0) && r.err == nil {
		r.err = fmt.Errorf("%s=%q is not a positive Go duration", name, v)
	}
	return d
}

func (r *envReader) count(name string, def int) int {
	v := r.get(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if (err != nil || n <= 0) && r.err == nil {
		r.err = fmt.Errorf("%s=%q is not a positive integer", name, v)
	}
	return n
}

func readOptions(get func(string) string) (options, error) {
	r := &envReader{get: get}
	o := options{
		mysqlDSN:       r.text("OUTBOX_MYSQL_DSN", "", true),
		redisURL:       r.text("OUTBOX_REDIS_URL", "", true),
		instanceID:     r.text("OUTBOX_INSTANCE_ID", fmt.Sprintf("go-cas-%d", os.Getpid()), false),
		prefix:         r.text("OUTBOX_BULL_PREFIX", "bull", false),
		poll:           r.duration("OUTBOX_POLL_INTERVAL", 200*time.Millisecond),
		batch:          r.count("OUTBOX_BATCH_SIZE", 50),
		lease:          r.duration("OUTBOX_LEASE", 30*time.Second),
		maxAttempts:    r.count("OUTBOX_MAX_ATTEMPTS", 8),
		backoffBase:    r.duration("OUTBOX_BACKOFF_BASE", 500*time.Millisecond),
		backoffMax:     r.duration("OUTBOX_BACKOFF_MAX", time.Minute),
		publishTimeout: r.duration("OUTBOX_PUBLISH_TIMEOUT", 3*time.Second),
		bug:            r.text("OUTBOXCHAOS_PLANT", "", false),
	}
	for _, q := range strings.Split(r.text("OUTBOX_QUEUES", "", true), ",") {
		if q = strings.TrimSpace(q); q != "" {
			o.queues = append(o.queues, q)
		}
	}
	switch {
	case r.err != nil:
		return o, r.err
	case o.bug != "" && !slices.Contains(bugs, o.bug):
		return o, fmt.Errorf("OUTBOXCHAOS_PLANT=%q: this dialect plants only %s", o.bug, strings.Join(bugs, ", "))
	case o.lease < 2*o.publishTimeout:
		return o, fmt.Errorf("OUTBOX_LEASE=%s is shorter than twice OUTBOX_PUBLISH_TIMEOUT=%s", o.lease, o.publishTimeout)
	}
	return o, nil
}
