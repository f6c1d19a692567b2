package check

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Landing is one landing requirement judged on a run: how many times its
// fault landed where it matters, against how many were needed.
type Landing struct {
	Fault   string `json:"fault"`
	Target  string `json:"target,omitempty"`
	Needed  int    `json:"needed"`
	Planned int    `json:"planned,omitempty"`
	Landed  int    `json:"landed"`
	Met     bool   `json:"met"`
	Reason  string `json:"reason"` // "2 of 8 planned kills fell inside ...; 6 needed"
}

// CheckLanding judges every requirement of run.Meta.Landing from the
// recorded history alone: process events (kills, exits, stops, crash
// points), fault windows and their counts (what the harness itself did),
// outbox transitions (claims, leases, finalizes) and job creations seen in
// Redis (and, for a window trap, the moment the Redis observer signalled the
// job's creation to it, recorded with the fault). It never reads a trap's
// or a dispatcher's own claim of success.
func CheckLanding(run history.Run) []Landing {
	if len(run.Meta.Landing) == 0 {
		return nil
	}
	ix := newIndex(run)
	out := make([]Landing, 0, len(run.Meta.Landing))
	for _, req := range run.Meta.Landing {
		out = append(out, judgeLanding(ix, req))
	}
	return out
}

func (l Landing) String() string { return l.Fault + ": " + l.Reason }

// Unlanded lists the requirements that were not met, in their order.
func Unlanded(landing []Landing) []Landing {
	var out []Landing
	for _, l := range landing {
		if !l.Met {
			out = append(out, l)
		}
	}
	return out
}

// Decide folds invariant results and landing requirements into the run's
// verdict and the reason it is not a pass: a proven violation fails the run
// (Fold); otherwise a requirement not met makes it unknown (the fault it is
// about did not happen, so a pass would mean nothing); otherwise Fold's
// verdict, which is unknown when nothing was checked or an invariant the
// scenario exercises had nothing to check.
func Decide(results []Result, exercises []string, landing []Landing) (Verdict, string) {
	v, reason := Fold(results, exercises)
	if v == Fail {
		return v, reason
	}
	var missed []string
	for _, l := range Unlanded(landing) {
		missed = append(missed, l.Fault+" did not land: "+l.Reason)
	}
	if len(missed) == 0 {
		return v, reason
	}
	if reason != "" {
		missed = append(missed, reason)
	}
	return Unknown, strings.Join(missed, "; ")
}

// landingNoun words each requirement's count: one, many, and where.
var landingNoun = map[string][3]string{
	history.LandCrashWindow:   {"kill", "kills", "fell inside an add->finalize window"},
	history.LandZombie:        {"pause", "pauses", "held a claim past its lease with the add done and the finalize not written"},
	history.LandDeadOwner:     {"claim", "claims", "of dead owners expired unfinished"},
	history.LandFinalizeHeld:  {"finalize", "finalizes", "held open (its COMMIT held back) well past its lease end, or ended by its database before it"},
	history.LandLostReply:     {"reply", "replies", "dropped after the request ran"},
	history.LandOutageFailed:  {"event", "events", "met a transient failure inside the outage"},
	history.LandOutageStalled: {"event", "events", "failed or waited inside the outage"},
	history.LandQueueError:    {"add", "adds", "answered with the broken queue's error"},
	history.LandClockSkew:     {"claim", "claims", "made by an instance while its clock was skewed"},
	history.LandOrderRetry:    {"event", "events", "met a transient failure with a later event of its aggregate committed"},
	history.LandCommitGap:     {"event", "events", "committed after a higher id was claimed"},
	history.LandSQLError:      {"statement", "statements", "answered with a deadlock or lock wait timeout"},
	history.LandServerState:   {"write", "writes", "answered with a server state's error (READONLY, LOADING, OOM)"},
	history.LandStoreReadOnly: {"write", "writes", "answered with the store's read-only error (MySQL 1290, PostgreSQL 25006)"},
	history.LandHalfOpen:      {"half-open link", "half-open links", "held an instance's statement or command while a claim of it ran out its lease and another instance took that claim over"},
	history.LandZoneLease:     {"claim", "claims", "wrote a lease end while the server's time zone and the instances' differed"},
	history.LandZoneBackoff:   {"transient failure", "transient failures", "wrote a backoff while the server's time zone and the instances' differed"},
	history.LandFailureWrite:  {"failure-write kind", "failure-write kinds", "with an event that ended failed while last_error was narrowed below the quoted field"},
	history.LandWholeSeconds:  {"lease end or backoff", "lease ends and backoffs", "written into a column the run had altered to whole seconds"},
	history.LandLostAdds:      {"acknowledged add", "acknowledged adds", "lost by Redis: created while its append-only file was off, gone once it restarted"},
}

