package reports

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
	"github.com/outboxchaos/outboxchaos/harness/verdict"
)

// runIndex holds the per-event facts the counts, charts and swimlanes share.
// Outbox rows are keyed by the event id as text, as transitions name them.
type runIndex struct {
	events    map[string]history.Event
	order     []string             // event ids in produce order
	published map[string]time.Time // first transition to published
	endStatus map[string]string
	outbox    []history.Transition // outbox transitions in sequence order
}

func indexRun(run history.Run) runIndex {
	ix := runIndex{
		events:    make(map[string]history.Event, len(run.Events)),
		published: make(map[string]time.Time),
		endStatus: make(map[string]string),
	}
	for _, e := range run.Events {
		id := strconv.FormatInt(e.ID, 10)
		if _, dup := ix.events[id]; !dup {
			ix.order = append(ix.order, id)
		}
		ix.events[id] = e
	}
	trans := append([]history.Transition(nil), run.Transitions...)
	sort.SliceStable(trans, func(i, j int) bool { return trans[i].Seq < trans[j].Seq })
	for _, t := range trans {
		if t.Table != history.TableOutbox {
			continue
		}
		ix.outbox = append(ix.outbox, t)
		if t.Op == "delete" {
			delete(ix.endStatus, t.Key)
			continue
		}
		ix.endStatus[t.Key] = t.NewStatus
		if _, seen := ix.published[t.Key]; !seen && t.NewStatus == history.StatusPublished {
			ix.published[t.Key] = t.At
		}
	}
	for _, row := range run.Final.Outbox {
		id := strconv.FormatInt(row.ID, 10)
		ix.endStatus[id] = row.Status
		if _, seen := ix.published[id]; !seen && row.PublishedAt != nil {
			ix.published[id] = *row.PublishedAt
		}
	}
	return ix
}

// rows returns every outbox row id the run knows of: produced events first,
// then rows only the triggers or the final scan saw.
func (ix runIndex) rows() []string {
	ids := append([]string(nil), ix.order...)
	extra := make([]string, 0)
	for id := range ix.endStatus {
		if _, ok := ix.events[id]; !ok {
			extra = append(extra, id)
		}
	}
	sort.Strings(extra)
	return append(ids, extra...)
}

// latencySample is one event's commit-to-published latency.
type latencySample struct {
	at time.Time // when it was published
	d  time.Duration
}

// latencies returns the commit-to-published latency of every published event
// whose commit the workload recorded, in publish order.
func (ix runIndex) latencies() []latencySample {
	out := make([]latencySample, 0, len(ix.published))
	for _, id := range ix.order {
		at, ok := ix.published[id]
		if !ok {
			continue
		}
		d := at.Sub(ix.events[id].Produced)
		if d < 0 {
			d = 0 // database and harness clocks differ by a hair
		}
		out = append(out, latencySample{at: at, d: d})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

func summarizeLatency(samples []latencySample) verdict.Latency {
	ds := make([]time.Duration, len(samples))
	for i, s := range samples {
		ds[i] = s.d
	}
	q, ok := check.Summarize(ds)
	if !ok {
		return verdict.Latency{}
	}
	return verdict.Latency{Samples: q.Count, P50Ms: millis(q.P50), P99Ms: millis(q.P99), MaxMs: millis(q.Max)}
}

// millis converts to milliseconds rounded to the microsecond.
func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

func countRun(run history.Run, ix runIndex) verdict.Counts {
	c := verdict.Counts{
		Events:      len(ix.rows()),
		Takes:       len(run.Takes),
		Transitions: len(run.Transitions),
		Faults:      len(run.Faults),
		Gaps:        len(run.Gaps),
		Instances:   len(instances(run)),
		JobsCreated: jobsCreated(run),
	}
	for id, e := range ix.events {
		if e.Kind == "" || e.Kind == history.KindValid || e.Kind == history.KindAlreadyQueued {
			c.Valid++
			if ix.endStatus[id] == history.StatusFailed {
				c.ValidFailed++
			}
		} else {
			c.Poison++
		}
	}
	for _, id := range ix.rows() {
		switch ix.endStatus[id] {
		case history.StatusPublished:
			c.Published++
		case history.StatusFailed:
			c.Failed++
		default:
			c.Unfinished++
		}
	}
	return c
}

// jobsCreated counts job creations Redis showed: "added" entries of the
// events streams, or new job keys when no stream was recorded.
func jobsCreated(run history.Run) int {
	n := 0
	for _, s := range run.Stream {
		if s.Event == "added" {
			n++
		}
	}
	if n > 0 || len(run.Stream) > 0 {
		return n
	}
	for _, k := range run.Keys {
		if k.Event == "new" {
			n++
		}
	}
	return n
}

// instances returns every dispatcher instance id the run saw, sorted: those
// the supervisor started, or, for a run without process events, those that
// locked outbox rows.
func instances(run history.Run) []string {
	var ids []string
	for _, p := range run.Processes {
		ids = append(ids, p.Instance)
	}
	if len(ids) == 0 {
		for _, t := range run.Transitions {
			ids = append(ids, t.LockedBy)
		}
	}
	return distinctSorted(ids)
}

// distinctSorted returns the non-empty strings of vals, each once, sorted,
// leaving out those in skip.
func distinctSorted(vals []string, skip ...string) []string {
	out := slices.DeleteFunc(slices.Clone(vals), func(v string) bool { return v == "" || slices.Contains(skip, v) })
	slices.Sort(out)
	return slices.Compact(out)
}

// runSpan is the run's time range: the meta's start and end, or the range of
// everything recorded when the meta lacks them.
func runSpan(run history.Run) span {
	s := span{start: run.Meta.Started, end: run.Meta.Ended}
	if !s.start.IsZero() && !s.end.IsZero() && s.end.After(s.start) {
		return s
	}
	var lo, hi time.Time
	see := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if lo.IsZero() || t.Before(lo) {
			lo = t
		}
		if t.After(hi) {
			hi = t
		}
	}
	for _, e := range run.Events {
		see(e.Produced)
	}
	for _, t := range run.Transitions {
		see(t.At)
	}
	for _, p := range run.Processes {
		see(p.At)
	}
	for _, f := range run.Faults {
		see(f.Start)
		see(f.End)
	}
	see(run.Final.At)
	if s.start.IsZero() || (!lo.IsZero() && lo.Before(s.start)) {
		s.start = lo
	}
	if s.end.IsZero() || hi.After(s.end) {
		s.end = hi
	}
	return s
}

// backlogPoint is the number of outbox rows pending or processing right
// after a transition.
type backlogPoint struct {
	at                  time.Time
	pending, processing int
}

// backlog replays the outbox transitions and returns the backlog after each.
func (ix runIndex) backlog() []backlogPoint {
	status := make(map[string]string)
	var pending, processing int
	move := func(s string, d int) {
		switch s {
		case history.StatusPending:
			pending += d
		case history.StatusProcessing:
			processing += d
		}
	}
	out := make([]backlogPoint, 0, len(ix.outbox))
	for _, t := range ix.outbox {
		move(status[t.Key], -1)
		if t.Op == "delete" {
			delete(status, t.Key)
		} else {
			status[t.Key] = t.NewStatus
			move(t.NewStatus, +1)
		}
		out = append(out, backlogPoint{at: t.At, pending: pending, processing: processing})
	}
	return out
}
