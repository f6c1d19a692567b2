package check

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// LostAdd is a job Redis acknowledged and then lost: it was created while
// Redis's append-only file was off (history.FaultRedisUnpersisted), and the
// restarted server no longer had it. What happened to it is the
// environment's doing, never the dispatcher's; the report says so and names
// what a dispatcher can do about it (LostAddsAdvice).
type LostAdd struct {
	// Sink is where it was published: "" for BullMQ, else the stream or
	// list sink (history.SinkStream, history.SinkList), whose Queue is the
	// key and BullID the message id.
	Sink    string    `json:"sink,omitempty"`
	Job     string    `json:"job"`              // the ai_jobs id
	Queue   string    `json:"queue"`            // the BullMQ queue
	BullID  string    `json:"bull_id"`          // the BullMQ job id
	Events  []int64   `json:"events,omitempty"` // the events about the job
	Created time.Time `json:"created"`          // the creation Redis lost
	// Acknowledged: the fault proxy's command log shows Redis's answer to
	// an add of the job, inside the window, reaching the instance.
	Acknowledged bool `json:"acknowledged"`
	// Recreated is when a later add created the job again (a dispatcher's
	// reconciliation, or an event retried); zero when none did.
	Recreated time.Time `json:"recreated,omitempty"`
	Restarted time.Time `json:"restarted"` // when the server was back
	// Published: an event about the job ended published, so the outbox
	// says the work was handed over while Redis no longer has it.
	Published bool `json:"published"`
	// Taken: the harness's consumer took the job before Redis lost it, so
	// its work was handed over all the same.
	Taken bool `json:"taken,omitempty"`
}

// LostAddsAdvice is what a dispatcher can do so that Redis's losses do not
// become its users' losses; the report prints it with the lost jobs.
const LostAddsAdvice = "A dispatcher cannot stop Redis from losing what it acknowledged, but it can stop trusting an acknowledgement alone: " +
	"WAIT numreplicas timeout after each add, so that a replica holds the job before the event is marked published (and a failover promotes that replica); " +
	"WAITAOF (Redis 7.2 and later), so that the add is on disk first; " +
	"or a reconciliation sweep that re-adds, under the same jobId, the jobs of published events that Redis no longer has."

// LostAdds lists the jobs Redis lost after acknowledging them, in creation
// order (empty without a FaultRedisUnpersisted window).
func LostAdds(run history.Run) []LostAdd {
	if len(unpersistedRestarts(run)) == 0 {
		return nil // no index to build for a run that lost nothing
	}
	return newIndex(run).lostAdds()
}

// unpersistedRestart is one window in which Redis did not persist, and the
// restart that ended it.
type unpersistedRestart struct {
	from, killed, back time.Time
}

// unpersistedRestarts pairs each FaultRedisUnpersisted window with the
// server-restart of Redis that began at its end.
func unpersistedRestarts(run history.Run) []unpersistedRestart {
	var out []unpersistedRestart
	for _, f := range run.Faults {
		if f.Kind != history.FaultRedisUnpersisted || f.End.IsZero() {
			continue
		}
		for _, r := range run.Faults {
			if r.Kind == "server-restart" && r.Target == "redis" && !r.End.IsZero() &&
				!r.Start.After(f.End) && !r.End.Before(f.End) {
				out = append(out, unpersistedRestart{from: f.Start, killed: f.End, back: r.End})
				break
			}
		}
	}
	return out
}

