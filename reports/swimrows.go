package reports

import (
	"strconv"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// leaseItems marks each claim whose lease ran out before anything else
// happened to its row: the moment a takeover became due.
func (l *lookup) leaseItems(sc scope) []item {
	end := l.run.Final.At
	if end.IsZero() {
		end = l.run.Meta.Ended
	}
	var out []item
	for _, id := range sc.events {
		ts := l.outboxByRow[id]
		for i, t := range ts {
			if t.NewStatus != history.StatusProcessing || t.LockedUntil == nil || t.LockedBy == "" {
				continue
			}
			until := *t.LockedUntil
			if (i+1 < len(ts) && !ts[i+1].At.After(until)) || until.After(end) {
				continue
			}
			out = append(out, item{at: until, lane: t.LockedBy, shape: "lease", label: "lease ends", label2: "still processing",
				title: clock(until) + " " + t.LockedBy + "'s lease on event " + id + " (token " + t.LockToken + ") ran out with the row still processing"})
		}
	}
	return out
}

// rowItems: the workload's commit, every outbox and job row change, and the
// rows as the final scan found them.
func (l *lookup) rowItems(sc scope) []item {
	var out []item
	for _, id := range sc.events {
		if e, ok := l.eventsByID[id]; ok {
			out = append(out, item{at: e.Produced, lane: laneWorkload, shape: "commit", label: "commit", label2: "event " + id,
				title: clock(e.Produced) + " workload committed event " + id + " (" + e.Kind + ", type " + e.Type + ") for job " + e.JobID + " on queue " + e.Queue})
		}
		_, committed := l.eventsByID[id]
		owners := make(map[string]string) // lock token -> instance
		for _, t := range l.outboxByRow[id] {
			if committed && t.Op == "insert" {
				continue // the workload's commit stands for it
			}
			out = append(out, outboxItem(t, owners))
		}
		if r, ok := l.finalByRow[id]; ok {
			at := l.run.Final.At
			if at.IsZero() {
				at = l.run.Meta.Ended
			}
			out = append(out, item{at: at, lane: laneRows, shape: "final", label: r.Status, label2: "final scan",
				title: "final scan: event " + id + " ended " + r.Status + " after " + strconv.Itoa(r.Attempts) + " attempts" + errSuffix(r.LastError)})
		}
	}
	for _, j := range sc.jobs {
		_, committed := l.eventsByJob[j]
		for _, t := range l.jobsByRow[j] {
			text := clock(t.At) + " ai_jobs " + j + ": " + statusChange(t)
			if committed && t.Op == "insert" {
				continue
			}
			if k := publishedWith(out, t.At); k >= 0 {
				out[k].label2 = "job→" + t.NewStatus
				out[k].title += "; in the same transaction " + text
				continue
			}
			out = append(out, item{at: t.At, lane: laneRows, shape: "update", label: "job→" + t.NewStatus, label2: truncate(j, 14), title: text})
		}
	}
	return out
}

// publishedWith finds the publish item committed with a job change at at.
func publishedWith(items []item, at time.Time) int {
	for i, it := range items {
		if it.shape == "done" && it.label2 == "" && absDuration(it.at.Sub(at)) <= time.Millisecond {
			return i
		}
	}
	return -1
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// outboxItem places one outbox transition in the lane of the instance that
// owns the row: the claimer for a claim, the row's locked_by (or the holder
// of the old lock token) for anything else.
func outboxItem(t history.Transition, owners map[string]string) item {
	it := item{at: t.At, lane: laneRows, title: transitionTitle(t)}
	owner := t.LockedBy
	if owner == "" {
		owner = owners[t.OldLockToken]
	}
	if owner != "" {
		it.lane = owner
	}
	switch {
	case t.Op == "insert":
		it.lane, it.shape, it.label, it.label2 = laneRows, "update", "insert", t.NewStatus
	case t.NewStatus == history.StatusProcessing && t.OldStatus == history.StatusProcessing && t.LockToken != t.OldLockToken:
		it.shape, it.label, it.label2 = "claim", "take over", "from "+truncate(owners[t.OldLockToken], 9)
	case t.NewStatus == history.StatusProcessing && t.OldStatus != history.StatusProcessing:
		it.shape, it.label, it.label2 = "claim", "claim", "attempt "+strconv.Itoa(t.Attempts)
	case t.NewStatus == history.StatusPublished && t.OldStatus != history.StatusPublished:
		it.shape, it.label = "done", "published"
	case t.NewStatus == history.StatusFailed && t.OldStatus != history.StatusFailed:
		it.shape, it.label, it.label2 = "fail", "failed", truncate(t.LastError, 14)
	case t.NewStatus == history.StatusPending && t.OldStatus == history.StatusProcessing:
		it.shape, it.label, it.label2 = "retry", "→ pending", "released"
		if t.LastError != "" {
			it.label2 = truncate(t.LastError, 14)
		}
	default:
		it.shape, it.label, it.label2 = "update", statusChange(t), "attempt "+strconv.Itoa(t.Attempts)
	}
	if t.NewStatus == history.StatusProcessing && t.LockedBy != "" && t.LockToken != "" {
		owners[t.LockToken] = t.LockedBy
	}
	return it
}

func statusChange(t history.Transition) string {
	switch {
	case t.Op == "delete":
		return "deleted"
	case t.OldStatus == "" || t.OldStatus == t.NewStatus:
		return t.NewStatus
	default:
		return t.OldStatus + "→" + t.NewStatus
	}
}

func transitionTitle(t history.Transition) string {
	var b strings.Builder
	b.WriteString(clock(t.At) + " outbox event " + t.Key + ": " + statusChange(t) + ", attempts " + strconv.Itoa(t.Attempts))
	if t.LockedBy != "" {
		b.WriteString(", locked_by " + t.LockedBy)
	}
	if t.LockToken != "" {
		b.WriteString(", token " + t.LockToken)
	}
	if t.OldLockToken != "" && t.OldLockToken != t.LockToken {
		b.WriteString(" (was " + t.OldLockToken + ")")
	}
	if t.LockedUntil != nil {
		b.WriteString(", locked_until " + clock(*t.LockedUntil))
	}
	if t.AvailableAt != nil {
		b.WriteString(", available_at " + clock(*t.AvailableAt))
	}
	b.WriteString(errSuffix(t.LastError))
	return b.String()
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return `, last_error "` + e + `"`
}
