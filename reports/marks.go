package reports

import "fmt"

// Caps that keep a page light whatever the run's size. What is left out is
// counted on the page and is always in results.json and the history files.
const (
	maxLanes          = 24   // timeline and swimlane lanes
	maxMarks          = 2000 // timeline symbols and bars
	maxBands          = 300  // fault windows drawn per chart
	maxSwimlanes      = 30   // violations drawn with a swimlane, over all invariants
	maxViolationsShow = 100  // violations listed per invariant
	maxSteps          = 100  // steps listed per violation
	maxSwimCols       = 40   // columns of one swimlane
	maxFaultRows      = 200
	maxFindingsShow   = 50 // findings listed at the top of the page
	maxFindingItems   = 40 // events, jobs or violation links listed per finding
	maxFindingJobs    = 5  // job ids listed beside a finding's events
	maxGapRows        = 100
)

// newMark places a symbol of the given shape at x, y. Shapes and their
// colours (the page's CSS classes m-<shape>):
//
//	start   ▶ a process started or resumed
//	kill    ✕ SIGKILL or a crash point
//	stop    ⏸ SIGSTOP
//	term    ◆ SIGTERM
//	exit    ■ the process exited
//	commit  ○ the workload committed the event
//	claim   ● a claim (row to processing)
//	done    ✓ published
//	fail    ✕ failed
//	retry   ◀ back to pending
//	update  · another row change
//	add     ■ a job added in Redis
//	dup     ■ a duplicate add or overwrite in Redis
//	redis   · another Redis entry
//	take    ▼ a consumer took the job
//	final   ◎ the row as the final scan found it
//	lease   ◷ a claim's lease ran out with the row still processing
func newMark(x, y float64, shape string) mark {
	return mark{X: num(x), Y: num(y), Shape: shape, Class: "m-" + shape, Path: shapePath(shape, x, y)}
}

func shapePath(shape string, x, y float64) string {
	f := func(format string, args ...any) string { return fmt.Sprintf(format, args...) }
	switch shape {
	case "start":
		return f("M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x-5, y-6, x+6, y, x-5, y+6)
	case "kill", "fail":
		return f("M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f", x-5, y-5, x+5, y+5, x-5, y+5, x+5, y-5)
	case "stop":
		return f("M%.1f %.1fh3v12h-3ZM%.1f %.1fh3v12h-3Z", x-5, y-6, x+2, y-6)
	case "term":
		return f("M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x, y-6, x+6, y, x, y+6, x-6, y)
	case "exit", "add", "dup":
		return f("M%.1f %.1fh10v10h-10Z", x-5, y-5)
	case "done":
		return f("M%.1f %.1fL%.1f %.1fL%.1f %.1f", x-6, y, x-2, y+5, x+6, y-5)
	case "retry":
		return f("M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x+5, y-6, x-6, y, x+5, y+6)
	case "take":
		return f("M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x-6, y-5, x+6, y-5, x, y+6)
	case "update", "redis":
		return circlePath(x, y, 3)
	case "final":
		return circlePath(x, y, 6) + circlePath(x, y, 2.5)
	case "lease":
		return circlePath(x, y, 6) + f("M%.1f %.1fv-4M%.1f %.1fh3", x, y, x, y)
	default: // commit, claim
		return circlePath(x, y, 5.5)
	}
}

func circlePath(x, y, r float64) string {
	return fmt.Sprintf("M%.1f %.1fa%.1f %.1f 0 1 0 %.1f 0a%.1f %.1f 0 1 0 %.1f 0", x-r, y, r, r, 2*r, r, r, -2*r)
}

// legendBox is the symbol legend, laid out left to right in rows.
type legendBox struct {
	W, H  num
	Items []legendItem
}

type legendItem struct {
	Mark         mark
	TextX, TextY num
	Text         string
}

func legend() legendBox {
	entries := []struct{ shape, text string }{
		{"commit", "committed"}, {"claim", "claim"}, {"done", "published"}, {"retry", "back to pending"},
		{"fail", "failed"}, {"add", "job added"}, {"dup", "duplicate add / overwrite"}, {"take", "consumer took"},
		{"start", "start / resume"}, {"stop", "SIGSTOP"}, {"kill", "SIGKILL / crash"}, {"term", "SIGTERM"},
		{"exit", "exit"}, {"lease", "lease ran out"}, {"final", "final state"},
	}
	box := legendBox{W: chartW}
	x, y := 10.0, 12.0
	for _, e := range entries {
		w := 26 + float64(len(e.text))*6.6
		if x+w > chartW {
			x, y = 10, y+22
		}
		box.Items = append(box.Items, legendItem{Mark: newMark(x, y, e.shape), TextX: num(x + 10), TextY: num(y + 4), Text: e.text})
		x += w
	}
	box.H = num(y + 12)
	return box
}
