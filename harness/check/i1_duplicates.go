package check

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// judgeDuplicates is I1, no duplicate job.
//
// Definition. For every ai_jobs id J:
//   - creations: the BullMQ creations matched to J (stream "added" entries and
//     keyspace "new" notes, paired so one creation seen by both counts once;
//     matched by BullMQ id and by data.jobId, see creations.go) number at
//     most one, and none at all when every event about J is of kind
//     already-queued (its job was queued before the event: the dispatcher
//     must close it with no add). A creation Redis lost (created while its
//     append-only file was off, gone once it restarted: redisloss.go) does
//     not count: the job created again after it is the one job there is.
//   - final scan: no BullMQ id matched to J appears twice across a queue's
//     wait, paused, prioritized, delayed, active, completed and failed, and
//     no two different BullMQ jobs (hashes or listed ids) are matched to J.
//   - takes: consumers took J at most once. A second take of the same BullMQ
//     job after a Redis fault began between the two is BullMQ redelivering a
//     stalled job after the restart, not a second job, and is not counted.
//
// Any of these proves a fail, gaps or not. With nothing proven the verdict is
// not exercised when no creation was seen at all (and no gap says one may
// have gone unseen), else
// unknown when, for some queue, both the events stream and the keyspace
// notifications had a gap (a creation may have gone unseen by both), or when
// a creation could not be matched to any ai_jobs row.
func (ix *index) judgeDuplicates(t *tally) Result {
	for _, job := range ix.jobsWithEvidence() {
		ix.checkDuplicate(t, job)
	}
	if q, blind := ix.anyCreationsBlind(); blind && ix.run.Meta.Model.Sink != history.SinkBullMQ {
		t.doubt("the observer of %s %s had a gap, so a second delivery may have gone unseen", strings.ToLower(ix.run.Meta.Model.SinkName()), q)
	} else if blind {
		t.doubt("the events stream of queue %s and the keyspace notifications both had gaps, so a second creation may have gone unseen", q)
	}
	if n := len(ix.creations.unmatched); n > 0 {
		c := ix.creations.unmatched[0]
		t.doubt("%d BullMQ job creations could not be matched to an ai_jobs row (the first: job %s in queue %s at %s)", n, c.BullID, c.Queue, clock(c.At))
	}
	if len(ix.creations.byJob) == 0 && len(ix.creations.unmatched) == 0 {
		t.nothing("the run created no " + ix.sinkJob())
	}
	seen := count(len(ix.creations.byJob), "job", "jobs") + " seen in " + ix.run.Meta.Model.SinkName()
	if ix.run.Meta.Model.Delivery == history.DeliveryAtLeastOnce {
		r := t.result(seen + ", each under its own message id (at-least-once: " + count(t.duplicates, "message", "messages") + " delivered more than once)")
		r.Duplicates = t.duplicates
		return r
	}
	return t.result(seen + ", none created more than once")
}

// jobsWithEvidence lists every job any source mentions, in event order.
func (ix *index) jobsWithEvidence() []string {
	seen := map[string]bool{}
	var jobs []string
	add := func(j string) {
		if j != "" && !seen[j] {
			seen[j] = true
			jobs = append(jobs, j)
		}
	}
	for _, e := range ix.events {
		add(e.JobID)
	}
	var rest []string
	for j := range ix.creations.byJob {
		rest = append(rest, j)
	}
	for j := range ix.creations.takes {
		rest = append(rest, j)
	}
	sort.Strings(rest)
	for _, j := range rest {
		add(j)
	}
	return jobs
}