func judgeLanding(ix *index, req history.Requirement) Landing {
	l := Landing{Fault: req.Fault, Target: req.Target, Needed: req.AtLeast, Planned: req.Planned}
	noun, ok := landingNoun[req.Fault]
	if !ok {
		l.Reason = fmt.Sprintf("requirement %q is not known to this build: it cannot be judged", req.Fault)
		return l
	}
	l.Landed = countLanded(ix, req)
	l.Met = l.Landed >= req.AtLeast
	if req.Fault == history.LandHalfOpen && !ix.run.Meta.Model.Has(history.LackLeases) {
		noun[2] = "held an instance's statement or command (the outbox has no leases to run out)"
	}
	word := noun[1]
	if req.Planned > 0 {
		l.Reason = fmt.Sprintf("%d of %d planned %s %s", l.Landed, req.Planned, word, noun[2])
	} else {
		if l.Landed == 1 {
			word = noun[0]
		}
		l.Reason = fmt.Sprintf("%d %s %s", l.Landed, word, noun[2])
	}
	if req.Target != "" {
		l.Reason += " (" + req.Target + ")"
	}
	if req.Fault == history.LandZoneLease || req.Fault == history.LandZoneBackoff {
		l.Reason += " (" + zonesNote(ix.run.Meta.Zones) + ")"
	}
	l.Reason += fmt.Sprintf("; %d needed", req.AtLeast)
	return l
}

func countLanded(ix *index, req history.Requirement) int {
	switch req.Fault {
	case history.LandCrashWindow:
		return ix.crashWindowKills()
	case history.LandZombie:
		return ix.zombiePauses()
	case history.LandDeadOwner:
		return ix.deadOwnerClaims()
	case history.LandFinalizeHeld:
		return ix.heldFinalizes()
	case history.LandLostReply:
		return sumFaultParam(ix.run, func(k string) bool { return strings.HasPrefix(k, "lost-reply") }, "fired")
	case history.LandOutageFailed:
		return ix.outageEvents(req.Target, false)
	case history.LandOutageStalled:
		return ix.outageEvents(req.Target, true)
	case history.LandQueueError:
		return sumFaultParam(ix.run, func(k string) bool { return k == "queue-error" }, "answered")
	case history.LandClockSkew:
		return ix.skewedClaims()
	case history.LandOrderRetry:
		return ix.retriedBeforeLater()
	case history.LandCommitGap:
		return ix.commitGaps()
	case history.LandSQLError:
		return sumFaultParam(ix.run, func(k string) bool { return k == "sql-error" }, "answered")
	case history.LandZoneLease:
		return ix.zoneWrites(func(h hold) bool { return h.Until != nil }, nil)
	case history.LandZoneBackoff:
		return ix.zoneWrites(nil, func(m move) bool { return m == moveFailure })
	case history.LandServerState:
		return sumFaultParam(ix.run, func(k string) bool { return k == "redis-state" }, "answered") + ix.redisOOMRefusals()
	case history.LandStoreReadOnly:
		return sumFaultParam(ix.run, func(k string) bool { return k == "sql-read-only" }, "answered") + ix.serverReadOnlyRefusals()
	case history.LandHalfOpen:
		return ix.halfOpenTakeovers()
	case history.LandFailureWrite:
		return ix.failureWriteKinds()
	case history.LandWholeSeconds:
		return ix.wholeSecondWrites()
	case history.LandLostAdds:
		return ix.lostAcknowledged()
	}
	return 0
}

// crashWindowKills counts deaths of an instance that held a claim whose job
// was created in Redis before the death and whose finalize was not yet
// written: the window of contract step 8. An outbox without claims (a
// cursor) holds nothing to see: its deaths are judged by cutPublishes.
func (ix *index) crashWindowKills() int {
	if !ix.run.Meta.Model.Has(history.LackClaims) {
		return ix.cutPublishes()
	}
	n := 0
	for _, d := range deaths(ix.run) {
		if ix.anyHold(d.Instance, func(h hold) bool {
			return openAt(h, d.At) && (ix.createdBy(h.Event, d.At) || ix.trapSaw(h.Event, d.At))
		}) {
			n++
		}
	}
	return n
}

