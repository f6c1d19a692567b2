package check

import (
	"sort"
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

// mysqlCut tells whether a MySQL fault cuts instance inst off at t: a fault on
// the server ("mysql") or on the instance's own link ("mysql/<inst>").
func (lv liveness) mysqlCut(inst string, t time.Time) bool {
	for _, f := range lv.faults {
		if f.Target != "mysql" && f.Target != "mysql/"+inst {
			continue
		}
		if !f.Start.After(t) && (f.End.IsZero() || t.Before(f.End)) {
			return true
		}
	}
	return false
}

// able tells whether inst could claim work at t: running, and not cut off
// from MySQL.
func (lv liveness) able(inst string, t time.Time) bool {
	return lv.state(inst, t) == procRunning && !lv.mysqlCut(inst, t)
}

// ableAll reports whether some instance other than those in except was able
// at every moment of [from, to]. It returns the first moment none was.
func (lv liveness) ableAll(from, to time.Time, except ...string) (time.Time, bool) {
	skip := map[string]bool{}
	for _, e := range except {
		skip[e] = true
	}
	for _, t := range lv.changePoints(from, to) {
		ok := false
		for inst := range lv.procs {
			if !skip[inst] && lv.able(inst, t) {
				ok = true
				break
			}
		}
		if !ok {
			return t, false
		}
	}
	return time.Time{}, true
}

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

// mysqlCutDuring tells whether a MySQL fault cut inst off at some moment of
// [from, to].
func (lv liveness) mysqlCutDuring(inst string, from, to time.Time) bool {
	for _, t := range lv.changePoints(from, to) {
		if lv.mysqlCut(inst, t) {
			return true
		}
	}
	return false
}
