package reports

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// holding is one claim on a row, from its claim to the row's next change.
type holding struct {
	inst     string
	from, to time.Time // to is zero while still held
}

// claimHolders lists who held each of the scope's rows and when, so that a
// Redis add can be attributed to the instance holding the claim at the time.
// Redis does not say who added a job; the page marks the attribution as
// inferred.
func claimHolders(l *lookup, sc scope) []holding {
	var out []holding
	for _, id := range sc.events {
		ts := l.outboxByRow[id]
		for i, t := range ts {
			if t.NewStatus != history.StatusProcessing || t.LockedBy == "" {
				continue
			}
			h := holding{inst: t.LockedBy, from: t.At}
			if i+1 < len(ts) {
				h.to = ts[i+1].At
			}
			out = append(out, h)
		}
	}
	return out
}

func holderAt(hs []holding, at time.Time) string {
	who := ""
	for _, h := range hs {
		if !at.Before(h.from) && (h.to.IsZero() || at.Before(h.to)) {
			if who != "" && who != h.inst {
				return "" // two claims at once: do not guess
			}
			who = h.inst
		}
	}
	return who
}

// Stream events too routine to draw: every job has them.
var routineStream = map[string]bool{"waiting": true, "active": true, "progress": true, "drained": true}

// redisItems: adds and other stream entries, job key writes, consumer takes.
func (l *lookup) redisItems(sc scope, holders []holding) []item {
	var out []item
	for _, b := range sc.bull {
		added := 0
		start := len(out)
		for _, s := range l.streamByJob[b] {
			if routineStream[s.Event] {
				continue
			}
			it := item{at: s.At, lane: laneRedis, shape: "redis", label: s.Event, label2: "job " + truncate(b, 10), title: streamTitle(s)}
			switch s.Event {
			case "added":
				added++
				it.shape = "add"
				if added > 1 {
					it.shape, it.label = "dup", "added again"
				}
				if who := holderAt(holders, s.At); who != "" {
					it.from = who
					it.title += " — while " + who + " held the claim (inferred: Redis does not say who added)"
				}
			case "duplicated":
				it.shape = "dup"
			}
			out = append(out, it)
		}
		for _, k := range l.keysByJob[b] {
			if k.Event == "new" && added > 0 {
				continue
			}
			if k.Event == "del" && foldRemoval(out[start:], k) {
				continue
			}
			shape := "redis"
			if k.Event == "hset" {
				shape = "dup"
			}
			out = append(out, item{at: k.At, lane: laneRedis, shape: shape, label: "key " + k.Event, label2: "job " + truncate(b, 10),
				title: clock(k.At) + " Redis job hash " + k.Queue + ":" + b + " " + k.Event + " data=" + k.Data + " opts=" + k.Opts})
		}
		for _, t := range l.takesByJob[b] {
			out = append(out, item{at: t.At, lane: laneConsumer, shape: "take", label: "took", label2: truncate(t.Worker, 14),
				title: clock(t.At) + " consumer " + t.Worker + " took job " + t.JobID + " (data.jobId " + t.DataJobID + ") from " + t.Queue})
		}
	}
	return out
}

// foldRemoval notes a job hash's deletion on the completed (or failed)
// entry just before it, instead of drawing a column of its own.
func foldRemoval(items []item, k history.KeyNote) bool {
	for i := len(items) - 1; i >= 0; i-- {
		it := &items[i]
		if it.lane != laneRedis || (it.label != "completed" && it.label != "failed") {
			continue
		}
		if d := k.At.Sub(it.at); d >= 0 && d <= 100*time.Millisecond {
			it.label2 = "+ key removed"
			it.title += "; job hash deleted at " + clock(k.At)
			return true
		}
	}
	return false
}

func streamTitle(s history.StreamEntry) string {
	var b strings.Builder
	b.WriteString(clock(s.At) + " Redis stream of " + s.Queue + ": " + s.Event + " job " + s.JobID)
	if s.Name != "" {
		b.WriteString(" (" + s.Name + ")")
	}
	for _, k := range slices.Sorted(maps.Keys(s.Extra)) {
		b.WriteString(", " + k + "=" + s.Extra[k])
	}
	b.WriteString(", stream id " + s.ID)
	return b.String()
}