// cutPublishes counts, for an outbox without claims (a cursor relay), the
// deaths that cut a publish before the outbox recorded it: an event's
// message was published at or before the death (a creation, a window
// trap's sighting of one, or a "duplicated" add in the events stream),
// the outbox did not say it published by then (the cursor had not passed
// it), and the message was published again after the death: the round
// that published it never recorded it, and another round published it
// again. A publish is cut once: after a death that counted it, the event
// counts again only for a later death that a later publish of it preceded
// (a round that published the batch again and was cut in turn). A death
// counts when it cut at least one publish.
func (ix *index) cutPublishes() int {
	ds := deaths(ix.run)
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].At.Before(ds[j].At) })
	cut := map[int]bool{}
	for _, e := range ix.events {
		var after time.Time // the last death that cut a publish of e
		for i, d := range ds {
			if !ix.publishedIn(e, after, d.At) {
				continue
			}
			if ix.settledBy(e.ID, d.At) || !ix.republishedAfter(e.JobID, d.At) {
				break
			}
			cut[i] = true
			after = d.At
		}
	}
	return len(cut)
}

// publishedIn tells whether event e's message was published in (from, to]:
// created, seen by a window trap (from the start only), or added again as
// a "duplicated" add.
func (ix *index) publishedIn(e history.Event, from, to time.Time) bool {
	in := func(t time.Time) bool { return t.After(from) && !t.After(to) }
	for _, c := range ix.creations.byJob[e.JobID] {
		if in(c.At) {
			return true
		}
	}
	for _, s := range ix.streamOf[e.JobID] {
		if s.Event == "duplicated" && in(s.At) {
			return true
		}
	}
	return from.IsZero() && ix.trapSaw(e.ID, to)
}

// republishedAfter tells whether the sink shows job's message published
// after t: a creation of it, or a "duplicated" add (BullMQ kept the job and
// dropped the add) in the events stream.
func (ix *index) republishedAfter(job string, t time.Time) bool {
	for _, c := range ix.creations.byJob[job] {
		if c.At.After(t) {
			return true
		}
	}
	for _, s := range ix.streamOf[job] {
		if s.Event == "duplicated" && s.At.After(t) {
			return true
		}
	}
	return false
}

// zombiePauses counts pauses during which the lease of a claim the paused
// instance held ran out, the job already created and the finalize not yet
// written when it did.
func (ix *index) zombiePauses() int {
	n := 0
	for _, p := range pauses(ix.run) {
		if ix.anyHold(p.Instance, func(h hold) bool {
			if h.Until == nil || h.Until.Before(p.From) || h.Until.After(p.To) {
				return false
			}
			return (h.End == nil || !h.End.At.Before(*h.Until)) && ix.createdBy(h.Event, *h.Until)
		}) {
			n++
		}
	}
	return n
}

// halfOpenTakeovers counts half-open faults on one instance's own link
// ("<store>/<inst>" or "redis/<inst>") that held something on it (their
// held or handshakes count, the toxics' own) and during which a claim of
// that instance ran out its lease unfinished and was taken over by another
// instance before the fault ended (takenOverInside). For an outbox without
// leases (a cursor) a fault that held something counts: nothing of the
// instance can run out, so the takeover cannot be asked for, and what the
// scenario still exercises (I1, I2, I3 under a stuck link) needs only that
// the link held the instance.
func (ix *index) halfOpenTakeovers() int {
	leaseless := !ix.run.Meta.Model.Has(history.LackLeases)
	n := 0
	for _, f := range ix.run.Faults {
		dep, inst, linked := strings.Cut(f.Target, "/")
		if f.Kind != "half-open" || !linked || inst == "" || faultCount(f, "held")+faultCount(f, "handshakes") == 0 {
			continue
		}
		if leaseless {
			n++ // no lease can run out: holding something is all it can do
			continue
		}
		end := faultEnd(ix.run, f)
		store := dep != "redis"
		if ix.anyHold(inst, func(h hold) bool { return ix.takenOverInside(h, f.Start, end, store) }) {
			n++
		}
	}
	return n
}

