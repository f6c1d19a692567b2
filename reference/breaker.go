package reference

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// The dependencies the dispatcher guards with a breaker: the label of the
// outbox_dependency_* series and the key of /healthz's "dependencies".
const (
	depRedis = "redis"
	depMySQL = "mysql"
)

// breakerState is a breaker's state (doc.go, "Dependency health").
type breakerState int32

const (
	stateClosed   breakerState = iota // the dependency answers: work as usual
	stateHalfOpen                     // a probe answered: work resumes; the next answer closes, no answer reopens
	stateOpen                         // the dependency answered nothing: no claims, probes with backoff
)

// String returns "closed", "half-open" or "open".
func (s breakerState) String() string {
	switch s {
	case stateClosed:
		return "closed"
	case stateHalfOpen:
		return "half-open"
	default:
		return "open"
	}
}

// Probe backoff: the first probe comes probeBase after the breaker opens
// (or the poll interval, if longer); each probe that gets no answer doubles
// the wait, up to probeCap.
const (
	probeBase = 100 * time.Millisecond
	probeCap  = 5 * time.Second
)

// breaker tracks whether one dependency answers. The hot path (allows,
// answered while closed) is one atomic load; everything else takes the
// mutex, and happens only around an outage.
type breaker struct {
	dep   string
	state atomic.Int32 // a breakerState
	m     *metrics
	log   *slog.Logger
	now   func() time.Time

	mu        sync.Mutex
	reason    string        // the error that opened it
	since     time.Time     // when the current state began
	accounted time.Time     // open time is counted up to here
	wait      time.Duration // the current probe backoff
	nextProbe time.Time
	base      time.Duration
}

func newBreaker(dep string, pollInterval time.Duration, m *metrics, log *slog.Logger, now func() time.Time) *breaker {
	b := &breaker{dep: dep, m: m, log: log, now: now, base: max(probeBase, pollInterval), since: now()}
	m.breakerState.WithLabelValues(dep).Set(float64(stateClosed))
	m.openSeconds.WithLabelValues(dep).Add(0)
	for _, r := range []string{probeAnswered, probeNoAnswer} {
		m.probes.WithLabelValues(dep, r).Add(0)
	}
	return b
}

// allows tells whether work that needs the dependency may start: not while
// the breaker is open.
func (b *breaker) allows() bool { return breakerState(b.state.Load()) != stateOpen }

// answered records that the dependency answered (a reply, even an error
// reply about one event). A half-open breaker closes; a closed one costs
// one atomic load.
func (b *breaker) answered() {
	if breakerState(b.state.Load()) != stateHalfOpen {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if breakerState(b.state.Load()) != stateHalfOpen {
		return
	}
	b.accountLocked()
	b.setLocked(stateClosed, "")
	b.wait = 0
}

// noAnswer records that the dependency answered nothing and opens the
// breaker. It reports whether this call opened it (it was not open yet).
// After a half-open breaker reopens, the probe backoff keeps growing.
func (b *breaker) noAnswer(err error) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	prev := breakerState(b.state.Load())
	if prev == stateOpen {
		return false
	}
	b.wait = b.nextWait(prev)
	b.setLocked(stateOpen, oneLine(err.Error()))
	b.accounted = b.since
	b.nextProbe = b.since.Add(b.wait)
	return true
}

// nextWait is the probe backoff after an open from prev.
func (b *breaker) nextWait(prev breakerState) time.Duration {
	if prev == stateHalfOpen && b.wait > 0 {
		return min(2*b.wait, max(probeCap, b.base))
	}
	return b.base
}

// probeDue tells whether an open breaker's next probe is due, and counts
// the time spent open so far.
func (b *breaker) probeDue() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.accountLocked()
	return breakerState(b.state.Load()) == stateOpen && !b.now().Before(b.nextProbe)
}

// probed records a probe's result: an answer makes the breaker half-open;
// no answer keeps it open and doubles the wait, up to the cap.
func (b *breaker) probed(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		b.m.probes.WithLabelValues(b.dep, probeNoAnswer).Inc()
		b.wait = min(2*b.wait, max(probeCap, b.base))
		b.nextProbe = b.now().Add(b.wait)
		b.reason = oneLine(err.Error())
		return
	}
	b.m.probes.WithLabelValues(b.dep, probeAnswered).Inc()
	b.accountLocked()
	b.setLocked(stateHalfOpen, b.reason)
}

// accountLocked adds the time spent open since the last accounting to
// outbox_dependency_open_seconds_total.
func (b *breaker) accountLocked() {
	if breakerState(b.state.Load()) != stateOpen {
		return
	}
	now := b.now()
	b.m.openSeconds.WithLabelValues(b.dep).Add(now.Sub(b.accounted).Seconds())
	b.accounted = now
}

func (b *breaker) setLocked(s breakerState, reason string) {
	from := breakerState(b.state.Load())
	b.log.Log(context.Background(), levelOf(s), b.dep+" breaker "+s.String(), "dependency", b.dep,
		"from", from.String(), "reason", reason, "next_probe_in", b.wait.String())
	b.state.Store(int32(s))
	b.reason = reason
	b.since = b.now()
	b.m.breakerState.WithLabelValues(b.dep).Set(float64(s))
}

// levelOf is the log level of a move to s: opening is a warning.
func levelOf(s breakerState) slog.Level {
	if s == stateOpen {
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// breakerStatus is what /healthz shows of one breaker.
type breakerStatus struct {
	State  string    `json:"state"`
	Reason string    `json:"reason,omitempty"`
	Since  time.Time `json:"since"`
}

func (b *breaker) status() breakerStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	return breakerStatus{State: breakerState(b.state.Load()).String(), Reason: b.reason, Since: b.since.UTC()}
}
