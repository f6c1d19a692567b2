package reports

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Timeline geometry.
const (
	timelineLabelW = 120.0
	timelineLaneH  = 26.0
	timelineTop    = 30.0
	timelineBottom = 26.0
)

// timeline shows the whole run: one lane per instance with its processes'
// lives and signals, one lane per other fault target, fault windows shaded.
type timeline struct {
	W, H                       num
	GridTop, GridBottom, TickY num
	Lanes                      []lane
	XTicks                     []tick
	Bands                      []band // every fault, faint, across all lanes
	Bars                       []bar  // process alive / paused, fault windows in their lane
	Markers                    []vmark
	Marks                      []mark
	Omitted                    int // marks not drawn (over the cap)
	Empty                      string
}

type lane struct {
	Y, H, Mid, TextY num
	Label            string
	Title            string
	Odd              bool
}

type bar struct {
	X, Y, W, H num
	Class      string
	Title      string
}

// mark is one thing that happened at a point in time, in one lane.
type mark struct {
	X, Y    num
	Shape   string // one of the shapes in the page's marks template
	Class   string
	Path    string // the shape's SVG path, centred on X, Y
	Label   string
	Label2  string
	LabelY  num
	Label2Y num
	Title   string
	// Arrow draws a connector from another lane (FromY) to this mark, for a
	// Redis add attributed to the instance that held the claim.
	Arrow bool
	FromY num
}

func buildTimeline(run history.Run, s span) timeline {
	names := timelineLanes(run)
	tl := timeline{W: chartW}
	if len(names) == 0 {
		tl.Empty = "no process or fault was recorded"
		tl.H = 40
		return tl
	}
	ax := timeAxis{start: s.start, end: s.end, x0: timelineLabelW + 6, x1: chartW - 12}
	// The fault labels go on rows above the lanes; the lanes start below
	// the rows used.
	tl.Bands = faultBands(run.Faults, s, ax, 2, 0)
	rows := placeBandLabels(tl.Bands, 12, timelineRows, chartW-2)
	top := max(timelineTop, 8+float64(rows)*bandLabelRowH)
	laneY := make(map[string]float64, len(names))
	for i, n := range names {
		y := top + float64(i)*timelineLaneH
		laneY[n] = y
		tl.Lanes = append(tl.Lanes, newLane(y, timelineLaneH, n, i))
	}
	height := top + float64(len(names))*timelineLaneH
	for i := range tl.Bands {
		tl.Bands[i].H = num(height - 4)
	}
	tl.H = num(height + timelineBottom)
	tl.GridTop, tl.GridBottom, tl.TickY = 2, num(height), num(height+16)
	tl.XTicks = ax.ticks(10)
	tl.Bars = append(processBars(run, ax, laneY, s), faultBars(run, ax, laneY, s)...)
	tl.Marks, tl.Omitted = processMarks(run, ax, laneY)
	tl.Markers = healMarker(run.Meta, ax, top-6, height+4)
	return tl
}

func newLane(y, h float64, label string, i int) lane {
	return lane{
		Y: num(y), H: num(h), Mid: num(y + h/2), TextY: num(y + h/2 + 4),
		Label: truncate(label, 16), Title: label, Odd: i%2 == 1,
	}
}

// timelineLanes lists instances, then the other fault targets, capped.
func timelineLanes(run history.Run) []string {
	names := instances(run)
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		seen[n] = true
	}
	for _, f := range run.Faults {
		if !seen[f.Target] && f.Target != "" {
			seen[f.Target] = true
			names = append(names, f.Target)
		}
	}
	if len(names) > maxLanes {
		names = names[:maxLanes]
	}
	return names
}

