package check

import (
	"sort"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// bullKey names one BullMQ job: its queue and its BullMQ id.
type bullKey struct{ Queue, ID string }

// creation is one BullMQ job creation, seen in the events stream, in the
// keyspace notifications, or in both.
type creation struct {
	Queue  string
	BullID string
	At     time.Time
	Data   string // data.jobId, when known
	Stream *history.StreamEntry
	Key    *history.KeyNote
	Append *history.Append // a stream or list sink's message
	Jobs   []string        // the ai_jobs ids it is matched to
}

// creationSet is every creation of a run, matched to ai_jobs rows.
type creationSet struct {
	byJob     map[string][]creation
	unmatched []creation
	dataOf    map[bullKey]string        // BullMQ job -> data.jobId, from any source
	takes     map[string][]history.Take // by ai_jobs id
}

// findCreations pairs the stream's "added" entries with the keyspace's "new"
// notes per BullMQ job (the same creation shows in both, in the same order),
// then matches each creation to ai_jobs rows. A "new" note
// whose hash was already gone when read (no data) is weak: a worker that pops
// an id without a hash also creates one. A weak note only counts on its own
// when the queue's stream had a gap, so it might be the only trace.
func findCreations(ix *index) creationSet {
	cs := creationSet{byJob: map[string][]creation{}, dataOf: dataSources(ix.run), takes: map[string][]history.Take{}}
	adds := map[bullKey][]history.StreamEntry{}
	news := map[bullKey][]history.KeyNote{}
	for _, e := range ix.run.Stream {
		if e.Event == "added" {
			k := bullKey{e.Queue, e.JobID}
			adds[k] = append(adds[k], e)
		}
	}
	for _, n := range ix.run.Keys {
		if n.Event == "new" && !reservedKey(n.JobID) {
			k := bullKey{n.Queue, n.JobID}
			news[k] = append(news[k], n)
		}
	}
	var all []creation
	for _, k := range unionKeys(adds, news) {
		all = append(all, pairCreations(ix, k, adds[k], news[k])...)
	}
	all = append(all, appendCreations(ix.run)...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].At.Before(all[j].At) })
	for _, c := range all {
		if c.Data == "" {
			c.Data = cs.dataOf[bullKey{c.Queue, c.BullID}]
		}
		c.Jobs = matchJobs(ix, c.BullID, c.Data)
		if len(c.Jobs) == 0 {
			cs.unmatched = append(cs.unmatched, c)
		}
		for _, j := range c.Jobs {
			cs.byJob[j] = append(cs.byJob[j], c)
		}
	}
	for _, t := range ix.run.Takes {
		data := t.DataJobID
		if data == "" {
			data = cs.dataOf[bullKey{t.Queue, t.JobID}]
		}
		for _, j := range matchJobs(ix, t.JobID, data) {
			cs.takes[j] = append(cs.takes[j], t)
		}
	}
	return cs
}

// appendCreations makes a creation of every message a stream or list sink
// received, seen live or only by the final scan. Its id is the message id
// it carries, else the payload's jobId.
func appendCreations(run history.Run) []creation {
	all := append(append([]history.Append(nil), run.Appends...), run.Final.Appends...)
	out := make([]creation, 0, len(all))
	for i := range all {
		a := &all[i]
		id := a.MessageID
		if id == "" {
			id = a.DataJobID
		}
		out = append(out, creation{Queue: a.Key, BullID: id, At: a.At, Data: a.DataJobID, Append: a})
	}
	return out
}

func unionKeys(adds map[bullKey][]history.StreamEntry, news map[bullKey][]history.KeyNote) []bullKey {
	var keys []bullKey
	for k := range adds {
		keys = append(keys, k)
	}
	for k := range news {
		if _, ok := adds[k]; !ok {
			keys = append(keys, k)
		}
	}
	sortBullKeys(keys)
	return keys
}