// checkDuplicate records the violation proving job was duplicated, if any.
func (ix *index) checkDuplicate(t *tally, job string) {
	cs := ix.creations.byJob[job]
	limit := 1
	if ix.onlyAlreadyQueued(job) {
		limit = 0
	} else {
		cs = ix.keptCreations(cs)
	}
	listed, listProof := ix.finalDuplicate(job)
	takes := countedTakes(ix.run, ix.creations.takes[job])
	var summary string
	atLeastOnce := ix.run.Meta.Model.Delivery == history.DeliveryAtLeastOnce
	switch {
	case atLeastOnce && limit > 0:
		summary = ix.renamedMessage(job, cs)
		if summary == "" {
			if len(cs) > 1 {
				t.duplicates++
			}
			return
		}
	case len(cs) > limit && limit == 0:
		summary = fmt.Sprintf("Job %s was already queued before event %d was dispatched, yet BullMQ created it again: %s (%s).",
			job, ix.firstEvent(job), ix.creationList(cs), ruleAlreadyDispatched)
	case len(cs) > limit:
		summary = ix.creationSentence(job, cs)
	case listProof != "":
		summary = listProof
	case len(takes) > 1:
		summary = fmt.Sprintf("Job %s was taken by consumers %d times: %s.", job, len(takes), takeList(takes))
	default:
		return
	}
	t.fail(func() Violation {
		ev := &evidence{}
		var instances []string
		for _, c := range cs {
			instances = appendUnique(instances, ix.creator(c))
		}
		for _, e := range ix.eventsByJob[job] {
			ix.addEvent(ev, e.ID)
		}
		ix.addJob(ev, job)
		ev.core = append(ev.core, listed...)
		from, to, focus := ix.span(cs, takes)
		ix.addContext(ev, from, to, instances...)
		return Violation{EventID: ix.firstEvent(job), JobID: job, Instances: instances, Summary: summary, Steps: ev.steps(focus)}
	})
}

// keptCreations drops the creations Redis lost (redisloss.go): a job
// created again after Redis lost it is one job, not two.
func (ix *index) keptCreations(cs []creation) []creation {
	if len(ix.lost) == 0 {
		return cs
	}
	var out []creation
	for _, c := range cs {
		if !lostByRedis(ix.lost, c) {
			out = append(out, c)
		}
	}
	return out
}

// renamedMessage tells how an at-least-once dispatcher published job's
// message under an id other than its own ("" when every delivery carried
// it): a message id other than the event's, or two message ids at all. A
// consumer that drops duplicates by message id cannot drop those. A stream
// or list message carries its id in a field (the append's MessageID); a
// BullMQ job carries it as its jobId.
func (ix *index) renamedMessage(job string, cs []creation) string {
	want := job
	if es := ix.eventsByJob[job]; len(es) > 0 && es[0].MessageID != "" {
		want = es[0].MessageID
	}
	ids := map[string]bool{}
	for _, c := range cs {
		switch {
		case c.Append != nil && c.Append.MessageID != "":
			ids[c.Append.MessageID] = true
		case c.Append == nil && c.BullID != "":
			ids[c.BullID] = true
		}
	}
	delete(ids, want)
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("Job %s (message id %s) was delivered %s, %s under another message id (%s): %s, so a consumer that drops duplicates by message id cannot tell it is the same message.",
		job, want, times(len(cs)), count(len(ids), "id", "ids"), strings.Join(sortedKeys(ids), ", "), ix.creationList(cs))
}

// span is the window of a duplicate's creations and takes, and its focus
// (the second creation or take).
func (ix *index) span(cs []creation, takes []history.Take) (from, to, focus time.Time) {
	var ts []time.Time
	for _, c := range cs {
		ts = append(ts, c.At)
	}
	for _, t := range takes {
		ts = append(ts, t.At)
	}
	if len(ts) == 0 {
		at := ix.run.Final.At
		return at, at, at
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	focus = ts[0]
	if len(ts) > 1 {
		focus = ts[1]
	}
	return ts[0], ts[len(ts)-1], focus
}

func (ix *index) onlyAlreadyQueued(job string) bool {
	es := ix.eventsByJob[job]
	for _, e := range es {
		if e.Kind != history.KindAlreadyQueued {
			return false
		}
	}
	return len(es) > 0
}

// creationSentence tells who created a job twice, and what happened to the
// first creator in between.
func (ix *index) creationSentence(job string, cs []creation) string {
	queues := map[string]bool{}
	ids := map[string]bool{}
	for _, c := range cs {
		queues[c.Queue] = true
		ids[c.BullID] = true
	}
	kind := ix.run.Meta.Model.SinkName()
	if kind == "BullMQ" {
		kind += " queue"
	}
	where := kind + " " + strings.Join(sortedKeys(queues), ", ")
	if len(queues) > 1 {
		where = kind + "s " + strings.Join(sortedKeys(queues), ", ")
	}
	s := fmt.Sprintf("Job %s was created %d times in %s: %s", job, len(cs), where, ix.creationList(cs))
	if len(ids) > 1 {
		s += fmt.Sprintf(" (as BullMQ jobs %s)", strings.Join(sortedKeys(ids), ", "))
	}
	if first := ix.creator(cs[0]); first != "" {
		if p, ok := ix.lastWords(first, cs[0].At, cs[1].At); ok {
			s += fmt.Sprintf(", after %s %s at %s", first, actionVerb(p.Action), clock(p.At))
		}
	}
	return s + "."
}

func (ix *index) creationList(cs []creation) string {
	var parts []string
	for i, c := range cs {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("and %d more", len(cs)-4))
			break
		}
		who := ix.creator(c)
		if who == "" {
			who = "an instance holding no claim"
		}
		parts = append(parts, fmt.Sprintf("by %s at %s", who, clock(c.At)))
	}
	return joinAnd(parts)
}

