package reports

import (
	"sort"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/check"
	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Swimlane geometry. Columns are ordinal: one per thing that happened, in
// time order, so a claim and an add a millisecond apart stay readable next
// to a lease that ran out two seconds later; each column shows its time.
const (
	swimLabelW  = 112.0
	swimPageW   = 1120.0 // the width a violation's drawing gets on the page
	swimMinColW = 76.0
	swimMaxColW = 120.0
	swimTop     = 52.0
	swimLaneH   = 50.0
	swimMargin  = time.Second            // process signals this close to the event are drawn
	faultMargin = 100 * time.Millisecond // faults this close to the event are drawn
)

// Lanes that are not instances.
const (
	laneWorkload = "workload"
	laneRows     = "MySQL rows"
	laneRedis    = "Redis"
	laneConsumer = "consumer"
)

// swimlane is one violation drawn per source: the workload, each instance
// (its claims, finalizes and signals), the rows, Redis and the consumer.
type swimlane struct {
	W, H                             num
	GridTop, GridBottom, TimeY, GapY num
	Lanes                            []lane
	Cols                             []column
	Bands                            []band
	Marks                            []mark
	Omitted                          int
	Empty                            string
}

type column struct {
	X, GapX  num
	Time     string
	Gap      string
	Ellipsis bool
	Title    string
}

// item is one thing that happened, before layout.
type item struct {
	at       time.Time
	lane     string
	shape    string
	label    string
	label2   string
	title    string
	from     string // the instance an add is attributed to
	ellipsis int    // > 0: stands for this many omitted items
}

func (l *lookup) swimlane(v check.Violation) swimlane {
	sc := l.scopeOf(v.EventID, v.JobID)
	leases := l.leaseItems(sc)
	items := l.rowItems(sc)
	items = append(items, l.redisItems(sc, claimHolders(l, sc))...)
	items = append(items, leases...)
	sort.SliceStable(items, func(i, j int) bool { return items[i].at.Before(items[j].at) })
	if len(items) == 0 {
		return swimlane{Empty: "the history holds nothing about this event or job", W: chartW, H: 30}
	}
	first, last := activeRange(items, leases)
	insts := l.laneInstances(items, v.Instances)
	items = append(items, l.processItems(insts, first, last.Add(swimMargin))...)
	sort.SliceStable(items, func(i, j int) bool { return items[i].at.Before(items[j].at) })
	faults := l.faultsNear(first.Add(-faultMargin), last.Add(faultMargin), insts)
	items, omitted := capItems(items)
	return layoutSwimlane(items, laneOrder(items, insts), faults, omitted)
}

// activeRange is the time of the first and the last item that is not the
// final scan: process signals and faults are drawn when they are near it.
// When a lease ran out with nobody taking over, the range runs to the final
// scan, since the event sat waiting through whatever happened meanwhile.
func activeRange(items, leases []item) (first, last time.Time) {
	first, last = items[0].at, items[0].at
	for _, it := range items {
		if it.shape != "final" && it.at.After(last) {
			last = it.at
		}
	}
	if len(leases) > 0 {
		last = items[len(items)-1].at
	}
	return first, last
}

// laneInstances: the instances the items and the violation name, sorted.
func (l *lookup) laneInstances(items []item, named []string) []string {
	var names []string
	for _, it := range items {
		names = append(names, it.lane, it.from)
	}
	return distinctSorted(append(names, named...), laneWorkload, laneRows, laneRedis, laneConsumer)
}

// processItems: the instances' signals and exits near the event.
func (l *lookup) processItems(insts []string, lo, hi time.Time) []item {
	var out []item
	for _, inst := range insts {
		for _, p := range l.procByInst[inst] {
			if p.At.Before(lo) || p.At.After(hi) {
				continue
			}
			label := p.Action
			if p.Action == "crashpoint" {
				label = "crash"
			}
			out = append(out, item{at: p.At, lane: inst, shape: processShape(p.Action), label: label, label2: truncate(p.Detail, 14), title: processTitle(p)})
		}
	}
	return out
}

// faultsNear returns the faults whose windows overlap [lo, hi] and that can
// matter to the event: those on a dependency as a whole ("mysql", "redis")
// and those on the event's own instances or their links ("mysql/d1"), not
// those on other instances.
func (l *lookup) faultsNear(lo, hi time.Time, insts []string) []history.Fault {
	mine := make(map[string]bool, len(insts))
	for _, inst := range insts {
		mine[inst] = true
	}
	var out []history.Fault
	for _, f := range l.run.Faults {
		end := f.End
		if end.IsZero() {
			end = hi
		}
		inst := faultInstance(f.Target)
		if l.instances[inst] && !mine[inst] {
			continue
		}
		if !f.Start.After(hi) && !end.Before(lo) {
			out = append(out, f)
		}
	}
	return out
}

// faultInstance is the instance a fault target names: "d1", or the d1 of a
// link such as "mysql/d1" or "redis/d1".
func faultInstance(target string) string {
	if i := strings.LastIndexByte(target, '/'); i >= 0 {
		return target[i+1:]
	}
	return target
}

// capItems keeps the first and last items when there are too many for one
// drawing, with one column standing for the rest.
func capItems(items []item) ([]item, int) {
	if len(items) <= maxSwimCols {
		return items, 0
	}
	head, tail := maxSwimCols*2/3, maxSwimCols-maxSwimCols*2/3-1
	omitted := len(items) - head - tail
	out := append([]item(nil), items[:head]...)
	out = append(out, item{at: items[head].at, ellipsis: omitted})
	return append(out, items[len(items)-tail:]...), omitted
}

// laneOrder: workload, instances, rows, Redis, consumer; only lanes in use
// (named instances always).
func laneOrder(items []item, insts []string) []string {
	used := make(map[string]bool)
	for _, it := range items {
		used[it.lane] = true
	}
	var out []string
	if used[laneWorkload] {
		out = append(out, laneWorkload)
	}
	out = append(out, insts...)
	for _, n := range []string{laneRows, laneRedis, laneConsumer} {
		if used[n] {
			out = append(out, n)
		}
	}
	if len(out) > maxLanes {
		out = out[:maxLanes]
	}
	return out
}