// lostAdds finds, for each unpersisted window, the creations inside it
// whose job hash the restarted server did not have: no note of it after
// the restart but a new creation, and, unless created again, not in the
// final scan.
func (ix *index) lostAdds() []LostAdd {
	windows := unpersistedRestarts(ix.run)
	if len(windows) == 0 {
		return nil
	}
	var out []LostAdd
	for _, job := range sortedKeys(ix.creations.byJob) {
		for _, c := range ix.creations.byJob[job] {
			if c.Append != nil && c.Append.Final {
				continue // found only at the end: still there
			}
			for _, w := range windows {
				if c.At.Before(w.from) || c.At.After(w.killed) || ix.survived(job, c, w) {
					continue
				}
				l := LostAdd{Job: job, Queue: c.Queue, BullID: c.BullID, Created: c.At, Restarted: w.back,
					Recreated: ix.recreatedAfter(job, c, w.back), Acknowledged: ix.addAnswered(job, w),
					Taken: ix.takenBefore(c.Queue, c.BullID, w.killed)}
				if c.Append != nil {
					l.Sink = c.Append.Sink
				}
				for _, e := range ix.eventsByJob[job] {
					l.Events = append(l.Events, e.ID)
					l.Published = l.Published || ix.finalOutbox[e.ID].Status == history.StatusPublished
				}
				out = append(out, l)
				break
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out
}

// survived tells whether what c (a creation of job) created was still in
// Redis once w's restart was over: for a sink's message, by what the key
// still held (appendSurvived); for a job hash, whether it was seen after
// back, the restarted server's start, as the same job: a key note filed
// under job other than a new creation, or the final scan when no creation
// came after back.
func (ix *index) survived(job string, c creation, w unpersistedRestart) bool {
	if c.Append != nil {
		return ix.appendSurvived(*c.Append, w)
	}
	back := w.back
	k := bullKey{c.Queue, c.BullID}
	recreated := false
	for _, n := range ix.keysOf[job] { // in time order
		if n.Queue != k.Queue || n.JobID != k.ID || !n.At.After(back) {
			continue
		}
		if n.Event == "new" {
			recreated = true
			break
		}
		return true
	}
	for _, e := range ix.streamOf[job] {
		if e.Event == "added" && e.Queue == k.Queue && e.JobID == k.ID && e.At.After(back) {
			recreated = true
		}
	}
	if recreated {
		return false
	}
	_, inFinal := ix.run.Final.Queues[k.Queue].Jobs[k.ID]
	return inFinal
}

// addAnswered tells whether an instance got Redis's answer to a write
// naming job, sent inside w.
func (ix *index) addAnswered(job string, w unpersistedRestart) bool {
	for _, c := range ix.commandsOf[job] {
		if c.Store == "" && c.Write && c.Outcome == history.CommandAnswered && !c.Sent.Before(w.from) && c.Sent.Before(w.killed) {
			return true
		}
	}
	return false
}

// appendSurvived tells whether a sink's message appended inside w was
// still held once Redis was back. A stream's entry: the first gap of its
// stream after the kill that says what the stream still held
// (history.Gap.Kept, its last id) is at or after the entry's id; with no
// such gap Redis lost none of the stream. A list's append is the harness's
// move of a message: one pushed before w and moved inside it is back in
// the list after the restart, and the mover moved it again (a re-read,
// splitRereads); one pushed inside w is gone.
func (ix *index) appendSurvived(a history.Append, w unpersistedRestart) bool {
	if a.Sink == history.SinkList {
		for _, r := range ix.rereads {
			if r.Key == a.Key && messageKey(r) == messageKey(a) && !r.At.Before(w.back) {
				return true
			}
		}
		return false
	}
	if a.Sink != history.SinkStream {
		return true
	}
	for _, g := range ix.run.Gaps {
		if g.Source == "sink:"+a.Key && g.Kept != "" && !g.At.Before(w.killed) {
			return !streamIDLess(g.Kept, a.ID)
		}
	}
	return true
}

// recreatedAfter is the first creation of job after back, other than c.
func (ix *index) recreatedAfter(job string, c creation, back time.Time) time.Time {
	for _, o := range ix.creations.byJob[job] {
		if o.At.After(back) && o.At != c.At {
			return o.At
		}
	}
	return time.Time{}
}

// lostByRedis tells whether creation c is one Redis lost (lost, as
// lostAdds lists them).
func lostByRedis(lost []LostAdd, c creation) bool {
	for _, l := range lost {
		if l.Queue == c.Queue && l.BullID == c.BullID && l.Created.Equal(c.At) {
			return true
		}
	}
	return false
}

// quietWindows are the FaultQuietRestart windows: no instance could reach
// Redis in them, and the observers had flushed before and were back after.
func quietWindows(run history.Run) []history.Fault {
	var out []history.Fault
	for _, f := range run.Faults {
		if f.Kind == history.FaultQuietRestart && !f.End.IsZero() {
			out = append(out, f)
		}
	}
	return out
}

// explainedGap tells whether g is a gap in Redis's observation recorded
// inside a quiet restart: it hid nothing an instance wrote.
func explainedGap(quiet []history.Fault, g history.Gap) bool {
	if g.Source != "keyspace" && !strings.HasPrefix(g.Source, "stream:") && !strings.HasPrefix(g.Source, "sink:") {
		return false
	}
	for _, f := range quiet {
		if !g.At.Before(f.Start) && !g.At.After(f.End) {
			return true
		}
	}
	return false
}

// uniqueStream drops an events stream entry recorded again: a reader
// re-reads a stream that its server restored from an older file, and an
// entry is one entry by its queue and id. uniqueAppends does the same for
// a stream sink's entries.
func uniqueStream(entries []history.StreamEntry) []history.StreamEntry {
	return uniqueBy(entries, func(e history.StreamEntry) ([2]string, bool) { return [2]string{e.Queue, e.ID}, true })
}

func uniqueAppends(appends []history.Append) []history.Append {
	return uniqueBy(appends, func(a history.Append) ([2]string, bool) {
		return [2]string{a.Key, a.ID}, a.Sink == history.SinkStream
	})
}

// splitRereads takes out of appends the list elements the mover moved
// again because a restart put them back: moved inside a quiet restart
// after Redis was back, when no instance could push, and carrying the
// message id of an element moved before. Such an element is that message
// handed out again by the restore, not a new push. An element with no
// message id, or one never moved before, stays.
func splitRereads(run history.Run, appends []history.Append) (kept, rereads []history.Append) {
	windows := restoredWindows(run)
	if len(windows) == 0 {
		return appends, nil
	}
	moved := map[[2]string]bool{}
	for _, a := range appends {
		k := [2]string{a.Key, messageKey(a)}
		if a.Sink == history.SinkList && k[1] != "" && moved[k] && inAny(windows, a.At) {
			rereads = append(rereads, a)
			continue
		}
		if a.Sink == history.SinkList {
			moved[k] = true
		}
		kept = append(kept, a)
	}
	return kept, rereads
}

// restoredWindows are the spans from Redis's restart to the end of the
// quiet restart around it: what an observer reads then, Redis restored.
func restoredWindows(run history.Run) [][2]time.Time {
	var out [][2]time.Time
	for _, q := range quietWindows(run) {
		for _, r := range run.Faults {
			if r.Kind == "server-restart" && r.Target == "redis" && !r.End.IsZero() &&
				!r.End.Before(q.Start) && !r.End.After(q.End) {
				out = append(out, [2]time.Time{r.End, q.End})
			}
		}
	}
	return out
}

func inAny(windows [][2]time.Time, t time.Time) bool {
	for _, w := range windows {
		if !t.Before(w[0]) && !t.After(w[1]) {
			return true
		}
	}
	return false
}

// messageKey is what identifies a sink's message: its message id, else
// its payload's jobId.
func messageKey(a history.Append) string {
	if a.MessageID != "" {
		return a.MessageID
	}
	return a.DataJobID
}

// uniqueBy keeps the first of the items with the same key, in order; an
// item whose key does not count (ok false) is always kept.
func uniqueBy[T any](items []T, key func(T) ([2]string, bool)) []T {
	seen := make(map[[2]string]bool, len(items))
	out := make([]T, 0, len(items))
	for _, it := range items {
		k, ok := key(it)
		if ok && seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, it)
	}
	return out
}

// String tells one lost add in words.
func (l LostAdd) String() string {
	ack := "Redis ran its add"
	if l.Acknowledged {
		ack = "Redis ran its add and acknowledged it"
	}
	where := fmt.Sprintf("BullMQ %s:%s", l.Queue, l.BullID)
	if l.Sink != "" {
		where = fmt.Sprintf("message %s in %s %s", l.BullID, sinkWord(l.Sink), l.Queue)
		ack = strings.Replace(ack, "its add", "its append", 1)
	}
	s := fmt.Sprintf("job %s (%s) was created at %s (%s), and Redis no longer had it when it was back at %s",
		l.Job, where, clock(l.Created), ack, clock(l.Restarted))
	if l.Published && len(l.Events) > 0 {
		s += fmt.Sprintf("; event %d is published", l.Events[0])
	}
	if l.Taken {
		s += "; a worker had taken it before"
	}
	if !l.Recreated.IsZero() {
		s += fmt.Sprintf("; it was created again at %s", clock(l.Recreated))
	}
	return s
}

// takenBefore tells whether the harness's consumer took the job id of
// queue before t.
func (ix *index) takenBefore(queue, id string, t time.Time) bool {
	for _, tk := range ix.run.Takes {
		if tk.Queue == queue && tk.JobID == id && tk.At.Before(t) {
			return true
		}
	}
	return false
}

// sinkWord names a stream or list sink in a sentence.
func sinkWord(sink string) string {
	if sink == history.SinkList {
		return "list"
	}
	return "stream"
}
