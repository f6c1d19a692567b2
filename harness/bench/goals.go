package bench

import (
	"fmt"
	"strings"
	"time"
)

// The goals. None is asserted anywhere: the report says met or not
// met, with the numbers.
const (
	floorShareGoal   = 0.5                    // reference >= half the raw floor
	latencyGoal      = 100 * time.Millisecond // p99 at goalRate with goalInstances
	goalRate         = 1000.0
	goalInstances    = 2
	scalingTolerance = 0.05 // "never lowers": within 5% counts as not lower (noise)
)

func goals(rep *Report, cfg Config) []Goal {
	out := []Goal{floorGoal(rep)}
	for _, d := range cfg.Designs {
		if d.GoalFactor > 0 {
			out = append(out, designGoal(rep, d))
		}
	}
	return append(out, latencyGoalOf(rep), scalingGoal(rep), memoryGoal(rep))
}

// bestReference is the reference row with the highest rate.
func bestReference(rep *Report) *Row {
	var best *Row
	for i := range rep.Rows {
		row := &rep.Rows[i]
		if row.Kind == KindReference && (best == nil || row.EPS > best.EPS) {
			best = row
		}
	}
	return best
}

func floorGoal(rep *Report) Goal {
	g := Goal{Name: "throughput at least half of the raw floor"}
	best, floor := bestReference(rep), rep.Row(KindFloor)
	if best == nil || floor == nil || floor.EPS == 0 {
		g.Status, g.Detail = GoalNotMeasured, "no reference or floor row"
		return g
	}
	share := best.EPS / floor.EPS
	g.Detail = fmt.Sprintf("best: %s at %s events/s = %.2f x the floor's %s events/s", best.Name, num(best.EPS), share, num(floor.EPS))
	g.Status = status(share >= floorShareGoal)
	if g.Status == GoalNotMet {
		g.Detail += ". " + bound(best, floor, rep.Machine.Cores)
	}
	return g
}

// bound says, from the measured work, what keeps row below the floor.
func bound(row, floor *Row, cores int) string {
	var parts []string
	parts = append(parts, fmt.Sprintf("%.2f of %d cores were busy (dispatchers + mariadbd + redis-server)", row.CoresBusy, cores))
	parts = append(parts, fmt.Sprintf("MySQL statements per event %.3f vs the floor's %.3f", row.SQLPerEvent, floor.SQLPerEvent))
	parts = append(parts, fmt.Sprintf("mariadbd CPU %.2f s per 10k events vs the floor's %.2f", row.MariaDBCPUPer10k, floor.MariaDBCPUPer10k))
	parts = append(parts, fmt.Sprintf("dispatcher CPU %.2f s per 10k events vs the floor's %.2f", row.CPUPer10k, floor.CPUPer10k))
	return "Bounded by the work per event: " + strings.Join(parts, "; ")
}

func designGoal(rep *Report, d Design) Goal {
	g := Goal{Name: fmt.Sprintf("throughput at least %g x %s", d.GoalFactor, d.Name)}
	best := bestReference(rep)
	var design *Row
	for i := range rep.Rows {
		if rep.Rows[i].Kind == KindDesign && strings.HasPrefix(rep.Rows[i].Name, d.Name+" x") {
			design = &rep.Rows[i]
		}
	}
	if best == nil || design == nil || design.EPS == 0 {
		g.Status, g.Detail = GoalNotMeasured, "no reference or design row"
		return g
	}
	ratio := best.EPS / design.EPS
	g.Status = status(ratio >= d.GoalFactor)
	g.Detail = fmt.Sprintf("%s at %s events/s = %.0f x %s at %s events/s", best.Name, num(best.EPS), ratio, design.Name, num(design.EPS))
	return g
}

func latencyGoalOf(rep *Report) Goal {
	g := Goal{Name: fmt.Sprintf("p99 commit-to-published under %s at %s events/s with %d instances", latencyGoal, num(goalRate), goalInstances)}
	row := rep.Row(fmt.Sprintf("reference x%d", goalInstances))
	if row == nil || row.Latency == nil {
		g.Status, g.Detail = GoalNotMeasured, fmt.Sprintf("no reference x%d row", goalInstances)
		return g
	}
	l := row.Latency
	g.Detail = fmt.Sprintf("p99 %s (p50 %s, max %s) over %s events; offered %s/s, committed %s/s", ms(l.P99), ms(l.P50), ms(l.Max), num(float64(l.Events)), num(l.Offered), num(l.Achieved))
	if l.Offered != goalRate {
		g.Status = GoalNotMeasured
		g.Detail += fmt.Sprintf("; the goal is at %s/s: run with --rate %g", num(goalRate), goalRate)
		return g
	}
	g.Status = status(l.P99 < latencyGoal)
	if g.Status == GoalNotMet {
		g.Detail += fmt.Sprintf(". Split at the claim: waiting for a poll p99 %s, claim to published p99 %s (p50 %s); %d of %d seconds held an event over %s; "+
			"the machine kept %.2f of %d cores busy, this benchmark %.2f of them",
			ms(l.WaitP99), ms(l.WorkP99), ms(l.WorkP50), l.SlowSeconds, l.Seconds, latencyGoal, l.MachineBusy, rep.Machine.Cores, l.OursBusy)
	}
	if l.Achieved < 0.9*l.Offered {
		g.Detail += "; the producers fell behind the offered rate, so the load was lighter than asked"
	}
	return g
}

func scalingGoal(rep *Report) Goal {
	g := Goal{Name: "adding instances never lowers throughput"}
	refs := rep.rowsOf(KindReference)
	if len(refs) < 2 {
		g.Status, g.Detail = GoalNotMeasured, "fewer than two instance counts"
		return g
	}
	var steps []string
	ok := true
	for i := 1; i < len(refs); i++ {
		prev, cur := refs[i-1], refs[i]
		ratio := cur.EPS / prev.EPS
		steps = append(steps, fmt.Sprintf("x%d -> x%d: %s -> %s events/s (%.2f)", prev.Instances, cur.Instances, num(prev.EPS), num(cur.EPS), ratio))
		if ratio < 1-scalingTolerance {
			ok = false
		}
	}
	g.Status = status(ok)
	g.Detail = strings.Join(steps, "; ") + fmt.Sprintf(" (a drop within %.0f%% is counted as noise)", scalingTolerance*100)
	if !ok {
		last := refs[len(refs)-1]
		g.Detail += fmt.Sprintf(". At x%d %.2f of %d cores were busy: more processes share the same cores with mariadbd", last.Instances, last.CoresBusy, rep.Machine.Cores)
	}
	return g
}

func memoryGoal(rep *Report) Goal {
	g := Goal{Name: "memory flat over a 1,000,000-event run"}
	if rep.Long == nil {
		g.Status, g.Detail = GoalNotMeasured, "not part of the default run: run `outboxchaos bench --long`"
		return g
	}
	l := rep.Long
	g.Status = status(l.Flat)
	g.Detail = l.Summary()
	if l.Events < DefaultLongEvents {
		g.Status = GoalNotMeasured
		g.Detail += fmt.Sprintf("; only %s events (the goal is about %s)", num(float64(l.Events)), num(DefaultLongEvents))
	}
	return g
}

func status(ok bool) string {
	if ok {
		return GoalMet
	}
	return GoalNotMet
}