// lastWords finds what ended an instance between two times: a kill, an exit,
// a pause or a crash point.
func (ix *index) lastWords(inst string, from, to time.Time) (history.ProcessEvent, bool) {
	for _, p := range ix.run.Processes {
		if p.Instance != inst || p.At.Before(from) || p.At.After(to) {
			continue
		}
		switch p.Action {
		case "kill", "exit", "stop", "crashpoint", "term":
			return p, true
		}
	}
	return history.ProcessEvent{}, false
}

// finalDuplicate looks for a job held twice at the end: an id twice across
// one queue's lists and sets, or two BullMQ jobs matched to it. It returns
// the steps showing it and the sentence telling it ("" when none).
func (ix *index) finalDuplicate(job string) ([]Line, string) {
	p := ix.finalOf[job]
	if p == nil {
		return nil, ""
	}
	at := ix.run.Final.At
	var steps []Line
	var sentence string
	for _, k := range sortedBulls(p.lists) {
		where := p.lists[k]
		steps = append(steps, Line{At: at, Source: "redis", Text: fmt.Sprintf("final scan: job %s of queue %s is in %s", k.ID, k.Queue, strings.Join(where, ", "))})
		if len(where) > 1 && sentence == "" {
			sentence = fmt.Sprintf("Job %s appears %d times in queue %s at the end (in %s).", job, len(where), k.Queue, strings.Join(where, ", "))
		}
	}
	if sentence == "" && len(p.bulls) > 1 {
		var names []string
		for _, k := range sortedBulls(p.bulls) {
			names = append(names, k.Queue+":"+k.ID)
		}
		sentence = fmt.Sprintf("Job %s is held by %d BullMQ jobs at the end (%s).", job, len(p.bulls), strings.Join(names, ", "))
	}
	return steps, sentence
}

// countedTakes drops a take that repeats an earlier take of the same BullMQ
// job after a Redis fault began between them (BullMQ redelivered it).
func countedTakes(run history.Run, takes []history.Take) []history.Take {
	var out []history.Take
	for _, t := range takes {
		redelivery := false
		for _, prev := range out {
			if prev.Queue == t.Queue && prev.JobID == t.JobID && redisFaultBetween(run, prev.At, t.At) {
				redelivery = true
				break
			}
		}
		if !redelivery {
			out = append(out, t)
		}
	}
	return out
}

func redisFaultBetween(run history.Run, from, to time.Time) bool {
	for _, f := range run.Faults {
		if (f.Target == "redis" || strings.HasPrefix(f.Target, "redis/")) && f.Start.After(from) && f.Start.Before(to) {
			return true
		}
	}
	return false
}

func takeList(takes []history.Take) string {
	var parts []string
	for _, t := range takes {
		parts = append(parts, fmt.Sprintf("by %s at %s", t.Worker, clock(t.At)))
	}
	return joinAnd(parts)
}

func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func appendUnique(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// times is "once", "twice" or "n times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}
