package check

import (
	"sort"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// procState is what a dispatcher instance could do at a moment.
type procState int

const (
	procDead     procState = iota // not started yet, killed or exited
	procRunning                   // started, or continued after a pause
	procPaused                    // SIGSTOP
	procStopping                  // SIGTERM: finishes what it holds, claims nothing new
)

// liveness answers, from the process events and fault windows (harness
// clock), which instances could claim work at a moment.
type liveness struct {
	procs  map[string][]history.ProcessEvent
	faults []history.Fault
}

func newLiveness(run history.Run) liveness {
	lv := liveness{procs: map[string][]history.ProcessEvent{}, faults: run.Faults}
	for _, p := range run.Processes {
		lv.procs[p.Instance] = append(lv.procs[p.Instance], p)
	}
	for _, ps := range lv.procs {
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].At.Before(ps[j].At) })
	}
	return lv
}

// known tells whether any process event was recorded at all.
func (lv liveness) known() bool { return len(lv.procs) > 0 }

// state is the instance's state at t: the effect of its last process event at
// or before t. A crashpoint event changes nothing by itself (the exit or kill
// that follows it does).
func (lv liveness) state(inst string, t time.Time) procState {
	st := procDead
	for _, p := range lv.procs[inst] {
		if p.At.After(t) {
			break
		}
		switch p.Action {
		case "start", "cont", "restart":
			st = procRunning
		case "stop":
			st = procPaused
		case "term":
			st = procStopping
		case "kill", "exit":
			st = procDead
		}
	}
	return st
}

// cutsStore tells whether a fault of this kind on the store stops an
// instance's database work. Latency, jitter, bandwidth and slicer faults slow
// statements down but let every one finish: they are no cut (the recovery
// deadline allows for latency instead). Every other kind is: down,
// blackhole, reset, a server restart, a lost reply the client waits on, and
// a kind this package does not know, so an unknown fault can only excuse a
// slow recovery, never blame one.
func cutsStore(kind string) bool {
	switch kind {
	case "latency", "jitter", "bandwidth", "slicer":
		return false
	}
	return true
}

// storeCut tells whether a store fault cuts instance inst off at t: a fault
// that cuts (cutsStore) on the server ("mysql") or on the instance's own link
// ("mysql/<inst>").
func (lv liveness) storeCut(inst string, t time.Time) bool {
	for _, f := range lv.faults {
		if !isStoreLinkOf(f.Target, inst) || !cutsStore(f.Kind) {
			continue
		}
		if !f.Start.After(t) && (f.End.IsZero() || t.Before(f.End)) {
			return true
		}
	}
	return false
}

// instanceOf is the instance of slot that was started last by t, or, when
// none was, by t plus ClockSlack (a write on the database clock, starts on
// the harness's); "" when none was.
func (lv liveness) instanceOf(slot string, t time.Time) string {
	if inst := lv.startedBy(slot, t); inst != "" {
		return inst
	}
	return lv.startedBy(slot, t.Add(ClockSlack))
}

// startedBy is the instance of slot started last at or before t.
func (lv liveness) startedBy(slot string, t time.Time) string {
	best, at := "", time.Time{}
	for inst, ps := range lv.procs {
		if slotOf(inst) != slot {
			continue
		}
		for _, p := range ps {
			if p.Action == "start" && !p.At.After(t) && p.At.After(at) {
				best, at = inst, p.At
			}
		}
	}
	return best
}

// able tells whether inst could claim work at t: running, and not cut off
// from the store.
func (lv liveness) able(inst string, t time.Time) bool {
	return lv.state(inst, t) == procRunning && !lv.storeCut(inst, t)
}

// othersAble tells whether some instance other than except was able at t.
func (lv liveness) othersAble(t time.Time, except string) bool {
	for inst := range lv.procs {
		if inst != except && lv.able(inst, t) {
			return true
		}
	}
	return false
}

// stretch is a period of time; a zero To means it never ends.
type stretch struct{ From, To time.Time }

// unableStretches lists, in time order, the stretches from from on in which no
// instance other than except was able. The last one has a zero To when
// nobody became able again.
func (lv liveness) unableStretches(from time.Time, except string) []stretch {
	var out []stretch
	open := false
	for _, t := range lv.changePoints(from, farFuture) {
		able := lv.othersAble(t, except)
		switch {
		case !able && !open:
			out, open = append(out, stretch{From: t}), true
		case able && open:
			out[len(out)-1].To, open = t, false
		}
	}
	return out
}

// recoveryDue is the moment by which the instances other than except had
// been able, together, for need since from: when a recovery of a claim
// whose lease ran out at from is owed. Stretches in which none was able do
// not count, widened by ClockSlack on each side (from is on the database
// clock, process events on the harness clock). ok is false when that moment
// never comes: from some point on none was able.
func (lv liveness) recoveryDue(from time.Time, need time.Duration, except string) (time.Time, bool) {
	t := from
	for _, s := range lv.unableStretches(from.Add(-ClockSlack), except) {
		start := s.From.Add(-ClockSlack)
		if !s.To.IsZero() && !s.To.Add(ClockSlack).After(t) {
			continue
		}
		if start.After(t) {
			if start.Sub(t) >= need {
				return t.Add(need), true
			}
			need -= start.Sub(t)
		}
		if s.To.IsZero() {
			return time.Time{}, false
		}
		t = s.To.Add(ClockSlack)
	}
	return t.Add(need), true
}

// farFuture bounds an open-ended walk over change points.
var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// changePoints lists from and every process event or fault edge in (from, to].
func (lv liveness) changePoints(from, to time.Time) []time.Time {
	pts := []time.Time{from}
	add := func(t time.Time) {
		if t.After(from) && !t.After(to) {
			pts = append(pts, t)
		}
	}
	for _, ps := range lv.procs {
		for _, p := range ps {
			add(p.At)
		}
	}
	for _, f := range lv.faults {
		add(f.Start)
		if !f.End.IsZero() {
			add(f.End)
		}
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].Before(pts[j]) })
	return pts
}

// runningThroughout tells whether inst was running (not paused, stopping or
// dead) at every moment of [from, to].
func (lv liveness) runningThroughout(inst string, from, to time.Time) bool {
	for _, t := range lv.changePoints(from, to) {
		if lv.state(inst, t) != procRunning {
			return false
		}
	}
	return true
}

// storeCutDuring tells whether a store fault cut inst off at some moment of
// [from, to].
func (lv liveness) storeCutDuring(inst string, from, to time.Time) bool {
	for _, t := range lv.changePoints(from, to) {
		if lv.storeCut(inst, t) {
			return true
		}
	}
	return false
}

// slotInstance names slot's instance at t: the one of its instances (the
// supervisor names them slot, slotr1, slotr2, ...; a slot has one live
// instance at a time) started last at or before t, or the slot itself when
// no start was recorded.
func (lv liveness) slotInstance(slot string, t time.Time) string {
	best, bestAt := slot, time.Time{}
	for inst, ps := range lv.procs {
		if !ofSlot(inst, slot) {
			continue
		}
		for _, p := range ps {
			if p.Action == "start" && !p.At.After(t) && p.At.After(bestAt) {
				best, bestAt = inst, p.At
			}
		}
	}
	return best
}

// ofSlot tells whether inst is one of slot's instances: slot itself or a
// restart, slot + "r" + a number.
func ofSlot(inst, slot string) bool {
	rest, ok := strings.CutPrefix(inst, slot)
	if !ok || rest == "" {
		return ok
	}
	n, ok := strings.CutPrefix(rest, "r")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}
