package bullmq

import (
	"fmt"
	"strings"
	"time"
)

// DefaultPrefix is BullMQ's default key prefix.
const DefaultPrefix = "bull"

// DefaultDedupeHorizon is how long a dedupe record outlives its add by default.
const DefaultDedupeHorizon = 7 * 24 * time.Hour

// Options configure a Producer. The zero value is usable.
type Options struct {
	// Prefix is the BullMQ key prefix; "" means DefaultPrefix.
	Prefix string
	// DedupeHorizon is how long a re-add of the same job id stays a no-op
	// after the job hash is gone; 0 means DefaultDedupeHorizon. Must be at
	// least one millisecond.
	DedupeHorizon time.Duration
	// RemoveOnComplete is written into each job's opts, so BullMQ workers
	// delete the job hash when the job completes.
	RemoveOnComplete bool
	// WaitReplicas, when above 0, makes every add batch end with WAIT on
	// the same connection: a job counts as added only once that many
	// replicas acknowledged it, else its result is ErrNotReplicated.
	WaitReplicas int
	// WaitTimeout bounds the WAIT; 0 means DefaultWaitTimeout. WAIT never
	// fails for lack of replicas: it answers how many it counted.
	WaitTimeout time.Duration
}

// DefaultWaitTimeout is how long an add batch waits for its replicas by
// default (Options.WaitTimeout).
const DefaultWaitTimeout = 200 * time.Millisecond

func (o Options) withDefaults() Options {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.DedupeHorizon == 0 {
		o.DedupeHorizon = DefaultDedupeHorizon
	}
	if o.WaitTimeout == 0 {
		o.WaitTimeout = DefaultWaitTimeout
	}
	return o
}

func (o Options) validate() error {
	if o.DedupeHorizon < time.Millisecond {
		return fmt.Errorf("bullmq options: DedupeHorizon %v must be at least 1ms (0 means the default %v)", o.DedupeHorizon, DefaultDedupeHorizon)
	}
	if o.WaitReplicas < 0 || o.WaitTimeout < time.Millisecond {
		return fmt.Errorf("bullmq options: WaitReplicas %d must be 0 or more and WaitTimeout %v at least 1ms (0 means the default %v)", o.WaitReplicas, o.WaitTimeout, DefaultWaitTimeout)
	}
	if strings.ContainsAny(o.Prefix, " \t\r\n") {
		return fmt.Errorf("bullmq options: Prefix %q must not contain whitespace", o.Prefix)
	}
	return nil
}