// takenOverInside tells whether claim h's lease ran out between from and to
// with the claim unfinished, and another instance took it over or recovered
// it (at or after the lease end) by to, widened by ClockSlack (the lease and
// the write are on the database clock, the fault on the harness's). Another
// instance: a takeover under another owner, or a write recorded as another
// slot's; a recovery whose writer was not recorded counts only when the
// owner was cut off from the store (cutOff), since it could not write it.
func (ix *index) takenOverInside(h hold, from, to time.Time, cutOff bool) bool {
	if h.Until == nil || h.Until.Before(from) || h.Until.After(to) || h.End == nil || !endedByRecovery(h, leaseStep(ix.run)) {
		return false
	}
	if h.End.At.After(to.Add(ClockSlack)) {
		return false
	}
	if h.EndMove == moveTakeover && h.End.LockedBy != "" && h.End.LockedBy != h.Owner {
		return true
	}
	if w := slotWriter(*h.End); w != "" {
		return w != slotOf(h.Owner)
	}
	return cutOff
}

// faultCount is a count the harness recorded on a fault, 0 when absent.
func faultCount(f history.Fault, param string) int {
	k, err := strconv.Atoi(f.Params[param])
	if err != nil || k < 0 {
		return 0
	}
	return k
}

// heldFinalizes counts finalize-trap faults (the harness held an instance's
// COMMIT from Start to End) during which a claim of that instance ended in
// its finalize and the claim's lease ran out after that finalize's statement
// and before the COMMIT went on: the finalize's row locks were held across
// the lease end. A finalize recorded after the lease end is the zombie's
// late write, not a held one. The hold counts only when it outlasted the
// lease end by heldPast: a hold released just after the lease end gave no
// recovery the chance to meet the open finalize, and a pass would say
// nothing.
//
// A hold cut (the connection ended while the COMMIT was held, so it never
// reached the server, which rolled the finalize back) counts too when it
// ended before the lease of a claim the instance held open through it
// (within ClockSlack: the proxy sees the end when the client closes its
// side, after the server ended the session): the
// dispatcher's database ended the finalize before its lease did (a
// PostgreSQL session's idle_in_transaction_session_timeout shorter than
// the lease), so no recovery can ever meet an open finalize of it, and no
// longer hold could have made one.
func (ix *index) heldFinalizes() int {
	n := 0
	past := heldPast(ix.run.Meta.Tuning)
	for _, f := range ix.run.Faults {
		if f.Kind != history.FaultFinalizeTrap {
			continue
		}
		end := faultEnd(ix.run, f)
		if f.Params["cut"] == "true" && ix.anyHold(f.Target, func(h hold) bool {
			return h.Until != nil && !h.Start.After(end) && !end.After(h.Until.Add(ClockSlack)) && (h.End == nil || h.End.At.After(end))
		}) {
			n++
			continue
		}
		if ix.anyHold(f.Target, func(h hold) bool {
			if h.End == nil || h.EndMove != moveFinalize || h.Until == nil {
				return false
			}
			at := h.End.At
			return !at.Before(f.Start) && !at.After(end) && !h.Until.Before(at) && !h.Until.Add(past).After(end)
		}) {
			n++
		}
	}
	return n
}

// heldPast is how long past its lease end a held finalize must stay open
// for a recovery to meet it: a poll interval and a quarter of the lease
// (the contract's 2 s when the run has none), room for a recovery that
// waits a margin after the lease end (the reference's is a tenth of it)
// and then has to come round in its loop. It is shorter than the recovery
// bound on purpose: a dispatcher that times its own statements out at the
// lease ends a held COMMIT about a lease after its finalize began, and
// that hold did meet the others' recovery.
func heldPast(t history.Tuning) time.Duration {
	lease := 2 * time.Second
	if t.Lease > 0 {
		lease = t.Lease.D()
	}
	return t.PollInterval.D() + lease/4
}

// deadOwnerClaims counts claims open when their owner died and not closed
// before their lease ran out.
func (ix *index) deadOwnerClaims() int {
	n := 0
	for _, d := range deaths(ix.run) {
		for _, hs := range ix.holds {
			for _, h := range hs {
				if h.Owner == d.Instance && h.Until != nil && openAt(h, d.At) && (h.End == nil || !h.End.At.Before(*h.Until)) {
					n++
				}
			}
		}
	}
	return n
}