// processBars draws each process's life (start to exit or kill) and its
// paused stretches (stop to cont); what is still open ends with the run.
func processBars(run history.Run, ax timeAxis, laneY map[string]float64, s span) []bar {
	var out []bar
	emit := func(inst string, from, to time.Time, class, what string) {
		y, ok := laneY[inst]
		if !ok || len(out) >= maxMarks {
			return
		}
		x0, x1 := ax.x(from), ax.x(to)
		out = append(out, bar{
			X: num(x0), Y: num(y + timelineLaneH/2 - 3), W: num(max(x1-x0, 1)), H: 6, Class: class,
			Title: inst + " " + what + " " + clock(from) + " – " + clock(to),
		})
	}
	alive := make(map[string]time.Time)
	paused := make(map[string]time.Time)
	closePaused := func(inst string, at time.Time) {
		if from, ok := paused[inst]; ok {
			emit(inst, from, at, "paused", "paused (SIGSTOP)")
			delete(paused, inst)
		}
	}
	for _, p := range run.Processes {
		switch p.Action {
		case "start":
			alive[p.Instance] = p.At
		case "exit", "kill":
			if from, ok := alive[p.Instance]; ok {
				emit(p.Instance, from, p.At, "life", "running")
				delete(alive, p.Instance)
			}
			closePaused(p.Instance, p.At)
		case "stop":
			paused[p.Instance] = p.At
		case "cont":
			closePaused(p.Instance, p.At)
		}
	}
	for _, inst := range slices.Sorted(maps.Keys(alive)) {
		emit(inst, alive[inst], s.end, "life", "running until the end")
	}
	for _, inst := range slices.Sorted(maps.Keys(paused)) {
		emit(inst, paused[inst], s.end, "paused", "paused until the end")
	}
	return out
}

// faultBars draws each fault window in its target's lane.
func faultBars(run history.Run, ax timeAxis, laneY map[string]float64, s span) []bar {
	var out []bar
	for _, f := range run.Faults {
		y, ok := laneY[f.Target]
		if !ok || len(out) >= maxBands {
			continue
		}
		end := f.End
		if end.IsZero() {
			end = s.end
		}
		x0, x1 := ax.x(f.Start), ax.x(end)
		out = append(out, bar{X: num(x0), Y: num(y + 3), W: num(max(x1-x0, 2)), H: num(timelineLaneH - 6), Class: "fault", Title: faultTitle(f)})
	}
	return out
}

// processMarks puts a symbol for every signal and exit on its lane.
func processMarks(run history.Run, ax timeAxis, laneY map[string]float64) ([]mark, int) {
	var out []mark
	omitted := 0
	for _, p := range run.Processes {
		y, ok := laneY[p.Instance]
		if !ok {
			continue
		}
		if len(out) >= maxMarks {
			omitted++
			continue
		}
		m := newMark(ax.x(p.At), y+timelineLaneH/2, processShape(p.Action))
		m.Title = processTitle(p)
		out = append(out, m)
	}
	return out, omitted
}

func processTitle(p history.ProcessEvent) string {
	var b strings.Builder
	b.WriteString(clock(p.At) + " " + p.Instance + ": " + processWords[p.Action])
	if processWords[p.Action] == "" {
		b.WriteString(p.Action)
	}
	if p.PID != 0 {
		b.WriteString(" (pid " + strconv.Itoa(p.PID) + ")")
	}
	if p.Detail != "" {
		b.WriteString(" — " + p.Detail)
	}
	return b.String()
}

var processWords = map[string]string{
	"start":      "started",
	"exit":       "exited",
	"kill":       "killed (SIGKILL)",
	"stop":       "paused (SIGSTOP)",
	"cont":       "resumed (SIGCONT)",
	"term":       "asked to stop (SIGTERM)",
	"crashpoint": "hit a crash point",
}

func processShape(action string) string {
	switch action {
	case "start":
		return "start"
	case "kill", "crashpoint":
		return "kill"
	case "stop":
		return "stop"
	case "cont":
		return "start"
	case "term":
		return "term"
	default:
		return "exit"
	}
}
