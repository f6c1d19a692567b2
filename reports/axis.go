package reports

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// num is an SVG coordinate, printed with one decimal.
type num float64

func (n num) String() string { return strconv.FormatFloat(float64(n), 'f', 1, 64) }

// tick is one labelled position on an axis.
type tick struct {
	Pos   num
	Label string
}

// timeAxis maps times in [start, end] onto [x0, x1].
type timeAxis struct {
	start, end time.Time
	x0, x1     float64
}

func (a timeAxis) x(t time.Time) float64 {
	total := a.end.Sub(a.start)
	if total <= 0 {
		return a.x0
	}
	f := float64(t.Sub(a.start)) / float64(total)
	f = math.Max(0, math.Min(1, f))
	return a.x0 + f*(a.x1-a.x0)
}

// ticks labels about n round offsets from the start ("+10s").
func (a timeAxis) ticks(n int) []tick {
	total := a.end.Sub(a.start)
	if total <= 0 {
		return []tick{{Pos: num(a.x0), Label: "+0s"}}
	}
	step := time.Duration(niceStep(float64(total)/float64(n), float64(time.Millisecond)))
	var out []tick
	for d := time.Duration(0); d <= total; d += step {
		out = append(out, tick{Pos: num(a.x(a.start.Add(d))), Label: "+" + shortDuration(d)})
	}
	return out
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten, at least min.
func niceStep(raw, min float64) float64 {
	if raw < min {
		raw = min
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// valueAxis maps values in [0, max] onto [y0 (bottom), y1 (top)].
type valueAxis struct {
	max, step float64
	y0, y1    float64
}

// newValueAxis covers [0, maxValue] with a little headroom; minStep is the
// smallest tick step (1 for counts).
func newValueAxis(maxValue, y0, y1, minStep float64) valueAxis {
	maxValue *= 1.08 // headroom: the highest point does not touch the frame
	step := niceStep(maxValue/4, minStep)
	if maxValue <= 0 {
		step = 1
	}
	return valueAxis{max: step * math.Ceil(math.Max(maxValue, step)/step), step: step, y0: y0, y1: y1}
}

func (a valueAxis) y(v float64) float64 {
	if a.max <= 0 {
		return a.y0
	}
	return a.y0 - v/a.max*(a.y0-a.y1)
}

func (a valueAxis) ticks(format func(float64) string) []tick {
	step := a.step
	var out []tick
	for v := 0.0; v <= a.max+step/1e6; v += step {
		out = append(out, tick{Pos: num(a.y(v)), Label: format(v)})
	}
	return out
}

// shortDuration prints a duration compactly: 850ms, 1.25s, 2m05s.
func shortDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + shortDuration(-d)
	case d == 0:
		return "0ms"
	case d < time.Millisecond:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64) + "ms"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return strconv.FormatFloat(math.Round(d.Seconds()*1000)/1000, 'f', -1, 64) + "s"
	default:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
}

// clock prints a UTC time of day with milliseconds.
func clock(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("15:04:05.000")
}

// stamp prints a full UTC time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000 UTC")
}

// truncate shortens s to at most n runes, marking the cut.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
