package check

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// judgeUntouched is I9, job untouched.
//
// Definition. For every BullMQ job hash (queue, BullMQ id), the data and opts
// of its first read (its keyspace "new" note; else the first later read: a
// "scan" note the observer records for every job hash after a keyspace gap,
// or an "hset"/"hdel" note) never change: not in a later keyspace read, not
// in a consumer's take (its data.jobId), and not in the final scan. Data and
// opts are compared as JSON values, so a rewrite in another key order is not
// a change. A deletion (a "del", "expired" or "evicted" note) ends the job: a
// hash created again under the same id is a new job (I1 judges that),
// compared from its own creation. Each job hash is reported once, at its
// first change.
//
// Keyspace gaps. A gap's window runs from the gap (the observer dates it
// from its last heartbeat answered, before anything was lost) to the first
// "scan" note after it (the observer scans every job hash once it is back),
// or to the final scan when no scan came. A job hash's lifetime runs from its
// creation (stream "added" or keyspace "new", one creation when both show it
// within pairWindow) or, when none was seen, its first read, to its deletion,
// the final scan, or, when it vanished unseen, its next creation or the end
// of the run. A lifetime meets a window when they overlap, unless a "new"
// note at or after the window's end shows its creation: then the
// notifications were back and saw it from the start. A gap blinds I9 only
// for a job hash whose lifetime meets a window and that has no read (a key
// note with data or opts, or the final scan) at or after the window's end:
// for example one created before the gap and deleted during it, or created
// during it and deleted before the scan read it. A job hash with such a read
// is compared as usual from its first read: an overwrite in the gap shows as
// a difference from the read before it, when there is one. A job created
// and deleted inside a window is seen only through its queue's events
// stream, so a stream gap of that queue within pairWindow of a window blinds
// I9 too.
//
// With nothing proven it is unknown when a gap blinds it as above, or when a
// job hash of the final scan was never read before.
func (ix *index) judgeUntouched(t *tally) Result {
	last := map[bullKey]*history.KeyNote{}
	for _, k := range noteKeys(ix.run.Keys) {
		last[k] = ix.checkJobReads(t, k)
	}
	unread := ix.checkFinalHashes(t, last)
	windows := ix.keyspaceWindows()
	blind := ix.keyspaceBlindSpots(windows)
	if len(blind.unread) > 0 {
		l, w := blind.unread[0], blind.window[0]
		more := ""
		if n := len(blind.unread) - 1; n > 0 {
			more = fmt.Sprintf(" (and %s)", count(n, "other job hash", "other job hashes"))
		}
		t.doubt("job hash %s:%s%s lived through the keyspace gap at %s with no read after it: an overwrite in that gap may have gone unseen",
			l.Key.Queue, l.Key.ID, more, clock(w.From))
	}
	for _, d := range blind.stream {
		t.doubt("%s", d)
	}
	if unread > 0 {
		t.doubt("%d job hashes of the final scan had no earlier read to compare against", unread)
	}
	if len(last) == 0 && unread == 0 {
		t.nothing("no BullMQ job hash was read in this run")
	}
	reason := count(len(last), "job hash", "job hashes") + " read, none with its data or opts changed"
	switch len(windows) {
	case 0:
	case 1:
		reason += "; every job hash alive during the keyspace gap at " + clock(windows[0].From) + " was read after it"
	default:
		reason += fmt.Sprintf("; every job hash alive during the %d keyspace gaps was read after them", len(windows))
	}
	return t.result(reason)
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
			ix.compareRead(t, k, base, r.Note.Data, r.Note.Opts, r.At, readHow(*r.Note))
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
	first := "created"
	if base.Event != "new" {
		first = "first read"
	}
	summary := fmt.Sprintf("Job %s's %s in queue %s was overwritten: it was %s when %s at %s, and %s when %s at %s.",
		job, field, k.Queue, quote(was), first, clock(base.At), quote(now), how, clock(at))
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

// readHow tells in words what a key note's read was.
func readHow(n history.KeyNote) string {
	if n.Event == eventScan {
		return "the observer's scan read it after a keyspace gap"
	}
	return "it was written"
}

// keyGone tells whether a key note says the hash is gone.
func keyGone(event string) bool {
	return event == "del" || event == "expired" || event == "evicted"
}
