package supervisor

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/schema"
)

// Adapter is what the harness needs from a dispatcher.
type Adapter interface {
	// Name names the dispatcher in reports ("reference").
	Name() string
	// Prepare runs the build step, if any, once per run. workDir is a
	// directory the adapter may write to.
	Prepare(ctx context.Context, workDir string) error
	// Spec says how to start one instance.
	Spec(inst Instance) (Spec, error)
	// Schema is the dispatcher's tables, columns and status words.
	Schema() schema.Mapping
	// Capabilities says which contract features the dispatcher has.
	Capabilities() Capabilities
}

// OrderingPerAggregate is the one ordering promise there is
// (Capabilities.Ordering).
const OrderingPerAggregate = "per-aggregate"

// DurabilityWait is the one durability promise there is
// (Capabilities.Durability).
const DurabilityWait = "wait"

// Capabilities are the contract features a dispatcher offers.
type Capabilities struct {
	// Tuning lists the contract tuning variables it honours ("OUTBOX_LEASE").
	Tuning []string `json:"tuning" yaml:"tuning"`
	// CrashPoints: it reads OUTBOX_FAILPOINTS and prints the crash line.
	CrashPoints bool `json:"crash_points" yaml:"crash_points"`
	// GracefulTerm: on SIGTERM it stops claiming, finishes or releases what
	// it holds, and exits 0.
	GracefulTerm bool `json:"graceful_term" yaml:"graceful_term"`
	// Clock is how the harness can skew the dispatcher's wall clock
	// (harness/clockskew): "faketime" (libfaketime through LD_PRELOAD, for
	// a process that reads the time through libc), "go-overlay" (a Go
	// binary built with the time.Now overlay), or "none"/"" (it cannot).
	Clock string `json:"clock,omitempty" yaml:"clock,omitempty"`
	// Ordering is what order the dispatcher promises: "per-aggregate"
	// (events of one aggregate published, and their jobs created, in commit
	// order; check.CheckOrdering), or "" for none.
	Ordering string `json:"ordering,omitempty" yaml:"ordering,omitempty"`
	// Durability is what the dispatcher promises about a job Redis
	// acknowledged: "wait" (it marks an event published only once
	// OUTBOX_REDIS_REPLICAS replicas hold the job, by WAIT, so a restart
	// that falls back to what the replica held loses none of its published
	// jobs), or "" for none (a lost acknowledged add is Redis's doing).
	Durability string `json:"durability,omitempty" yaml:"durability,omitempty"`
}

// Spec is how to start one instance.
type Spec struct {
	Path string   // executable; a name without a slash is looked up on PATH
	Args []string // arguments after the program name
	Dir  string   // working directory; empty is the harness's own
	// Env is the full environment, KEY=VALUE. Nothing is inherited from the
	// harness: an adapter that wants the harness's environment builds it
	// with Environ.
	Env []string
}

// Instance is one start of a slot.
type Instance struct {
	Slot string // "d1"
	ID   string // unique per start: "d1", "d1r1", ...
	// Env holds the contract's variables (docs/contract.md §3), already
	// pointing at the fault proxy, with OUTBOX_INSTANCE_ID set to ID.
	Env map[string]string
}

// Contract variable names the supervisor itself reads or writes.
const (
	EnvInstanceID = "OUTBOX_INSTANCE_ID"
	envPrefix     = "OUTBOX_"
)

// TuningVariables returns the contract's tuning variables.
func TuningVariables() []string {
	return []string{
		"OUTBOX_POLL_INTERVAL", "OUTBOX_BATCH_SIZE", "OUTBOX_LEASE", "OUTBOX_MAX_ATTEMPTS",
		"OUTBOX_BACKOFF_BASE", "OUTBOX_BACKOFF_MAX", "OUTBOX_PUBLISH_TIMEOUT",
	}
}

// Honours reports whether the dispatcher honours tuning variable name.
func (c Capabilities) Honours(name string) bool {
	for _, t := range c.Tuning {
		if t == name {
			return true
		}
	}
	return false
}

// Validate checks that every tuning variable named is a contract one.
func (c Capabilities) Validate() error {
	known := map[string]bool{}
	for _, v := range TuningVariables() {
		known[v] = true
	}
	for _, t := range c.Tuning {
		if !known[t] {
			return fmt.Errorf("capabilities: unknown tuning variable %q: use one of %s",
				t, strings.Join(TuningVariables(), ", "))
		}
	}
	return nil
}

// Environ builds an instance's full environment: base (typically
// os.Environ()) without any OUTBOX_* entry, so nothing from the harness's own
// shell leaks into the contract, then every entry of vars. The result is
// sorted by key.
func Environ(base []string, vars map[string]string) []string {
	merged := map[string]string{}
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.HasPrefix(k, envPrefix) {
			continue
		}
		merged[k] = v
	}
	for k, v := range vars {
		merged[k] = v
	}
	out := make([]string, 0, len(merged))
	for k, v := range merged {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// HarnessEnviron is Environ(os.Environ(), vars).
func HarnessEnviron(vars map[string]string) []string { return Environ(os.Environ(), vars) }
