package reports

import (
	"strconv"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// lookup finds everything the run recorded about one event or one job,
// without scanning the whole run for every violation.
type lookup struct {
	run          history.Run
	eventsByID   map[string]history.Event
	eventsByJob  map[string][]string // ai_jobs.id -> outbox event ids
	outboxByRow  map[string][]history.Transition
	jobsByRow    map[string][]history.Transition
	streamByJob  map[string][]history.StreamEntry // by BullMQ job id
	keysByJob    map[string][]history.KeyNote     // by BullMQ job id
	takesByJob   map[string][]history.Take        // by BullMQ job id and by data jobId
	bullIDsByJob map[string][]string              // ai_jobs.id -> BullMQ ids whose data names it
	finalByRow   map[string]history.OutboxRow
	procByInst   map[string][]history.ProcessEvent
	instances    map[string]bool // every dispatcher instance of the run
}

func newLookup(run history.Run) *lookup {
	l := &lookup{
		run:          run,
		eventsByID:   make(map[string]history.Event, len(run.Events)),
		eventsByJob:  make(map[string][]string),
		outboxByRow:  make(map[string][]history.Transition),
		jobsByRow:    make(map[string][]history.Transition),
		streamByJob:  make(map[string][]history.StreamEntry),
		keysByJob:    make(map[string][]history.KeyNote),
		takesByJob:   make(map[string][]history.Take),
		bullIDsByJob: make(map[string][]string),
		finalByRow:   make(map[string]history.OutboxRow, len(run.Final.Outbox)),
		procByInst:   make(map[string][]history.ProcessEvent),
	}
	for _, e := range run.Events {
		id := strconv.FormatInt(e.ID, 10)
		l.eventsByID[id] = e
		l.eventsByJob[e.JobID] = append(l.eventsByJob[e.JobID], id)
	}
	for _, t := range run.Transitions {
		if t.Table == history.TableJobs {
			l.jobsByRow[t.Key] = append(l.jobsByRow[t.Key], t)
		} else {
			l.outboxByRow[t.Key] = append(l.outboxByRow[t.Key], t)
		}
	}
	for _, s := range run.Stream {
		l.streamByJob[s.JobID] = append(l.streamByJob[s.JobID], s)
	}
	for _, k := range run.Keys {
		l.keysByJob[k.JobID] = append(l.keysByJob[k.JobID], k)
		l.alias(k.DataJobID, k.JobID)
	}
	for _, t := range run.Takes {
		l.takesByJob[t.JobID] = append(l.takesByJob[t.JobID], t)
		l.alias(t.DataJobID, t.JobID)
	}
	for _, q := range run.Final.Queues {
		for id, h := range q.Jobs {
			l.alias(h.DataJobID, id)
		}
	}
	for _, r := range run.Final.Outbox {
		l.finalByRow[strconv.FormatInt(r.ID, 10)] = r
	}
	for _, p := range run.Processes {
		l.procByInst[p.Instance] = append(l.procByInst[p.Instance], p)
	}
	l.instances = make(map[string]bool)
	for _, inst := range instances(run) {
		l.instances[inst] = true
	}
	return l
}

// alias records that BullMQ job bullID carries data.jobId jobID.
func (l *lookup) alias(jobID, bullID string) {
	if jobID == "" || bullID == "" || jobID == bullID {
		return
	}
	for _, b := range l.bullIDsByJob[jobID] {
		if b == bullID {
			return
		}
	}
	l.bullIDsByJob[jobID] = append(l.bullIDsByJob[jobID], bullID)
}

// scope is what one violation is about: outbox rows, ai_jobs ids, and the
// BullMQ ids that stand for those jobs.
type scope struct {
	events []string
	jobs   []string
	bull   []string
}

func (l *lookup) scopeOf(eventID int64, jobID string) scope {
	var sc scope
	seenE, seenJ, seenB := map[string]bool{}, map[string]bool{}, map[string]bool{}
	addE := func(id string) {
		if id != "" && id != "0" && !seenE[id] {
			seenE[id] = true
			sc.events = append(sc.events, id)
		}
	}
	addJ := func(id string) {
		if id != "" && !seenJ[id] {
			seenJ[id] = true
			sc.jobs = append(sc.jobs, id)
		}
	}
	addE(strconv.FormatInt(eventID, 10))
	if e, ok := l.eventsByID[strconv.FormatInt(eventID, 10)]; ok {
		addJ(e.JobID)
	}
	if r, ok := l.finalByRow[strconv.FormatInt(eventID, 10)]; ok {
		addJ(r.JobID)
	}
	addJ(jobID)
	for _, j := range sc.jobs {
		for _, e := range l.eventsByJob[j] {
			addE(e)
		}
	}
	for _, j := range sc.jobs {
		for _, b := range append([]string{j}, l.bullIDsByJob[j]...) {
			if !seenB[b] {
				seenB[b] = true
				sc.bull = append(sc.bull, b)
			}
		}
	}
	return sc
}
