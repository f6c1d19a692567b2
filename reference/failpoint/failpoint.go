// Package failpoint injects crashes and pauses at the reference dispatcher's
// named crash points, so that the harness can open each crash window on
// purpose.
//
// Failpoints are off unless a specification is given (the dispatcher reads it
// from OUTBOX_FAILPOINTS). The syntax is
//
//	<name>=<action>[@<trigger>][;<name>=<action>[@<trigger>]...]
//
// for example "after-enqueue=crash@nth:3;after-claim=sleep(2s)@prob:0.25".
//
// Names: after-claim (a claim transaction that took at least one event
// committed), after-enqueue (a batch's BullMQ add returned; batches with
// nothing to add do not pass it), before-finalize-commit (inside the finalize
// transaction, right before COMMIT), after-finalize-commit (the finalize
// COMMIT returned). Each batch passes each point at most once, so nth:<N>
// counts batches.
//
// Actions: crash prints exactly one line "failpoint <name>: crash" to stderr,
// then sends SIGKILL to the own process, so no deferred cleanup runs, exactly
// as when the harness kills it. sleep(<Go duration>) pauses the calling
// goroutine for that long; the pause is not interruptible, like a stalled
// process.
//
// Triggers: always (the default) fires on every hit; nth:<N> fires on the Nth
// hit only (1-based); prob:<p> with 0 < p <= 1 fires on each hit with
// probability p, drawn from one random source seeded by the seed given to
// Parse (OUTBOX_FAILPOINT_SEED, default 1), so a run is replayable when the
// hits come in the same order.
//
// Unknown names, actions and triggers, a malformed entry and a name given
// twice are errors that say what to fix.
package failpoint

import (
	"fmt"
	"io"
	"math/rand"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/contract"
)

// Name is a crash point of the reference dispatcher: one of the contract's.
type Name = contract.CrashPoint

// The crash points, in the order a batch passes them.
const (
	AfterClaim           = contract.AfterClaim
	AfterEnqueue         = contract.AfterEnqueue
	BeforeFinalizeCommit = contract.BeforeFinalizeCommit
	AfterFinalizeCommit  = contract.AfterFinalizeCommit
)

// Names lists every crash point, in the order a batch passes them.
func Names() []Name { return contract.CrashPoints() }

// Runtime is how a failpoint acts on the process. Tests replace Kill and
// Sleep; the zero value of each field means the real thing.
type Runtime struct {
	// Stderr receives the crash line; nil means os.Stderr.
	Stderr io.Writer
	// Kill ends the process; nil sends SIGKILL to the own process.
	Kill func()
	// Sleep pauses; nil means time.Sleep.
	Sleep func(time.Duration)
}

// Set is a parsed specification. A nil *Set has no failpoints: Hit on it does
// nothing, so callers never check whether failpoints are enabled.
type Set struct {
	mu      sync.Mutex
	rnd     *rand.Rand
	entries map[Name]*entry
	rt      Runtime
}

// Parse reads a specification (see the package documentation). An empty or
// blank spec gives a nil Set: no failpoints. seed seeds the prob triggers.
func Parse(spec string, seed int64) (*Set, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, nil
	}
	s := &Set{rnd: rand.New(rand.NewSource(seed)), entries: map[Name]*entry{}}
	for _, raw := range strings.Split(spec, ";") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue // tolerate a trailing or doubled ';'
		}
		e, err := parseEntry(raw)
		if err != nil {
			return nil, err
		}
		if _, dup := s.entries[e.name]; dup {
			return nil, fmt.Errorf("failpoint %q is given twice; keep one entry per name", e.name)
		}
		s.entries[e.name] = e
	}
	if len(s.entries) == 0 {
		return nil, fmt.Errorf("failpoint spec %q has no entries; use <name>=<action>[@<trigger>]", spec)
	}
	return s, nil
}

// WithRuntime replaces how the failpoints act (for tests) and returns s.
func (s *Set) WithRuntime(rt Runtime) *Set {
	if s != nil {
		s.mu.Lock()
		s.rt = rt
		s.mu.Unlock()
	}
	return s
}

// Enabled lists the configured failpoint names, sorted.
func (s *Set) Enabled() []Name {
	if s == nil {
		return nil
	}
	var out []Name
	for n := range s.entries {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Hit passes the crash point name. When its trigger fires, the action runs:
// a crash never returns, a sleep returns after the pause. Hit reports
// whether the failpoint fired.
func (s *Set) Hit(name Name) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	e, ok := s.entries[name]
	fire := ok && e.trigger.fires(e.countHit(), s.rnd)
	rt := s.rt
	s.mu.Unlock()
	if !fire {
		return false
	}
	e.action.run(name, rt)
	return true
}

// run performs the action with the runtime rt.
func (a action) run(name Name, rt Runtime) {
	switch a.kind {
	case actionCrash:
		w := rt.Stderr
		if w == nil {
			w = os.Stderr
		}
		fmt.Fprintf(w, "failpoint %s: crash\n", name)
		if rt.Kill != nil {
			rt.Kill()
			return
		}
		killSelf()
	case actionSleep:
		if rt.Sleep != nil {
			rt.Sleep(a.sleep)
			return
		}
		time.Sleep(a.sleep)
	}
}

// killSelf sends SIGKILL to the own process and never returns.
func killSelf() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // SIGKILL is delivered asynchronously; never run on.
}