// outageEvents counts events with a transient failure inside an outage
// (down, blackhole, or a server restart) of target, widened by the publish
// timeout and ClockSlack. With stalled it also counts events the outage
// held up: a claim held across its start that outlived its end, or an
// event produced early enough inside it to be claimed there (two polls and
// ClockSlack before its end) but first claimed after it; in an outbox
// without claims, an event produced before its start and not published
// or failed by its end.
func (ix *index) outageEvents(target string, stalled bool) int {
	hit := map[int64]bool{}
	tn := ix.run.Meta.Tuning
	tail := tn.PublishTimeout.D() + ClockSlack
	for _, f := range ix.run.Faults {
		if !outageKind(f.Kind) || !onTarget(f.Target, target) {
			continue
		}
		end := faultEnd(ix.run, f)
		for _, e := range ix.events {
			if ix.failedInside(e.ID, f.Start, end.Add(tail)) || (stalled && (ix.stalledBy(e, f.Start, end) || ix.returnedInside(e.ID, f.Start, end.Add(tail)))) {
				hit[e.ID] = true
			}
		}
	}
	return len(hit)
}

// onTarget tells whether a fault on faultTarget ("redis", "postgres",
// "mysql/d2") is on a requirement's target or one of its links. A
// requirement names the store "mysql" whichever it is (scenarios name
// their dependencies so), and its faults are on "mysql" or "postgres".
func onTarget(faultTarget, target string) bool {
	if isStoreTarget(target) {
		return isStoreTarget(faultTarget)
	}
	return faultTarget == target || strings.HasPrefix(faultTarget, target+"/")
}

func outageKind(kind string) bool {
	return kind == "down" || kind == "blackhole" || kind == "server-restart"
}

func (ix *index) failedInside(event int64, from, to time.Time) bool {
	moves := ix.moves[event]
	for i, t := range ix.outbox[event] {
		if moves[i] == moveFailure && !t.At.Before(from) && !t.At.After(to) {
			return true
		}
	}
	return false
}

func (ix *index) stalledBy(e history.Event, from, to time.Time) bool {
	if !ix.run.Meta.Model.Has(history.LackClaims) && !e.Produced.After(from) && !ix.settledBy(e.ID, to) {
		// No claims to hold across it (a cursor): an event committed
		// before the outage and still unpublished at its end waited
		// through it. No event is produced while the store is down.
		return true
	}
	hs := ix.holds[e.ID]
	for _, h := range hs {
		if !h.Start.After(from) && (h.End == nil || h.End.At.After(to)) {
			return true
		}
	}
	latest := to.Add(-2*ix.run.Meta.Tuning.PollInterval.D() - ClockSlack)
	if e.Produced.Before(from) || e.Produced.After(latest) {
		return false
	}
	// Produced inside the outage: it waited if nobody claimed it until the
	// outage ended, or if a claim taken inside did not settle it by then
	// (the dispatcher gave it back, or held it, while the dependency was
	// away).
	return len(hs) == 0 || hs[0].Start.After(to) || !ix.settledBy(e.ID, to)
}

// returnedInside tells whether a claim of the event went back to pending
// (given back, released or recovered) between from and to: the dependency's
// absence held it up, whatever its wording.
func (ix *index) returnedInside(event int64, from, to time.Time) bool {
	for _, tr := range ix.outbox[event] {
		if tr.OldStatus == history.StatusProcessing && tr.NewStatus == history.StatusPending && !tr.At.Before(from) && !tr.At.After(to) {
			return true
		}
	}
	return false
}

// settledBy tells whether the event reached published or failed at or
// before t.
func (ix *index) settledBy(event int64, t time.Time) bool {
	for _, tr := range ix.outbox[event] {
		if (tr.NewStatus == history.StatusPublished || tr.NewStatus == history.StatusFailed) && !tr.At.After(t) {
			return true
		}
	}
	return false
}

// anyHold tells whether some claim owned by instance satisfies ok.
func (ix *index) anyHold(instance string, ok func(hold) bool) bool {
	for _, hs := range ix.holds {
		for _, h := range hs {
			if h.Owner == instance && ok(h) {
				return true
			}
		}
	}
	return false
}

// openAt tells whether a claim was held at t: taken at or before it, not
// ended by then.
func openAt(h hold, t time.Time) bool {
	return !h.Start.After(t) && (h.End == nil || h.End.At.After(t))
}

