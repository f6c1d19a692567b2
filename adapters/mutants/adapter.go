package mutants

import (
	"fmt"
	"github.com/outboxchaos/outboxchaos/adapters/mutants/names"
	"sort"
	"strings"

	refadapter "github.com/outboxchaos/outboxchaos/adapters/reference"
	"github.com/outboxchaos/outboxchaos/harness/supervisor"
)

// Package is the mutant dispatcher's main package. Every mutant and mode
// runs the same binary, built once per work directory.
const Package = "github.com/outboxchaos/outboxchaos/adapters/mutants/cmd/mutant"

// BlackBoxSuffix, after a mutant's name ("no-job-id:blackbox"), runs it as
// a black box: it declares no crash points, and OUTBOX_FAILPOINTS is never
// passed to it, so the harness must trap its windows from outside, as for
// any other team's dispatcher.
const BlackBoxSuffix = ":blackbox"

// Adapter returns the adapter of the named mutant: the reference adapter's
// build and contract, with OUTBOXCHAOS_MUTANT set for every instance. A
// name ending in BlackBoxSuffix is the same mutant as a black box, named
// "mutant-<name>+blackbox" in reports.
func Adapter(name string) (supervisor.Adapter, error) {
	bug, blackbox := strings.CutSuffix(name, BlackBoxSuffix)
	if _, err := Lookup(bug); err != nil {
		return nil, err
	}
	a, err := newAdapter("mutant-"+bug, names.EnvMutant, bug, supervisor.TuningVariables())
	if err != nil || !blackbox {
		return a, err
	}
	a.name += "+blackbox"
	a.blackbox = true
	return a, nil
}

// BaseAdapter returns the adapter of the correct base dispatcher (no bug):
// the control that proves a mutant's failure is its bug's.
func BaseAdapter() (supervisor.Adapter, error) {
	return newAdapter("mutant-base", "", "", supervisor.TuningVariables())
}

// ModeBinary returns the adapter of the base binary run in a comparison
// mode (OUTBOXCHAOS_MODE=mode, one of dispatcher.Modes), named name and
// declaring the tuning variables given. The catalog of the modes, for
// benchmarks, is package adapters/designs.
func ModeBinary(name, mode string, tuning []string) (supervisor.Adapter, error) {
	return newAdapter(name, names.EnvMode, mode, tuning)
}

var _ supervisor.Adapter = (*adapter)(nil)

// adapter is the reference adapter building Package, plus the variable
// that selects the bug or mode.
type adapter struct {
	*refadapter.Adapter
	name   string
	envVar string // EnvMutant, EnvMode, or "" for the base
	value  string
	tuning []string
	// blackbox hides the crash points: none declared, none passed.
	blackbox bool
}

func newAdapter(name, envVar, value string, tuning []string) (*adapter, error) {
	ref, err := refadapter.NewWithOptions(refadapter.Options{Name: name, Package: Package})
	if err != nil {
		return nil, fmt.Errorf("mutant adapter %s: %w", name, err)
	}
	return &adapter{Adapter: ref, name: name, envVar: envVar, value: value, tuning: tuning}, nil
}

// Name is the dispatcher's name in reports: "mutant-<name>", "mutant-base"
// or the mode's name.
func (a *adapter) Name() string { return a.name }

// Capabilities: the tuning it honours, crash points (unless a black box),
// a graceful SIGTERM, the reference build's clock overlay, and per-aggregate
// order (the base's claim guard, dispatcher doc.go "Order"); wait-unchecked
// also declares durability: wait, the promise it breaks (the base waits
// for OUTBOX_REDIS_REPLICAS only when the harness sets it).
func (a *adapter) Capabilities() supervisor.Capabilities {
	caps := a.Adapter.Capabilities()
	out := supervisor.Capabilities{Tuning: append([]string(nil), a.tuning...), CrashPoints: !a.blackbox, GracefulTerm: true, Clock: caps.Clock, Ordering: supervisor.OrderingPerAggregate}
	if a.envVar == names.EnvMutant && a.value == names.BugWaitUnchecked {
		out.Durability = supervisor.DurabilityWait // the promise it breaks
	}
	return out
}

// Spec is the reference adapter's, with the harness's own selection
// variables removed and this adapter's set.
func (a *adapter) Spec(inst supervisor.Instance) (supervisor.Spec, error) {
	spec, err := a.Adapter.Spec(inst)
	if err != nil {
		return spec, err
	}
	var env []string
	for _, kv := range spec.Env {
		if a.blackbox && strings.HasPrefix(kv, supervisor.EnvFailpoints+"=") {
			continue
		}
		if !strings.HasPrefix(kv, names.EnvMutant+"=") && !strings.HasPrefix(kv, names.EnvMode+"=") {
			env = append(env, kv)
		}
	}
	if a.envVar != "" {
		env = append(env, a.envVar+"="+a.value)
	}
	sort.Strings(env)
	spec.Env = env
	return spec, nil
}
