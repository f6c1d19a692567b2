package check

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// MaxSteps bounds the steps of one violation.
const MaxSteps = 30

// evidence gathers the steps of one violation: core steps (the rows and jobs
// it is about) and context (processes, faults, gaps around it).
type evidence struct {
	core, ctx []Line
}

// steps returns at most MaxSteps steps in time order: the core steps nearest
// the focus first, then the context nearest it.
func (ev *evidence) steps(focus time.Time) []Line {
	core := nearest(dedupe(ev.core), focus, MaxSteps)
	ctx := nearest(dedupe(ev.ctx), focus, MaxSteps-len(core))
	out := append(core, ctx...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

func dedupe(steps []Line) []Line {
	seen := map[string]bool{}
	var out []Line
	for _, s := range steps {
		k := s.At.String() + s.Source + s.Text
		if !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}

func nearest(steps []Line, focus time.Time, n int) []Line {
	if n <= 0 {
		return nil
	}
	if len(steps) <= n {
		return steps
	}
	s := append([]Line(nil), steps...)
	sort.SliceStable(s, func(i, j int) bool { return absDur(s[i].At.Sub(focus)) < absDur(s[j].At.Sub(focus)) })
	return s[:n]
}

// failOn records a violation about event e focused at at, with the event's
// and its job's steps and the context from from to at.
func (ix *index) failOn(t *tally, e history.Event, at, from time.Time, inst []string, summary string) {
	t.fail(func() Violation {
		ev := &evidence{}
		ix.addEvent(ev, e.ID)
		ix.addJob(ev, e.JobID)
		ix.addContext(ev, from, at, inst...)
		return Violation{EventID: e.ID, JobID: e.JobID, Instances: inst, Summary: summary, Steps: ev.steps(at)}
	})
}

// addEvent adds every outbox transition of an event.
func (ix *index) addEvent(ev *evidence, id int64) {
	for i, t := range ix.outbox[id] {
		ev.core = append(ev.core, onStore(outboxStep(t, ix.moveAt(id, i)), ix.run.Meta.Model))
	}
}

// addJob adds a job's row transitions, its stream entries (but "waiting"),
// its key notes and its takes, matched by BullMQ id or data.jobId.
func (ix *index) addJob(ev *evidence, job string) {
	if job == "" {
		return
	}
	for _, t := range ix.jobs[job] {
		ev.core = append(ev.core, onStore(jobStep(t), ix.run.Meta.Model))
	}
	for _, e := range ix.streamOf[job] {
		if e.Event != "waiting" {
			ev.core = append(ev.core, streamStep(e))
		}
	}
	for _, n := range ix.keysOf[job] {
		ev.core = append(ev.core, keyStep(n))
	}
	for _, t := range ix.creations.takes[job] {
		ev.core = append(ev.core, takeStep(t))
	}
	for _, c := range ix.commandsOf[job] {
		ev.core = append(ev.core, commandStep(c, job))
	}
}

// commandStep tells a command the fault proxy saw naming job.
func commandStep(c history.Command, job string) Line {
	return Line{At: c.Sent, Source: "proxy", Text: fmt.Sprintf("%s sent %s naming job %s to Redis, which was %s",
		orSomeone(c.Slot), c.Name, job, outcomeText(c))}
}

// addContext adds the process events of the given instances (all instances
// when none is given), the fault windows and the observer gaps within
// [from, to], widened by a second on each side.
func (ix *index) addContext(ev *evidence, from, to time.Time, instances ...string) {
	from, to = from.Add(-time.Second), to.Add(time.Second)
	want := map[string]bool{}
	for _, i := range instances {
		if i != "" {
			want[i] = true
		}
	}
	for _, p := range ix.run.Processes {
		if (len(want) == 0 || want[p.Instance]) && !p.At.Before(from) && !p.At.After(to) {
			ev.ctx = append(ev.ctx, processStep(p))
		}
	}
	for _, f := range ix.run.Faults {
		if overlaps(f, from, to) {
			ev.ctx = append(ev.ctx, faultSteps(f)...)
		}
	}
	for _, g := range ix.run.Gaps {
		if !g.At.Before(from) && !g.At.After(to) {
			ev.ctx = append(ev.ctx, gapStep(g))
		}
	}
	slots := map[string]bool{}
	for i := range want {
		slots[slotOf(i)] = true
	}
	for _, c := range ix.run.Commands {
		if c.Store != "" && c.Write && c.Failed() && (len(slots) == 0 || slots[c.Slot]) && !c.Sent.Before(from) && !c.Sent.After(to) {
			ev.ctx = append(ev.ctx, statementStep(c))
		}
	}
}

// statementStep tells a write statement that failed on an instance's store
// link (the proxy's record, read by rule 5 as a failed finalize).
func statementStep(c history.Command) Line {
	return Line{At: c.Sent, Source: "proxy", Text: fmt.Sprintf("%s's %s on %s failed: %s",
		orSomeone(c.Slot), c.Name, c.Store, storeOutcomeText(c))}
}

func outboxStep(t history.Transition, m move) Line {
	who := t.LockedBy
	if who == "" {
		who = "a dispatcher"
	}
	ev := "event " + t.Key
	var text string
	switch m {
	case moveInsert:
		text = fmt.Sprintf("%s was produced (%s)", ev, t.NewStatus)
	case moveClaim:
		text = fmt.Sprintf("%s claimed %s (attempt %d, token %s, lease until %s)", who, ev, t.Attempts, short(t.LockToken), clockPtr(t.LockedUntil))
	case moveTakeover:
		text = fmt.Sprintf("%s took %s over from token %s (attempt %d, token %s, lease until %s)", who, ev, short(t.OldLockToken), t.Attempts, short(t.LockToken), clockPtr(t.LockedUntil))
	case moveExtend:
		text = fmt.Sprintf("%s extended its lease on %s until %s", who, ev, clockPtr(t.LockedUntil))
	case moveFailure:
		text = fmt.Sprintf("%s returned %s to pending after an error at attempt %d, available again at %s: %s", who, ev, t.Attempts, clockPtr(t.AvailableAt), quote(t.LastError))
	case moveRelease:
		text = fmt.Sprintf("%s was released back to pending with no backoff (token was %s)%s", ev, short(t.OldLockToken), errorNote(t))
	case moveRecovery:
		text = fmt.Sprintf("%s was recovered back to pending after its lease ran out (token was %s)%s", ev, short(t.OldLockToken), errorNote(t))
	case moveSeized:
		text = fmt.Sprintf("%s was returned to pending by %s before its lease ran out, while another instance held it (token was %s)%s", ev, t.Writer, short(t.OldLockToken), errorNote(t))
	case moveUnclear:
		text = fmt.Sprintf("%s went back to pending before its lease ran out, with no backoff (a release or a retry without backoff; token was %s)%s", ev, short(t.OldLockToken), errorNote(t))
	case moveFinalize:
		text = fmt.Sprintf("%s marked %s %s at attempt %d (token %s)", who, ev, t.NewStatus, t.Attempts, short(t.LockToken))
		if t.NewStatus == history.StatusFailed {
			text += ": " + quote(t.LastError)
		}
	case moveRewrite:
		text = fmt.Sprintf("%s was written again after it was %s: %s -> %s by %s (token %s)", ev, t.OldStatus, t.OldStatus, t.NewStatus, who, short(t.LockToken))
	case moveDelete:
		text = ev + " was deleted"
	default:
		text = fmt.Sprintf("%s went %s -> %s (%s)", ev, t.OldStatus, t.NewStatus, who)
	}
	return Line{At: t.At, Source: "mysql", Text: text}
}

// errorNote is ": <last_error>" when a return to pending wrote a new one.
func errorNote(t history.Transition) string {
	if t.LastError == "" || t.LastError == t.OldLastError {
		return ""
	}
	return ": " + quote(t.LastError)
}

func jobStep(t history.Transition) Line {
	switch t.Op {
	case "insert":
		return Line{At: t.At, Source: "mysql", Text: fmt.Sprintf("job %s row was inserted as %s", t.Key, t.NewStatus)}
	case "delete":
		return Line{At: t.At, Source: "mysql", Text: fmt.Sprintf("job %s row was deleted", t.Key)}
	}
	return Line{At: t.At, Source: "mysql", Text: fmt.Sprintf("job %s row went %s -> %s", t.Key, t.OldStatus, t.NewStatus)}
}

func streamStep(e history.StreamEntry) Line {
	text := fmt.Sprintf("queue %s events stream: %s job %s", e.Queue, e.Event, e.JobID)
	switch e.Event {
	case "added":
		text = fmt.Sprintf("BullMQ created job %s in queue %s (stream entry %s)", e.JobID, e.Queue, e.ID)
	case "duplicated":
		text = fmt.Sprintf("BullMQ ignored a second add of job %s in queue %s (duplicated)", e.JobID, e.Queue)
	}
	return Line{At: e.At, Source: "redis", Text: text}
}

func keyStep(n history.KeyNote) Line {
	key := n.Queue + ":" + n.JobID
	switch n.Event {
	case "new":
		return Line{At: n.At, Source: "redis", Text: fmt.Sprintf("job hash %s appeared (data %s)", key, orGone(n.Data))}
	case eventScan:
		return Line{At: n.At, Source: "redis", Text: fmt.Sprintf("job hash %s was read by the observer's scan after a keyspace gap (data %s, opts %s)", key, orGone(n.Data), orGone(n.Opts))}
	case eventReload:
		return Line{At: n.At, Source: "redis", Text: fmt.Sprintf("job hash %s was loaded back by the restarted Redis, same creation stamp (data %s)", key, orGone(n.Data))}
	case "del", "expired", "evicted":
		return Line{At: n.At, Source: "redis", Text: fmt.Sprintf("job hash %s was deleted (%s)", key, n.Event)}
	}
	return Line{At: n.At, Source: "redis", Text: fmt.Sprintf("job hash %s was written (%s; data %s, opts %s)", key, n.Event, orGone(n.Data), orGone(n.Opts))}
}

func takeStep(t history.Take) Line {
	return Line{At: t.At, Source: "consumer", Text: fmt.Sprintf("consumer %s took job %s (data.jobId %s) from queue %s", t.Worker, t.JobID, t.DataJobID, t.Queue)}
}

func processStep(p history.ProcessEvent) Line {
	text := fmt.Sprintf("instance %s %s", p.Instance, actionVerb(p.Action))
	if p.Detail != "" {
		text += ": " + oneLine(p.Detail)
	}
	return Line{At: p.At, Source: "process", Text: text}
}

// actionVerb tells a process action in words.
func actionVerb(action string) string {
	verb := map[string]string{
		"start": "started", "exit": "exited", "kill": "was killed (SIGKILL)", "stop": "was paused (SIGSTOP)",
		"cont": "was resumed (SIGCONT)", "term": "was asked to stop (SIGTERM)", "crashpoint": "reached a crash point",
		"restart": "was restarted",
	}[action]
	if verb == "" {
		return action
	}
	return verb
}

func faultSteps(f history.Fault) []Line {
	what := fmt.Sprintf("fault %d (%s on %s)", f.ID, f.Kind, f.Target)
	out := []Line{{At: f.Start, Source: "fault", Text: what + " began"}}
	if !f.End.IsZero() {
		out = append(out, Line{At: f.End, Source: "fault", Text: what + " ended"})
	}
	return out
}

func gapStep(g history.Gap) Line {
	return Line{At: g.At, Source: "observer", Text: fmt.Sprintf("observer gap in %s: %s", g.Source, oneLine(g.Detail))}
}

func clockPtr(t *time.Time) string {
	if t == nil {
		return "(not recorded)"
	}
	return clock(*t)
}

func short(token string) string {
	if token == "" {
		return "(none)"
	}
	if len(token) > 8 {
		return token[:8]
	}
	return token
}

func orGone(s string) string {
	if s == "" {
		return "(gone)"
	}
	return quote(s)
}

// quote makes a dispatcher-supplied string fit on one line of a step.
func quote(s string) string {
	s = oneLine(s)
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// onStore labels a database step with the run's store ("mysql" unless the
// outbox is in PostgreSQL).
func onStore(l Line, m history.Model) Line {
	if m.Store != "" {
		l.Source = m.Store
	}
	return l
}