// createdBy tells whether the event's job was created in Redis at or
// before t.
func (ix *index) createdBy(event int64, t time.Time) bool {
	e, ok := ix.eventByID[event]
	if !ok {
		return false
	}
	for _, c := range ix.creations.byJob[e.JobID] {
		if !c.At.After(t) {
			return true
		}
	}
	return false
}

// trapSaw reports a window trap that saw event's job created at or before
// t: its "seen" param is when the Redis observer signalled the creation to
// the trap, the harness's own observation. A creation known only from
// keyspace notifications (a dispatcher that writes no events stream) can
// be recorded later than that when the observer lags under load.
func (ix *index) trapSaw(event int64, t time.Time) bool {
	e, ok := ix.eventByID[event]
	if !ok {
		return false
	}
	for _, f := range ix.run.Faults {
		if f.Kind != history.FaultWindowTrap || f.Params["job"] != e.JobID {
			continue
		}
		if seen, err := time.Parse(time.RFC3339Nano, f.Params[history.TrapSeen]); err == nil && !seen.After(t) {
			return true
		}
	}
	return false
}

// death is an instance's end that was not a graceful stop.
type death struct {
	Instance string
	At       time.Time
}

// deaths lists, per instance, its SIGKILL, or else its exit when no SIGTERM
// asked for it, between the start of the run and the heal (the harness's
// own stop after the drain is not a fault).
func deaths(run history.Run) []death {
	termed := map[string]bool{}
	dead := map[string]bool{}
	var out []death
	for _, p := range run.Processes {
		if !run.Meta.Healed.IsZero() && p.At.After(run.Meta.Healed) {
			break
		}
		switch p.Action {
		case "term":
			termed[p.Instance] = true
		case "kill", "exit":
			if dead[p.Instance] || (p.Action == "exit" && termed[p.Instance]) {
				continue
			}
			dead[p.Instance] = true
			out = append(out, death{Instance: p.Instance, At: p.At})
		}
	}
	return out
}

// pause is a span during which an instance ran nothing of its own.
type pause struct {
	Instance string
	From, To time.Time
}

// pauses lists every SIGSTOP to its SIGCONT (or to the heal), and every
// pause-at fault window: a sleep at a crash point prints nothing, so the
// instance the fault started in its slot (a "start" process event of that
// slot inside the window) counts as paused for the whole window. Its lease
// can only run out unfinished there if it stalled: it is alive, and its
// heartbeats would have moved the lease on.
func pauses(run history.Run) []pause {
	var out []pause
	stopped := map[string]time.Time{}
	for _, p := range run.Processes {
		switch p.Action {
		case "stop":
			stopped[p.Instance] = p.At
		case "cont":
			if from, ok := stopped[p.Instance]; ok {
				out = append(out, pause{p.Instance, from, p.At})
				delete(stopped, p.Instance)
			}
		}
	}
	for inst, from := range stopped {
		out = append(out, pause{inst, from, runEnd(run)})
	}
	for _, f := range run.Faults {
		if f.Kind != "pause-at" {
			continue
		}
		end := faultEnd(run, f)
		for _, p := range run.Processes {
			if p.Action == "start" && p.Detail == "slot "+f.Target && !p.At.Before(f.Start) && !p.At.After(end) {
				out = append(out, pause{p.Instance, p.At, end})
			}
		}
	}
	return out
}

// faultEnd is a fault's end, or the run's end while it was still active.
func faultEnd(run history.Run, f history.Fault) time.Time {
	if f.End.IsZero() {
		return runEnd(run)
	}
	return f.End
}

// lostAcknowledged counts the adds Redis lost after the instance that sent
// one got its answer (every lost add when the run has no command log).
func (ix *index) lostAcknowledged() int {
	n := 0
	for _, l := range ix.lost {
		if l.Acknowledged || !ix.run.Meta.Commands {
			n++
		}
	}
	return n
}

// serverReadOnlyRefusals counts the store statements the server itself
// refused with 1290 (read_only) inside a store-read-only window, the span
// in which the harness held the server read-only.
func (ix *index) serverReadOnlyRefusals() int {
	return ix.serverRefusals(history.FaultStoreReadOnly, true, "1290 ")
}

// redisOOMRefusals counts the Redis commands the server itself refused
// with -OOM inside a redis-maxmemory window, the span in which the harness
// held its Redis over its memory limit.
func (ix *index) redisOOMRefusals() int {
	return ix.serverRefusals(history.FaultRedisMaxMemory, false, "OOM ")
}

