package check

import (
	"sort"
	"strings"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// index is a run read once into the lookups every checker needs. It copies
// what it sorts: checkers never change the run they are given.
type index struct {
	run         history.Run
	events      []history.Event // by id
	eventByID   map[int64]history.Event
	eventsByJob map[string][]history.Event
	// byMessage maps an event's MessageID to its JobID: a sink's message is
	// matched by either.
	byMessage   map[string]string
	outbox      map[int64][]history.Transition // by event, in sequence order
	jobs        map[string][]history.Transition
	finalOutbox map[int64]history.OutboxRow
	finalJobs   map[string]history.JobRow
	holds       map[int64][]hold
	moves       map[int64][]move   // per event, parallel to outbox (moves.go)
	why         map[int64][]string // per event, parallel to outbox: why a move is moveUnclear
	lv          liveness
	gaps        map[string][]history.Gap // by source
	creations   creationSet
	streamOf    map[string][]history.StreamEntry // by ai_jobs id
	keysOf      map[string][]history.KeyNote
	finalOf     map[string]*finalPresence
	commandsOf  map[string][]history.Command // by job id: the proxy's command log (proxyfacts.go)
	lost        []LostAdd                    // jobs Redis lost after running their adds (redisloss.go)
	rereads     []history.Append             // list elements a restore handed out again (splitRereads)
}

func newIndex(run history.Run) *index {
	var rereads []history.Append
	run.Stream = uniqueStream(run.Stream)
	run.Appends, rereads = splitRereads(run, uniqueAppends(run.Appends))
	ix := &index{
		rereads:     rereads,
		run:         run,
		eventByID:   map[int64]history.Event{},
		eventsByJob: map[string][]history.Event{},
		byMessage:   map[string]string{},
		outbox:      map[int64][]history.Transition{},
		jobs:        map[string][]history.Transition{},
		finalOutbox: map[int64]history.OutboxRow{},
		finalJobs:   map[string]history.JobRow{},
		holds:       map[int64][]hold{},
		moves:       map[int64][]move{},
		why:         map[int64][]string{},
		lv:          newLiveness(run),
		gaps:        map[string][]history.Gap{},
		commandsOf:  map[string][]history.Command{},
	}
	for _, c := range run.Commands {
		for _, j := range c.Jobs {
			ix.commandsOf[j] = append(ix.commandsOf[j], c)
		}
	}
	ix.events = append([]history.Event(nil), run.Events...)
	sort.SliceStable(ix.events, func(i, j int) bool { return ix.events[i].ID < ix.events[j].ID })
	for _, e := range ix.events {
		ix.eventByID[e.ID] = e
		ix.eventsByJob[e.JobID] = append(ix.eventsByJob[e.JobID], e)
		if e.MessageID != "" && e.MessageID != e.JobID {
			ix.byMessage[e.MessageID] = e.JobID
		}
	}
	ix.indexTransitions()
	for _, r := range run.Final.Outbox {
		ix.finalOutbox[r.ID] = r
	}
	for _, r := range run.Final.Jobs {
		ix.finalJobs[r.ID] = r
	}
	quiet := quietWindows(run)
	for _, g := range run.Gaps {
		if !explainedGap(quiet, g) {
			ix.gaps[g.Source] = append(ix.gaps[g.Source], g)
		}
	}
	ix.creations = findCreations(ix)
	ix.indexRedis()
	ix.lost = ix.lostAdds()
	return ix
}

func (ix *index) indexTransitions() {
	ts := append([]history.Transition(nil), ix.run.Transitions...)
	sort.SliceStable(ts, func(i, j int) bool {
		if ts[i].Seq != ts[j].Seq {
			return ts[i].Seq < ts[j].Seq
		}
		return ts[i].At.Before(ts[j].At)
	})
	for _, t := range ts {
		switch t.Table {
		case history.TableOutbox:
			id, ok := t.EventID()
			if !ok {
				continue
			}
			ix.outbox[id] = append(ix.outbox[id], t)
		case history.TableJobs:
			ix.jobs[t.Key] = append(ix.jobs[t.Key], t)
		}
	}
	c := moveReader{run: ix.run, lv: ix.lv, conv: ix.run.Meta.Conventions, facts: newProxyFacts(ix.run)}
	for id, list := range ix.outbox {
		read := c.readMoves(id, list)
		ix.holds[id], ix.moves[id], ix.why[id] = read.holds, read.moves, read.why
	}
}

// moveAt is the move of event id's i-th transition.
func (ix *index) moveAt(id int64, i int) move { return ix.moves[id][i] }

// unclear returns event id's returns to pending that the history cannot tell
// (moveUnclear), each with why.
func (ix *index) unclear(id int64) []string {
	var out []string
	for i, m := range ix.moves[id] {
		if m == moveUnclear {
			out = append(out, ix.why[id][i])
		}
	}
	return out
}

// jobOf is the job (an event's JobID) a sink's id names: the job itself,
// or the job whose event carries it as its MessageID.
func (ix *index) jobOf(id string) string {
	if j, ok := ix.byMessage[id]; ok {
		return j
	}
	return id
}

// hasJobs tells whether the outbox has a jobs table whose rows the
// dispatcher moves (the contract's ai_jobs).
func (ix *index) hasJobs() bool { return ix.run.Meta.Model.Has(history.LackJobs) }

// sinkJob names what the sink holds for one job, for sentences ("BullMQ
// job", "message").
func (ix *index) sinkJob() string {
	if ix.run.Meta.Model.Sink == history.SinkBullMQ {
		return "BullMQ job"
	}
	return "message"
}

// knownJob tells whether id names an ai_jobs row or an event's job.
func (ix *index) knownJob(id string) bool {
	if id == "" {
		return false
	}
	if _, ok := ix.eventsByJob[id]; ok {
		return true
	}
	if _, ok := ix.finalJobs[id]; ok {
		return true
	}
	_, ok := ix.jobs[id]
	return ok
}

// firstEvent returns the lowest-id event about a job (0 if none).
func (ix *index) firstEvent(job string) int64 {
	if es := ix.eventsByJob[job]; len(es) > 0 {
		return es[0].ID
	}
	return 0
}

// jobStatus is a job row's final status ("" when the row does not exist).
func (ix *index) jobStatus(job string) string { return ix.finalJobs[job].Status }

// queuedOrLater tells whether a job status is queued or a worker's later state.
func queuedOrLater(status string) bool { return status != "" && status != history.JobCreated }

// triggersGap returns the first gap in the MySQL triggers, if any.
func (ix *index) triggersGap() (history.Gap, bool) {
	if gs := ix.gaps["triggers"]; len(gs) > 0 {
		return gs[0], true
	}
	return history.Gap{}, false
}

// doubtTriggersGap makes t doubt what it has not proven when the triggers
// had a gap: what (a retry, a takeover) may have gone unseen in it.
func (ix *index) doubtTriggersGap(t *tally, what string) {
	if g, ok := ix.triggersGap(); ok {
		t.doubt("the MySQL triggers had a gap at %s: %s may have gone unseen", clock(g.At), what)
	}
}

// streamBlind tells whether queue q's events stream cannot be trusted to hold
// every creation: a gap was recorded for it.
func (ix *index) streamBlind(q string) bool { return len(ix.gaps["stream:"+q]) > 0 }

// keyspaceBlind tells whether keyspace notifications may have missed a
// creation: a gap was recorded for them.
func (ix *index) keyspaceBlind() bool { return len(ix.gaps["keyspace"]) > 0 }

// creationsBlind tells whether both creation sources may have missed a
// creation in queue q; for a stream or list sink, whether its observer had
// a gap on q.
func (ix *index) creationsBlind(q string) bool {
	if ix.run.Meta.Model.Sink != history.SinkBullMQ {
		return len(ix.gaps["sink:"+q]) > 0
	}
	return ix.streamBlind(q) && ix.keyspaceBlind()
}

// anyCreationsBlind tells whether creationsBlind holds for some queue.
func (ix *index) anyCreationsBlind() (string, bool) {
	for _, q := range ix.queues() {
		if ix.creationsBlind(q) {
			return q, true
		}
	}
	return "", false
}

// queues lists every queue the run names, sorted.
func (ix *index) queues() []string {
	seen := map[string]bool{}
	for _, q := range ix.run.Meta.Queues {
		seen[q] = true
	}
	for _, e := range ix.events {
		if e.Queue != "" {
			seen[e.Queue] = true
		}
	}
	for q := range ix.run.Final.Queues {
		seen[q] = true
	}
	for src := range ix.gaps {
		if q, ok := strings.CutPrefix(src, "stream:"); ok {
			seen[q] = true
		}
	}
	out := make([]string, 0, len(seen))
	for q := range seen {
		out = append(out, q)
	}
	sort.Strings(out)
	return out
}
