package check

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// CheckUntouched is I9, job untouched.
//
// Definition. For every BullMQ job hash (queue, BullMQ id), the data and opts
// read when it was created (its keyspace "new" note, or the first later read
// if the hash was already gone then) never change: not in a later keyspace
// read (an "hset" note), not in a consumer's take (its data.jobId), and not in
// the final scan. Data and opts are compared as JSON values, so a rewrite in
// another key order is not a change. A deletion (a "del", "expired" or
// "evicted" note) ends the job: a hash created again under the same id is a
// new job (I1 judges that), compared from its own creation. Each job hash is
// reported once, at its first change.
//
// With nothing proven it is unknown when the keyspace notifications had a
// gap, or when a job hash of the final scan was never read before.
func CheckUntouched(run history.Run) Result {
	ix := newIndex(run)
	t := newTally("I9", "job hash overwritten", "job hashes overwritten")
	last := map[bullKey]*history.KeyNote{}
	for _, k := range noteKeys(run.Keys) {
		last[k] = ix.checkJobReads(t, k)
	}
	unread := ix.checkFinalHashes(t, last)
	if ix.keyspaceBlind() {
		t.doubt("the keyspace notifications had a gap at %s: an overwrite between two reads may have gone unseen", clock(ix.gaps["keyspace"][0].At))
	}
	if unread > 0 {
		t.doubt("%d job hashes of the final scan had no earlier read to compare against", unread)
	}
	return t.result(count(len(last), "job hash", "job hashes") + " read, none with its data or opts changed")
}

func noteKeys(notes []history.KeyNote) []bullKey {
	seen := map[bullKey]bool{}
	var keys []bullKey
	for _, n := range notes {
		k := bullKey{n.Queue, n.JobID}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// jobRead is one reading of a job's content: a key note or a take.
type jobRead struct {
	At   time.Time
	Note *history.KeyNote
	Take *history.Take
}

// checkJobReads walks one job's reads in time order and returns the
// creation-time read of its current incarnation (nil when it was deleted).
func (ix *index) checkJobReads(t *tally, k bullKey) *history.KeyNote {
	var reads []jobRead
	for i, n := range ix.run.Keys {
		if n.Queue == k.Queue && n.JobID == k.ID {
			reads = append(reads, jobRead{At: n.At, Note: &ix.run.Keys[i]})
		}
	}
	for i, tk := range ix.run.Takes {
		if tk.Queue == k.Queue && tk.JobID == k.ID {
			reads = append(reads, jobRead{At: tk.At, Take: &ix.run.Takes[i]})
		}
	}
	sort.SliceStable(reads, func(i, j int) bool { return reads[i].At.Before(reads[j].At) })
	var base *history.KeyNote
	for _, r := range reads {
		switch {
		case r.Take != nil:
			if base != nil && r.Take.DataJobID != "" && noteData(*base) != "" && r.Take.DataJobID != noteData(*base) {
				ix.overwritten(t, k, base, r.At, "data.jobId", noteData(*base), r.Take.DataJobID, "a consumer took it")
			}
		case keyGone(r.Note.Event):
			base = nil
		case r.Note.Event == "new" || base == nil:
			base = nil
			if r.Note.Data != "" || r.Note.Opts != "" {
				base = r.Note
			}
		case r.Note.Data != "" || r.Note.Opts != "":
			ix.compareRead(t, k, base, r.Note.Data, r.Note.Opts, r.At, "it was written")
		}
	}
	return base
}

// checkFinalHashes compares the final scan's job hashes with their
// creation-time reads and returns how many had none.
func (ix *index) checkFinalHashes(t *tally, base map[bullKey]*history.KeyNote) int {
	unread := 0
	for _, q := range sortedKeys(ix.run.Final.Queues) {
		jobs := ix.run.Final.Queues[q].Jobs
		for _, id := range sortedKeys(jobs) {
			b := base[bullKey{q, id}]
			if b == nil {
				unread++
				continue
			}
			ix.compareRead(t, bullKey{q, id}, b, jobs[id].Data, jobs[id].Opts, ix.run.Final.At, "the final scan read it")
		}
	}
	return unread
}

func (ix *index) compareRead(t *tally, k bullKey, base *history.KeyNote, data, opts string, at time.Time, how string) {
	switch {
	case data != "" && base.Data != "" && !sameJSON(base.Data, data):
		ix.overwritten(t, k, base, at, "data", base.Data, data, how)
	case opts != "" && base.Opts != "" && !sameJSON(base.Opts, opts):
		ix.overwritten(t, k, base, at, "opts", base.Opts, opts, how)
	}
}

func (ix *index) overwritten(t *tally, k bullKey, base *history.KeyNote, at time.Time, field, was, now, how string) {
	if !t.once(k.Queue + "\x00" + k.ID) {
		return
	}
	jobs := matchJobs(ix, k.ID, noteData(*base))
	job := k.ID
	if len(jobs) > 0 {
		job = jobs[0]
	}
	who := ix.creator(creation{At: at, Jobs: jobs})
	summary := fmt.Sprintf("Job %s's %s in queue %s was overwritten: it was %s when created at %s, and %s when %s at %s.",
		job, field, k.Queue, quote(was), clock(base.At), quote(now), how, clock(at))
	inst := appendUnique(nil, who)
	t.fail(func() Violation {
		ev := &evidence{}
		for _, e := range ix.eventsByJob[job] {
			ix.addEvent(ev, e.ID)
		}
		ix.addJob(ev, job)
		ix.addContext(ev, base.At, at, inst...)
		return Violation{EventID: ix.firstEvent(job), JobID: job, Instances: inst, Summary: summary, Steps: ev.steps(at)}
	})
}

// sameJSON tells whether two texts are equal, or equal as JSON values.
func sameJSON(a, b string) bool {
	if a == b {
		return true
	}
	var va, vb any
	if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// keyGone tells whether a key note says the hash is gone.
func keyGone(event string) bool {
	return event == "del" || event == "expired" || event == "evicted"
}