// serverRefusals counts the failed commands (store statements when store,
// else Redis commands) whose error reply starts with prefix and that were
// sent inside a window of the harness's fault kind: the command log's
// failures, as the proxy saw their replies.
func (ix *index) serverRefusals(kind string, store bool, prefix string) int {
	n := 0
	for _, c := range ix.run.Commands {
		if (c.Store != "") != store || c.Outcome != history.CommandError || !strings.HasPrefix(c.Reply, prefix) {
			continue
		}
		for _, f := range ix.run.Faults {
			if f.Kind == kind && !c.Sent.Before(f.Start) && (f.End.IsZero() || !c.Sent.After(f.End)) {
				n++
				break
			}
		}
	}
	return n
}

// sumFaultParam adds up a count the harness recorded on its own faults.
func sumFaultParam(run history.Run, kind func(string) bool, param string) int {
	n := 0
	for _, f := range run.Faults {
		if kind(f.Kind) {
			if k, err := strconv.Atoi(f.Params[param]); err == nil && k > 0 {
				n += k
			}
		}
	}
	return n
}

// zoneWrites counts, when the run's zones differed (Meta.Zones, recorded
// when the harness applied them), the claims whose hold passes lease and
// the outbox moves that pass move; none when the zones were the same or
// not applied.
func (ix *index) zoneWrites(lease func(hold) bool, move func(move) bool) int {
	if !ix.run.Meta.Zones.Differ() {
		return 0
	}
	n := 0
	for _, e := range ix.events {
		for _, h := range ix.holds[e.ID] {
			if lease != nil && lease(h) {
				n++
			}
		}
		for _, m := range ix.moves[e.ID] {
			if move != nil && move(m) {
				n++
			}
		}
	}
	return n
}

// zonesNote says which zones the run recorded, for the zone requirements'
// reasons.
func zonesNote(z *history.Zones) string {
	if z == nil {
		return "no zones were applied"
	}
	return fmt.Sprintf("server %s, UTC%s; instances TZ=%s, UTC%s", z.Server, z.ServerOffset, z.Process, z.ProcessOffset)
}

// failureWriteKinds counts the failure-write kinds (long-error,
// multibyte-error) of which an event ended failed, as the triggers recorded
// its last write, in a run whose last_error the runner narrowed (a
// narrow-column fault) below the 64 characters of the queue name such an
// event's reason may quote. Without the narrowing nothing counts: the
// failure texts were never at risk.
func (ix *index) failureWriteKinds() int {
	narrowed := false
	for _, f := range ix.run.Faults {
		if w, err := strconv.Atoi(f.Params["width"]); f.Kind == history.FaultNarrowColumn && err == nil && w > 0 && w < failureWriteField {
			narrowed = true
		}
	}
	if !narrowed {
		return 0
	}
	ended := map[string]bool{}
	for _, e := range ix.events {
		if e.Kind != history.KindLongError && e.Kind != history.KindMultibyteError || utf8.RuneCountInString(e.Queue) < failureWriteField {
			continue
		}
		if row, ok := ix.finalOutbox[e.ID]; ok && row.Status == history.StatusFailed {
			ended[e.Kind] = true
		}
	}
	return len(ended)
}

// wholeSecondWrites counts the lease ends that claims wrote and the
// backoffs that transient failures wrote into columns the run altered to
// whole seconds (a coarsen-columns fault), each column counted only when
// the server, read back, kept whole seconds in it (Model.Precision 0).
func (ix *index) wholeSecondWrites() int {
	coarsened := false
	for _, f := range ix.run.Faults {
		coarsened = coarsened || f.Kind == history.FaultCoarsenColumns
	}
	if !coarsened {
		return 0
	}
	leases := leaseStep(ix.run) == time.Second
	backoffs := backoffStep(ix.run) == time.Second
	n := 0
	for _, e := range ix.events {
		for _, h := range ix.holds[e.ID] {
			if leases && h.Until != nil {
				n++
			}
		}
		for _, m := range ix.moves[e.ID] {
			if backoffs && m == moveFailure {
				n++
			}
		}
	}
	return n
}

// failureWriteField is the length in characters of the queue name a
// failure-write event carries (workload.LongQueue, MultibyteQueue).
const failureWriteField = 64
