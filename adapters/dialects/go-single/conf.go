package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// conf holds the settings; see doc.go for the variables it reads.
type conf struct {
	DSN, Redis, Me, Prefix string
	Queues                 []string
	Poll, Lease, Base, Cap time.Duration
	AddTimeout             time.Duration
	Max                    int
	Plant                  string
}

const (
	plantReAdd        = "re-add-dispatched"
	plantBlindPush    = "push-without-check"
	plantOverwrite    = "overwrite-job-data"
	plantNotQueued    = "published-not-queued"
	plantGlobalLock   = "global-lock"
	defaultLeaseValue = 30 * time.Second
)

var knownPlants = []string{plantReAdd, plantBlindPush, plantOverwrite, plantNotQueued, plantGlobalLock}

// parseConf reads the variables through lookup and returns the first problem.
func parseConf(lookup func(string) string) (conf, error) {
	c := conf{
		DSN: lookup("OUTBOX_MYSQL_DSN"), Redis: lookup("OUTBOX_REDIS_URL"), Me: lookup("OUTBOX_INSTANCE_ID"),
		Prefix: lookup("OUTBOX_BULL_PREFIX"), Plant: lookup("OUTBOXCHAOS_PLANT"),
	}
	for _, need := range []struct{ name, val string }{{"OUTBOX_MYSQL_DSN", c.DSN}, {"OUTBOX_REDIS_URL", c.Redis}, {"OUTBOX_INSTANCE_ID", c.Me}} {
		if need.val == "" {
			return c, fmt.Errorf("%s must be set", need.name)
		}
	}
	if c.Prefix == "" {
		c.Prefix = "bull"
	}
	for _, q := range strings.Split(lookup("OUTBOX_QUEUES"), ",") {
		if q = strings.TrimSpace(q); q != "" {
			c.Queues = append(c.Queues, q)
		}
	}
	if len(c.Queues) == 0 {
		return c, fmt.Errorf("OUTBOX_QUEUES must list at least one queue")
	}
	if c.Plant != "" && !contains(knownPlants, c.Plant) {
		return c, fmt.Errorf("OUTBOXCHAOS_PLANT=%q is not one of %s", c.Plant, strings.Join(knownPlants, ", "))
	}
	var err error
	dur := func(name string, def time.Duration) time.Duration {
		raw := lookup(name)
		if raw == "" || err != nil {
			return def
		}
		d, e := time.ParseDuration(raw)
		if e != nil || d <= 0 {
			err = fmt.Errorf("%s=%q: expected a positive duration like 100ms", name, raw)
		}
		return d
	}
	c.Poll = dur("OUTBOX_POLL_INTERVAL", time.Second)
	c.Lease = dur("OUTBOX_LEASE", defaultLeaseValue)
	c.Base = dur("OUTBOX_BACKOFF_BASE", time.Second)
	c.Cap = dur("OUTBOX_BACKOFF_MAX", 10*time.Minute)
	c.AddTimeout = dur("OUTBOX_PUBLISH_TIMEOUT", 5*time.Second)
	if err != nil {
		return c, err
	}
	c.Max = 10
	if raw := lookup("OUTBOX_MAX_ATTEMPTS"); raw != "" {
		if c.Max, err = strconv.Atoi(raw); err != nil || c.Max < 1 {
			return c, fmt.Errorf("OUTBOX_MAX_ATTEMPTS=%q: expected a whole number of at least 1", raw)
		}
	}
	if c.Lease < 2*c.AddTimeout {
		return c, fmt.Errorf("OUTBOX_LEASE=%s: must be at least 2 x OUTBOX_PUBLISH_TIMEOUT (%s)", c.Lease, c.AddTimeout)
	}
	return c, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