// pairCreations pairs a job key's stream "added" entries with its keyspace
// "new" notes in order: both sources see the same sequence of creations of
// one key (a key is created again only after it was deleted), so the i-th of
// one is the i-th of the other however late an observer read it. Whatever is
// left over on either side is a creation the other source missed. A weak note
// takes part only when the queue's stream had a gap.
func pairCreations(ix *index, k bullKey, adds []history.StreamEntry, news []history.KeyNote) []creation {
	sort.SliceStable(adds, func(i, j int) bool { return adds[i].At.Before(adds[j].At) })
	var notes []history.KeyNote
	for _, n := range news {
		if strongNote(n) || ix.streamBlind(k.Queue) {
			notes = append(notes, n)
		}
	}
	sort.SliceStable(notes, func(i, j int) bool { return notes[i].At.Before(notes[j].At) })
	var out []creation
	for i := 0; i < len(adds) || i < len(notes); i++ {
		c := creation{Queue: k.Queue, BullID: k.ID}
		if i < len(adds) {
			c.Stream, c.At = &adds[i], adds[i].At
		}
		if i < len(notes) {
			c.Key, c.Data = &notes[i], noteData(notes[i])
			if c.Stream == nil || notes[i].At.Before(c.At) {
				c.At = notes[i].At
			}
		}
		out = append(out, c)
	}
	return out
}

// reservedKey tells whether a name under a queue's prefix is one of BullMQ's
// own keys rather than a job hash (an observer that does not filter them
// would otherwise report each as a creation).
func reservedKey(name string) bool {
	switch name {
	case "id", "wait", "paused", "meta", "events", "marker", "active", "completed", "failed",
		"prioritized", "delayed", "pc", "stalled", "stalled-check", "limiter", "repeat", "metrics", "de", "waiting-children":
		return true
	}
	return false
}

func strongNote(n history.KeyNote) bool { return n.Data != "" || n.DataJobID != "" }

func noteData(n history.KeyNote) string {
	if n.DataJobID != "" {
		return n.DataJobID
	}
	return history.DataJobID(n.Data)
}

// dataSources maps BullMQ jobs to their data.jobId from every source that
// read a job's data: keyspace notes, the final scan and consumer takes.
func dataSources(run history.Run) map[bullKey]string {
	m := map[bullKey]string{}
	put := func(q, id, data string) {
		if data != "" && m[bullKey{q, id}] == "" {
			m[bullKey{q, id}] = data
		}
	}
	for _, n := range run.Keys {
		put(n.Queue, n.JobID, noteData(n))
	}
	for q, scan := range run.Final.Queues {
		for id, h := range scan.Jobs {
			put(q, id, hashData(h))
		}
	}
	for _, t := range run.Takes {
		put(t.Queue, t.JobID, t.DataJobID)
	}
	return m
}

func hashData(h history.JobHash) string {
	if h.DataJobID != "" {
		return h.DataJobID
	}
	return history.DataJobID(h.Data)
}

// matchJobs matches a BullMQ job to ai_jobs rows: by its data.jobId when
// known, and by its BullMQ id. An all-digit BullMQ id is BullMQ's own
// counter (the dispatcher gave no jobId) and is not matched by id when the
// data names the job.
func matchJobs(ix *index, bullID, data string) []string {
	var out []string
	for _, cand := range history.JobCandidates(bullID, data) {
		if job := ix.jobOf(cand); ix.knownJob(job) {
			out = appendUnique(out, job)
		}
	}
	if len(out) == 0 && history.AllDigits(bullID) && data != "" {
		// an outbox's integer id as a message id, with data naming no job
		if job := ix.jobOf(bullID); job != bullID && ix.knownJob(job) {
			out = append(out, job)
		}
	}
	return out
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// created tells whether any source saw a BullMQ job for an ai_jobs row: a
// creation, a take, or the final scan.
func (ix *index) created(job string) bool {
	return len(ix.creations.byJob[job]) > 0 || len(ix.creations.takes[job]) > 0 || ix.finalOf[job] != nil
}

// creator is the instance that held a claim on an event of the job when the
// creation happened ("" when none did).
func (ix *index) creator(c creation) string {
	var best *hold
	for _, job := range c.Jobs {
		for _, e := range ix.eventsByJob[job] {
			for i, h := range ix.holds[e.ID] {
				if h.Start.After(c.At.Add(ClockSlack)) {
					continue
				}
				if h.End != nil && h.End.At.Before(c.At.Add(-ClockSlack)) {
					continue
				}
				if best == nil || h.Start.After(best.Start) {
					best = &ix.holds[e.ID][i]
				}
			}
		}
	}
	if best == nil {
		return ""
	}
	return best.Owner
}
