package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Slack allowed when comparing times.
const (
	// ClockSlack is allowed between the database clock and the harness clock.
	ClockSlack = 250 * time.Millisecond
	// DBSlack is allowed between two database-clock times (rounding, and a
	// time computed in the application and written a moment later).
	DBSlack = 50 * time.Millisecond
)

// drainNeeded is how long a drain must last after heal for every valid event
// to be published by a correct dispatcher: a lease to run out, the longest
// backoff, two polls, and two seconds of work.
func drainNeeded(t history.Tuning) time.Duration {
	return t.Lease.D() + t.BackoffMax.D() + 2*t.PollInterval.D() + 2*time.Second
}

// drainFrom is when the drain starts for an event: the heal, or the event's
// production if it came later.
func drainFrom(run history.Run, produced time.Time) time.Time {
	from := run.Meta.Healed
	if from.IsZero() {
		from = run.Meta.Started
	}
	if produced.After(from) {
		from = produced
	}
	return from
}

// drainAdequate tells whether the run's drain gave an event produced at the
// given time enough time to reach its end state.
func drainAdequate(run history.Run, produced time.Time) bool {
	end := runEnd(run)
	if end.IsZero() {
		return false
	}
	return end.Sub(drainFrom(run, produced)) >= drainNeeded(run.Meta.Tuning)
}

// runEnd is the harness time the run ended: the drain's end, else the final
// scan's time.
func runEnd(run history.Run) time.Time {
	if !run.Meta.Ended.IsZero() {
		return run.Meta.Ended
	}
	return run.Final.At
}

// recoveryBound is how long after a lease ran out a correct dispatcher takes
// the claim over: a poll interval plus max(1s, lease/2).
func recoveryBound(t history.Tuning, lease time.Duration) time.Duration {
	if t.Lease > 0 {
		lease = t.Lease.D()
	}
	margin := lease / 2
	if margin < time.Second {
		margin = time.Second
	}
	return t.PollInterval.D() + margin
}

// takeoverBound is how long after a lease ran out a dead owner's claim may
// stay unrecovered before I8 fails it: a generous bound, since the contract
// asks only that the claim be recoverable after its lease (a dispatcher may
// recover at the start of its next round, and a round under load may take a
// batch of publish timeouts). It is max(2 x lease, 2s) + 2 x poll interval +
// 2 x max(publish timeout, 1s), or the adapter's declared recovery bound when
// that is longer. The text says how it was derived.
func takeoverBound(t history.Tuning, lease time.Duration, c history.Conventions) (time.Duration, string) {
	if t.Lease > 0 {
		lease = t.Lease.D()
	}
	pt := t.PublishTimeout.D()
	if pt < time.Second {
		pt = time.Second
	}
	b := max(2*lease, 2*time.Second) + 2*t.PollInterval.D() + 2*pt
	if d := c.RecoveryBound.D(); d > b {
		return d, fmt.Sprintf("the adapter's declared recovery bound of %s", span(d))
	}
	return b, fmt.Sprintf("max(2 x lease, 2s) + 2 x poll interval + 2 x max(publish timeout, 1s) = %s, from the tuning", span(b))
}

// storeNames are the fault targets naming the outbox's database server: a
// fault on the store is on "mysql" or "postgres", or on one instance's link
// to it ("postgres/d2").
var storeNames = []string{"mysql", "postgres"}

// isStoreTarget tells whether a fault target is the store's server or one
// instance's link to it.
func isStoreTarget(target string) bool {
	dep, _, _ := strings.Cut(target, "/")
	return slices.Contains(storeNames, dep)
}

// isStoreLinkOf tells whether target is the store's server or inst's own
// link to it.
func isStoreLinkOf(target, inst string) bool {
	dep, link, linked := strings.Cut(target, "/")
	return slices.Contains(storeNames, dep) && (!linked || link == inst)
}

// overlaps tells whether fault f's window meets [from, to]. A fault with no
// end is taken as lasting to the end of time.
func overlaps(f history.Fault, from, to time.Time) bool {
	if f.Start.After(to) {
		return false
	}
	return f.End.IsZero() || !f.End.Before(from)
}

// leaseStep and backoffStep are the steps of the outbox's lease and backoff
// columns as the run read them from the server (history.Model.Granularity;
// zero for microseconds): a time read back from such a column may lie up to
// a step before (cut) or half a step after (rounded) the one the
// dispatcher wrote, so every comparison with it allows a step.
func leaseStep(run history.Run) time.Duration {
	return run.Meta.Model.Granularity(history.ColumnLockedUntil)
}

func backoffStep(run history.Run) time.Duration {
	return run.Meta.Model.Granularity(history.ColumnAvailableAt)
}

// withSteps adds to r's reason, when it passed or failed, which of columns
// keep less than microseconds on the run's server and the step each
// comparison with them allowed.
func withSteps(r Result, run history.Run, columns ...string) Result {
	if r.Verdict != Pass && r.Verdict != Fail {
		return r
	}
	var parts []string
	for _, c := range columns {
		if g := run.Meta.Model.Granularity(c); g > 0 {
			parts = append(parts, fmt.Sprintf("%s keeps steps of %s", c, g))
		}
	}
	if len(parts) > 0 {
		r.Reason += " (" + strings.Join(parts, ", ") + " on this server: each comparison with it allowed one step)"
	}
	return r
}

// storeDelay is the extra delay the store's latency faults add around t:
// the sum of the "latency" and "jitter" parameters (Go durations, or
// milliseconds) of every fault on the store whose window contains t. A time a dispatcher computes in
// the application reaches the database that much later.
func storeDelay(run history.Run, t time.Time) time.Duration {
	return storeDelayDuring(run, t, t)
}

// storeDelayDuring is storeDelay over [from, to]: the sum for every store
// fault whose window meets it, widened by ClockSlack.
func storeDelayDuring(run history.Run, from, to time.Time) time.Duration {
	var d time.Duration
	for _, f := range run.Faults {
		if !isStoreTarget(f.Target) || !overlaps(f, from.Add(-ClockSlack), to.Add(ClockSlack)) {
			continue
		}
		d += paramDuration(f.Params["latency"]) + paramDuration(f.Params["jitter"])
	}
	return d
}

// paramDuration reads a fault parameter as a duration: Go syntax, or a plain
// number of milliseconds. Anything else reads as zero.
func paramDuration(s string) time.Duration {
	if s == "" {
		return 0
	}
	if d, err := time.ParseDuration(s); err == nil {
		return d
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(n * float64(time.Millisecond))
	}
	return 0
}

// clock renders a time for a sentence or a step.
func clock(t time.Time) string {
	if t.IsZero() {
		return "(no time)"
	}
	return t.UTC().Format("15:04:05.000")
}

// span renders a duration rounded to the millisecond.
func span(d time.Duration) string { return d.Round(time.Millisecond).String() }
