package check

import (
	"fmt"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// proxyFacts is what the fault proxy recorded of the instances' Redis
// commands (history.Run.Commands), read by rule 5 of doc.go. on is false
// for a history without the records (an older one, or one whose command
// log has a gap): rule 5 then reads as before.
type proxyFacts struct {
	on     bool
	bySlot map[string][]history.Command // Redis commands
	store  map[string][]history.Command // failed store statements (Store set)
	jobs   map[int64]string             // event -> its job id
}

func newProxyFacts(run history.Run) proxyFacts {
	f := proxyFacts{on: run.Meta.Commands, bySlot: map[string][]history.Command{}, store: map[string][]history.Command{}, jobs: map[int64]string{}}
	for _, g := range run.Gaps {
		if g.Source == history.GapCommands {
			f.on = false
		}
	}
	if !f.on {
		return f
	}
	for _, c := range run.Commands {
		if c.Store != "" {
			f.store[c.Slot] = append(f.store[c.Slot], c)
			continue
		}
		f.bySlot[c.Slot] = append(f.bySlot[c.Slot], c)
	}
	for _, e := range run.Events {
		f.jobs[e.ID] = e.JobID
	}
	return f
}

// namesJob tells whether c names job.
func namesJob(c history.Command, job string) bool {
	for _, j := range c.Jobs {
		if j == job {
			return true
		}
	}
	return false
}

// delayOnly lists the fault kinds that only slow a link: it stays up, and
// every command still reaches the proxy, which records it.
var delayOnly = map[string]bool{"latency": true, "bandwidth": true, "slicer": true}

// holdsOnly tells a fault that stops the owner or holds its COMMIT and
// then lets go, its links up all along: a pause (SIGSTOP, then SIGCONT;
// the "pause" and "pause-trap" windows) sends nothing while it lasts and
// everything after it through the proxy, and a held COMMIT that was not
// cut completes. Neither keeps a command from the proxy's log.
func holdsOnly(f history.Fault) bool {
	switch f.Kind {
	case history.FaultPause, history.FaultPauseTrap:
		return true
	case history.FaultFinalizeTrap:
		return f.Params["cut"] != "true"
	}
	return false
}

// seenOnRedis lists the Redis fault kinds whose every effect on a command
// the proxy's command log records: a refused write (queue-error,
// redis-state) is an error reply, a lost reply (lost-reply-redis-add, and
// every later reply on its connection) is dropped.
var seenOnRedis = map[string]bool{"queue-error": true, "redis-state": true, "lost-reply-redis-add": true}

// byCommands reads a return that rule 4 could not call a release by what
// the proxy saw of the hold's slot (doc.go, rule 5): decided is true for a
// release or a transient failure (m); otherwise why is the reason the
// return stays in doubt, or "" when the records say nothing (absent, or
// the slot unknown) and the caller keeps its own. next is the time of the
// event's next transition (zero for none).
func (c moveReader) byCommands(h *hold, t history.Transition, next time.Time) (m move, why string, decided bool) {
	slot := c.holdSlot(h)
	job := c.facts.jobs[h.Event]
	if !c.facts.on || c.conv.Declared() || slot == "" || job == "" {
		return moveUnclear, "", false // declared conventions decide, as before the log
	}
	from, to := holdWindow(h, t, next)
	var last *history.Command
	var failedOther *history.Command
	for i, cmd := range c.facts.bySlot[slot] {
		if cmd.Sent.Before(from) || cmd.Sent.After(to) {
			continue
		}
		switch {
		case namesJob(cmd, job):
			if last == nil || !cmd.Sent.Before(last.Sent) {
				last = &c.facts.bySlot[slot][i]
			}
		case len(cmd.Jobs) == 0 && cmd.Failed() && failedOther == nil:
			failedOther = &c.facts.bySlot[slot][i]
		}
	}
	owner := orSomeone(h.Owner)
	if last != nil {
		return c.afterCommand(h, t, *last, owner, job, to)
	}
	if failedOther != nil {
		return moveUnclear, fmt.Sprintf("%s returned it to pending at %s before its lease ended, with no backoff, after its %s on Redis at %s %s: a release or a retry without backoff",
			owner, clock(t.At), failedOther.Name, clock(failedOther.Sent), outcomeText(*failedOther)), false
	}
	if down := c.linkDown(h, t); down != "" {
		return moveUnclear, "", false
	}
	return moveRelease, "", true
}

// holdWindow is when a command of the hold may have been sent: from its
// claim to the return, widened by ClockSlack but never past the event's
// transitions on either side (the previous hold's end, the next claim),
// whose own commands are theirs: every command of a hold follows its
// claim and precedes the next one.
func holdWindow(h *hold, t history.Transition, next time.Time) (from, to time.Time) {
	from, to = h.Start.Add(-ClockSlack), t.At.Add(ClockSlack)
	if !h.Before.IsZero() && from.Before(h.Before) {
		from = h.Before
	}
	if !next.IsZero() && to.After(next) {
		to = next
	}
	return from, to
}

// afterCommand reads a return that follows the owner's command for the
// event's job: a transient failure when that command's client got no good
// answer before the return (sent before it, its outcome by then), or it
// was answered and a write statement of the owner's on the store failed
// after it by the return (a failed finalize, up to to, the hold window's
// end), the same instance ran throughout and the return did not take back
// the attempt its claim counted; in doubt otherwise (answered with no
// failed write after it, not read, or the attempt taken back), the
// reason naming the command and the failed statement.
func (c moveReader) afterCommand(h *hold, t history.Transition, cmd history.Command, owner, job string, to time.Time) (move, string, bool) {
	sent := fmt.Sprintf("%s sent %s naming job %s to Redis at %s, which was %s", owner, cmd.Name, job, clock(cmd.Sent), outcomeText(cmd))
	failed := cmd.Failed() && settledBy(cmd, t)
	if cmd.Outcome == history.CommandAnswered {
		if st := c.failedFinalize(c.holdSlot(h), cmd.Sent, to, t); st != nil {
			// The add landed and the owner's write after it did not: a
			// finalize that failed, then the return (rule 5).
			sent += fmt.Sprintf(", then its %s on %s at %s failed (%s)", st.Name, st.Store, clock(st.Sent), storeOutcomeText(*st))
			failed = true
		}
	}
	if failed && c.sameInstance(h, t) {
		if t.Attempts < h.Attempts {
			// It took back the attempt its claim counted: a give-back of
			// a claim that spent nothing (a breaker's, after no answer),
			// as the dispatcher tells it, not a retry.
			return moveUnclear, fmt.Sprintf("%s, and returned it to pending at %s before its lease ended, with no backoff and its claim's attempt taken back (%d to %d): a give-back or a retry without backoff",
				sent, clock(t.At), h.Attempts, t.Attempts), false
		}
		return moveFailure, "", true
	}
	return moveUnclear, fmt.Sprintf("%s, and returned it to pending at %s before its lease ended, with no backoff: a release or a retry without backoff",
		sent, clock(t.At)), false
}

// settledBy tells whether cmd was sent, and its outcome known, by the
// return t.
func settledBy(cmd history.Command, t history.Transition) bool {
	return !cmd.Sent.After(t.At.Add(DBSlack)) && !cmd.Replied.After(t.At.Add(ClockSlack))
}

// failedFinalize is the slot's first write statement on the store that
// failed after the add (sent at or after after, and by to, the hold's
// window's end) and was settled by the return t; nil for none.
func (c moveReader) failedFinalize(slot string, after, to time.Time, t history.Transition) *history.Command {
	for i, st := range c.facts.store[slot] {
		if st.Write && st.Failed() && !st.Sent.Before(after) && !st.Sent.After(to) && settledBy(st, t) {
			return &c.facts.store[slot][i]
		}
	}
	return nil
}

// storeOutcomeText tells a failed statement's outcome in words.
func storeOutcomeText(c history.Command) string {
	switch c.Outcome {
	case history.CommandError:
		return fmt.Sprintf("the error %q", c.Reply)
	case history.CommandDropped:
		return "its reply dropped by a lost-reply fault"
	}
	return "no reply before its connection ended at " + clock(c.Replied)
}

// sameInstance tells whether the instance that held h ran from its claim to
// the return with no signal (a restart of the slot could have sent the
// command or written the return).
func (c moveReader) sameInstance(h *hold, t history.Transition) bool {
	if h.Owner == "" {
		return false
	}
	if _, known := c.lv.procs[h.Owner]; !known {
		return true // locked_by is the dispatcher's own name; the slot's writer was checked
	}
	from, to := h.Start.Add(-ClockSlack), t.At.Add(ClockSlack)
	for _, p := range c.lv.procs[h.Owner] {
		if p.Action != "start" && !p.At.Before(from) && !p.At.After(to) {
			return false
		}
	}
	slot := slotOf(h.Owner)
	return c.lv.instanceOf(slot, to) == h.Owner
}

// holdSlot is the instance slot that held h: the writer of its claim, or
// the slot of its owner when the owner is an instance the harness ran.
func (c moveReader) holdSlot(h *hold) string {
	if h.Writer != "" {
		return h.Writer
	}
	if _, ok := c.lv.procs[h.Owner]; ok {
		return slotOf(h.Owner)
	}
	return ""
}

// linkKeeping lists the process actions that leave an instance's links
// up: its start, SIGTERM, and a pause (SIGSTOP, then SIGCONT).
var linkKeeping = map[string]bool{"start": true, "term": true, "stop": true, "cont": true}

// linkDown names what could have kept a command of the hold's owner from
// reaching the proxy, or failed it unseen, in the hold (widened by
// ClockSlack): a kill or a restart (linkKeeping lists what is not), a
// MySQL cut, or a fault in effect that does not name another instance,
// unless it only slows links (delayOnly), is a Redis fault whose effects
// the log records (seenOnRedis), or only holds the owner (holdsOnly). ""
// when the owner's links were up.
func (c moveReader) linkDown(h *hold, t history.Transition) string {
	from, to := h.Start.Add(-ClockSlack), t.At.Add(ClockSlack)
	for _, f := range c.run.Faults {
		if !overlaps(f, from, to) || c.namesOther(f.Target, h.Owner) {
			continue
		}
		if delayOnly[f.Kind] || seenOnRedis[f.Kind] && isRedisTarget(f.Target) || holdsOnly(f) {
			continue
		}
		return fmt.Sprintf("fault %d (%s on %s) was in effect", f.ID, f.Kind, f.Target)
	}
	for _, p := range c.lv.procs[h.Owner] {
		if !linkKeeping[p.Action] && !p.At.Before(from) && !p.At.After(to) {
			return fmt.Sprintf("%s %s at %s", h.Owner, actionVerb(p.Action), clock(p.At))
		}
	}
	if h.Owner != "" && c.lv.storeCutDuring(h.Owner, from, to) {
		return h.Owner + " was cut off from MySQL"
	}
	return ""
}

// isRedisTarget tells whether a fault target is Redis or one of its links.
func isRedisTarget(target string) bool {
	dep, _, _ := strings.Cut(target, "/")
	return dep == "redis"
}

// outcomeText tells a command's outcome in words, with its time.
func outcomeText(c history.Command) string {
	at := clock(c.Replied)
	switch c.Outcome {
	case history.CommandAnswered:
		return "answered at " + at
	case history.CommandError:
		return fmt.Sprintf("answered with the error %q at %s", c.Reply, at)
	case history.CommandDropped:
		return "answered, but a lost-reply fault dropped the reply"
	case history.CommandClosed:
		return "not answered before its connection ended at " + at
	}
	return "answered with a reply the proxy could not read"
}
