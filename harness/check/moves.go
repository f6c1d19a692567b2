package check

import (
	"fmt"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// move is what one outbox transition did. The rules are written in doc.go
// ("Moves"); this file is the one place that applies them, and every checker
// reads its answer (index.moves).
type move int

const (
	moveOther    move = iota // anything not listed below
	moveInsert               // the producer's insert
	moveClaim                // pending (or another live status) -> processing
	moveTakeover             // processing -> processing under a new owner
	moveExtend               // processing -> processing under the same owner
	moveFailure              // back to pending before the lease ended, with backoff (or declared none of the dispatcher's gives-back)
	moveRelease              // back to pending by the owner before the lease ended, no backoff, nothing failing or SIGTERM
	moveRecovery             // back to pending at or after the hold's lease end, by anyone
	moveUnclear              // back to pending before the lease ended, no backoff, while something failed: release or retry?
	moveSeized               // back to pending before the lease ended, written by another slot than the holder's: an early takeover
	moveFinalize             // live status -> published or failed
	moveRewrite              // any update of a row already published or failed
	moveDelete               // the row was deleted
)

var moveNames = [...]string{"other", "insert", "claim", "takeover", "extend", "failure", "release",
	"recovery", "unclear", "seized", "finalize", "rewrite", "delete"}

// String names the move as its constant does, for messages.
func (m move) String() string {
	if m < 0 || int(m) >= len(moveNames) {
		return fmt.Sprintf("move(%d)", int(m))
	}
	return moveNames[m]
}

func isFinal(status string) bool {
	return status == history.StatusPublished || status == history.StatusFailed
}

// isReturn tells whether a move gave the row back to pending.
func isReturn(m move) bool {
	return m == moveFailure || m == moveRelease || m == moveRecovery || m == moveUnclear || m == moveSeized
}

// moveReturn is shape's answer for processing -> pending, before the hold
// it ends decides which return it is.
const moveReturn move = -1

// shape tells what a transition did from the transition alone and the
// current hold's owner (for a schema without lock tokens); a return to
// pending comes back as moveReturn.
func shape(t history.Transition, h *hold, claimer string) move {
	switch {
	case t.Op == "insert":
		return moveInsert
	case t.Op == "delete" && !isFinal(t.NewStatus):
		return moveDelete // a deletion the outbox model gives no meaning
	case isFinal(t.OldStatus):
		return moveRewrite
	case isFinal(t.NewStatus):
		return moveFinalize
	case t.NewStatus == history.StatusProcessing && t.OldStatus == history.StatusProcessing:
		if newOwner(t, h, claimer) {
			return moveTakeover
		}
		return moveExtend
	case t.NewStatus == history.StatusProcessing:
		return moveClaim
	case t.OldStatus == history.StatusProcessing && t.NewStatus == history.StatusPending:
		return moveReturn
	}
	return moveOther
}

// newOwner tells whether a processing -> processing write installed a new
// owner: a different non-empty lock token; or, when the schema has no lock
// token (neither value recorded), a locked_by other than the current hold's
// owner; or, when it has neither (an outbox whose claim is a lease and an
// attempt count), another instance writing it (claimer: the writer's
// instance) or more attempts than the hold's claim counted: only a new
// claim counts one.
func newOwner(t history.Transition, h *hold, claimer string) bool {
	owner, attempts := "", 0
	if h != nil {
		owner, attempts = h.Owner, h.Attempts
	}
	switch {
	case t.LockToken != "" || t.OldLockToken != "":
		return t.LockToken != "" && t.LockToken != t.OldLockToken
	case t.LockedBy != "":
		return owner != "" && t.LockedBy != owner
	case h == nil:
		return false
	}
	return t.Attempts > attempts || (claimer != "" && owner != "" && claimer != owner)
}

// ownerChanged tells whether a write that ends a hold carries a token other
// than the one it ended (the writer was not the owner). Without lock tokens
// the writer of a write that keeps locked_by cannot be told: false.
func ownerChanged(t history.Transition) bool {
	return t.LockToken != "" && t.OldLockToken != "" && t.LockToken != t.OldLockToken
}

// hold is one claim of an event: from its claim (or takeover) to the move that
// ended it, if any.
type hold struct {
	Event    int64
	Token    string // "" for a schema without lock tokens
	Owner    string // locked_by
	Writer   string // the slot that wrote the claim (Transition.Writer); "" when unknown
	Start    time.Time
	Attempts int
	Until    *time.Time // lease end, moved by extensions; nil when not recorded
	Claim    history.Transition
	// Before is the time of the event's transition before the claim (the
	// previous hold's end); zero for none.
	Before  time.Time
	End     *history.Transition // nil while still held at the end of the history
	EndMove move
}

// eventMoves is one event's transitions read: a move per transition (and
// for moveUnclear why), and its holds.
type eventMoves struct {
	moves []move
	why   []string
	holds []hold
}

// moveReader applies the rules of doc.go with what the run recorded around
// each transition: process events, fault windows, the declared conventions.
type moveReader struct {
	run   history.Run
	lv    liveness
	conv  history.Conventions
	facts proxyFacts
}

// readMoves reads one event's transitions (in sequence order).
func (c moveReader) readMoves(event int64, ts []history.Transition) eventMoves {
	out := eventMoves{moves: make([]move, len(ts)), why: make([]string, len(ts))}
	cur := -1
	closeCur := func(t history.Transition, m move) {
		if cur >= 0 {
			tc := t
			out.holds[cur].End = &tc
			out.holds[cur].EndMove = m
			cur = -1
		}
	}
	for i, t := range ts {
		var h *hold
		if cur >= 0 {
			h = &out.holds[cur]
		}
		m := shape(t, h, c.owner(t))
		if m == moveReturn {
			var next time.Time
			if i+1 < len(ts) {
				next = ts[i+1].At
			}
			m, out.why[i] = c.returnMove(h, t, next)
		}
		out.moves[i] = m
		switch m {
		case moveClaim, moveTakeover:
			closeCur(t, m)
			var before time.Time
			if i > 0 {
				before = ts[i-1].At
			}
			out.holds = append(out.holds, hold{Event: event, Token: t.LockToken, Owner: c.owner(t), Writer: slotWriter(t),
				Start: t.At, Attempts: t.Attempts, Until: t.LockedUntil, Claim: t, Before: before})
			cur = len(out.holds) - 1
		case moveExtend:
			if cur >= 0 && t.LockedUntil != nil {
				out.holds[cur].Until = t.LockedUntil
			}
		default:
			closeCur(t, m)
		}
	}
	return out
}

// owner is who holds the claim t writes: its locked_by or, for an outbox
// without an owner column, the instance of the slot that wrote it, running
// then (a dispatcher claims for itself).
func (c moveReader) owner(t history.Transition) string {
	if t.LockedBy != "" {
		return t.LockedBy
	}
	if slot := slotWriter(t); slot != "" {
		return c.lv.instanceOf(slot, t.At)
	}
	return ""
}

// FutureSlack is how far past the write's own time available_at must lie to
// count as moved into the future. A release that writes "now" computed in
// the application reaches the database a moment later, so it lies in the
// past; only a rounding error can put it ahead.
const FutureSlack = 5 * time.Millisecond

// returnMove decides which return to pending t is, for the hold h it ends
// (nil when no claim was recorded before it); next is the time of the
// event's next transition (zero for none). For moveUnclear it says why.
func (c moveReader) returnMove(h *hold, t history.Transition, next time.Time) (move, string) {
	slack := DBSlack + storeDelay(c.run, t.At) + leaseStep(c.run)
	if h != nil && h.Until != nil && !t.At.Before(h.Until.Add(-slack)) {
		return moveRecovery, ""
	}
	if h != nil && h.Writer != "" && slotWriter(t) != "" && slotWriter(t) != h.Writer {
		return moveSeized, ""
	}
	if t.AvailableAt != nil && t.AvailableAt.After(t.At.Add(FutureSlack)) {
		return moveFailure, ""
	}
	if h == nil {
		return c.undeclared(t, "no claim of it was recorded before this return to pending")
	}
	if c.termed(h.Owner, t.At) {
		return moveRelease, ""
	}
	trouble := c.trouble(h.Owner, h.Start, t.At)
	if trouble == "" {
		return moveRelease, ""
	}
	m, why, decided := c.byCommands(h, t, next)
	if decided {
		return m, ""
	}
	if why != "" {
		return c.undeclared(t, why)
	}
	return c.undeclared(t, fmt.Sprintf("%s returned it to pending at %s before its lease ended, with no backoff, while %s: a release or a retry without backoff",
		orSomeone(h.Owner), clock(t.At), trouble))
}

// slotWriter is the instance slot that wrote t, or "" when the history does
// not say (no writer recorded) or the harness wrote it.
func slotWriter(t history.Transition) string {
	if t.Writer == history.WriterHarness {
		return ""
	}
	return t.Writer
}

// undeclared settles a return the history cannot tell by the declared
// conventions: one that matches a declared release or recovery is a
// release; when the adapter declared its conventions and this matches none,
// it is a retry without backoff (a failure); with nothing declared it stays
// unclear, with why.
func (c moveReader) undeclared(t history.Transition, why string) (move, string) {
	if !c.conv.Declared() {
		return moveUnclear, why + undeclaredNote
	}
	if matchesConvention(t, c.conv.ReleaseErrors, c.conv.ReleaseKeepsError) ||
		matchesConvention(t, c.conv.RecoveryErrors, c.conv.RecoveryKeepsError) {
		return moveRelease, ""
	}
	return moveFailure, ""
}

// matchesConvention tells whether t's last_error is one the convention
// declares: a declared prefix, or unchanged when the convention keeps it.
func matchesConvention(t history.Transition, prefixes []string, keeps bool) bool {
	if keeps && t.LastError == t.OldLastError {
		return true
	}
	for _, p := range prefixes {
		if p != "" && strings.HasPrefix(t.LastError, p) {
			return true
		}
	}
	return false
}

// termed tells whether the harness had sent inst SIGTERM by at (harness
// clock, so ClockSlack is allowed).
func (c moveReader) termed(inst string, at time.Time) bool {
	if inst == "" {
		return false
	}
	for _, p := range c.lv.procs[inst] {
		if p.Action == "term" && !p.At.After(at.Add(ClockSlack)) {
			return true
		}
	}
	return false
}

// trouble names something that failed for inst in [from, to] (widened by
// ClockSlack): a fault whose target does not name another instance (a fault
// on "redis", "mysql", on inst or on one of its links), a signal other than
// SIGTERM, or a MySQL cut. "" when nothing did.
func (c moveReader) trouble(inst string, from, to time.Time) string {
	from, to = from.Add(-ClockSlack), to.Add(ClockSlack)
	for _, f := range c.run.Faults {
		if overlaps(f, from, to) && !c.namesOther(f.Target, inst) {
			return fmt.Sprintf("fault %d (%s on %s) was in effect", f.ID, f.Kind, f.Target)
		}
	}
	for _, p := range c.lv.procs[inst] {
		if p.Action != "start" && p.Action != "term" && !p.At.Before(from) && !p.At.After(to) {
			return fmt.Sprintf("%s %s at %s", inst, actionVerb(p.Action), clock(p.At))
		}
	}
	if inst != "" && c.lv.storeCutDuring(inst, from, to) {
		return inst + " was cut off from MySQL"
	}
	return ""
}

// namesOther tells whether a fault target names an instance other than inst
// (the instance itself, or its link "mysql/d2"), so the fault cannot have
// failed inst's work.
func (c moveReader) namesOther(target, inst string) bool {
	name := target
	if i := strings.LastIndex(target, "/"); i >= 0 {
		name = target[i+1:]
	}
	if _, ok := c.lv.procs[name]; !ok {
		return false // a dependency ("redis", "mysql"), a queue, or a target this package does not know
	}
	return inst != "" && name != inst
}
