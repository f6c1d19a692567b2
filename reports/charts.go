package reports

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Chart geometry, in SVG units; the page scales the SVG to its width.
const (
	chartW       = 1160.0
	chartH       = 220.0
	chartLeft    = 64.0
	chartRight   = 16.0
	chartTop     = 28.0
	chartBottom  = 30.0
	chartBuckets = 400
)

// chart is a line chart over the run's time with fault windows shaded.
type chart struct {
	Title string
	W, H  num
	Plot  rect
	// Derived positions, so the template does no arithmetic.
	PlotRight, PlotBottom, TickX, XTickY, EmptyX, EmptyY num

	XTicks  []tick
	YTicks  []tick
	Bands   []band
	Series  []series
	Markers []vmark
	Empty   string // shown instead of lines when there is no data
}

// vmark is a labelled vertical line at one moment (the heal).
type vmark struct {
	X, Top, Bottom, LabelY num
	Label, Title           string
}

// healMarker marks when every fault was healed.
func healMarker(meta history.Meta, ax timeAxis, top, bottom float64) []vmark {
	if meta.Healed.IsZero() {
		return nil
	}
	return []vmark{{X: num(ax.x(meta.Healed)), Top: num(top), Bottom: num(bottom), LabelY: num(bottom - 4),
		Label: "healed", Title: "every fault healed at " + clock(meta.Healed) + "; then drain"}}
}

type rect struct{ X, Y, W, H num }

// band is a shaded time window (a fault) with its label.
type band struct {
	X, W   num
	Top, H num
	LabelX num
	LabelY num
	Label  string // what is drawn: Full, Key, or "" (placeBandLabels)
	Full   string // the fault's full label
	Key    string // its short label, F and the fault's number
	Short  bool   // Label is not Full
	Title  string
}

// series is one polyline; Class picks its colour in the page's CSS.
type series struct {
	Name                           string
	Class                          string
	Segments                       []string // polylines; a gap in the data breaks the line
	Dots                           []point  // the data points themselves, when few
	LegendX, LegendX2, LegendTextX num
}

func newChart(title string, s span) (chart, timeAxis) {
	plot := rect{X: chartLeft, Y: chartTop, W: chartW - chartLeft - chartRight, H: chartH - chartTop - chartBottom}
	ax := timeAxis{start: s.start, end: s.end, x0: float64(plot.X), x1: float64(plot.X + plot.W)}
	return chart{
		Title: title, W: chartW, H: chartH, Plot: plot, XTicks: ax.ticks(10),
		PlotRight: plot.X + plot.W, PlotBottom: plot.Y + plot.H, TickX: plot.X - 6,
		XTickY: chartH - 10, EmptyX: plot.X + 12, EmptyY: plot.Y + 30,
	}, ax
}

// faultBands shades every fault window between top and top+h; their
// labels are placed by placeBandLabels.
func faultBands(faults []history.Fault, s span, ax timeAxis, top, h float64) []band {
	out := make([]band, 0, len(faults))
	for i, f := range faults {
		if i >= maxBands {
			break
		}
		end := f.End
		if end.IsZero() {
			end = s.end
		}
		x0, x1 := ax.x(f.Start), ax.x(end)
		if x1-x0 < 1.5 {
			x1 = x0 + 1.5
		}
		out = append(out, band{
			X: num(x0), W: num(x1 - x0), Top: num(top), H: num(h),
			Full: bandText(f), Key: faultKey(f, i), Title: faultTitle(f),
		})
	}
	return out
}

// chartBands shades the faults across a chart's plot, labels on rows at
// the plot's top.
func chartBands(run history.Run, s span, ax timeAxis, c chart) []band {
	bands := faultBands(run.Faults, s, ax, float64(c.Plot.Y), float64(c.Plot.H))
	placeBandLabels(bands, float64(c.Plot.Y)+10, chartLabelRow, float64(c.PlotRight)-2)
	return bands
}

func faultTitle(f history.Fault) string {
	var b strings.Builder
	b.WriteString("fault " + strconv.Itoa(f.ID) + ": " + f.Kind + " on " + f.Target + ", " + clock(f.Start) + " – ")
	if f.End.IsZero() {
		b.WriteString("never healed")
	} else {
		b.WriteString(clock(f.End) + " (" + shortDuration(f.End.Sub(f.Start)) + ")")
	}
	for _, k := range slices.Sorted(maps.Keys(f.Params)) {
		b.WriteString(", " + k + "=" + f.Params[k])
	}
	return b.String()
}

// bucketer folds timed samples into chartBuckets columns.
type bucketer struct {
	ax   timeAxis
	s    span
	vals [][]float64
}

func newBucketer(s span, ax timeAxis) *bucketer {
	return &bucketer{ax: ax, s: s, vals: make([][]float64, chartBuckets)}
}

func (b *bucketer) add(t time.Time, v float64) {
	total := b.s.end.Sub(b.s.start)
	i := 0
	if total > 0 {
		i = int(float64(t.Sub(b.s.start)) / float64(total) * chartBuckets)
	}
	i = max(0, min(chartBuckets-1, i))
	b.vals[i] = append(b.vals[i], v)
}

// x is the centre of bucket i.
func (b *bucketer) x(i int) float64 {
	w := (b.ax.x1 - b.ax.x0) / chartBuckets
	return b.ax.x0 + (float64(i)+0.5)*w
}

// polylines joins the points into lines, breaking wherever two neighbours
// are further apart than maxGap (no data there).
func polylines(xs, ys []float64, maxGap float64) []string {
	var out []string
	var sb strings.Builder
	for i := range xs {
		if i > 0 && xs[i]-xs[i-1] > maxGap {
			out = append(out, sb.String())
			sb.Reset()
		}
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(num(xs[i]).String() + "," + num(ys[i]).String())
	}
	if sb.Len() > 0 {
		out = append(out, sb.String())
	}
	return out
}

// gapBuckets is how many empty buckets break a line.
const gapBuckets = 4

// maxDots: with more points than this, the line alone is drawn.
const maxDots = 200

type point struct{ X, Y num }

func dots(xs, ys []float64) []point {
	if len(xs) > maxDots {
		return nil
	}
	out := make([]point, len(xs))
	for i := range xs {
		out[i] = point{num(xs[i]), num(ys[i])}
	}
	return out
}

// medianSpacing is the typical distance between neighbouring points.
func medianSpacing(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	d := make([]float64, len(xs)-1)
	for i := range d {
		d[i] = xs[i+1] - xs[i]
	}
	return median(d)
}

// backlogChart plots pending + processing and processing alone over time.
func backlogChart(run history.Run, ix runIndex, s span) chart {
	c, ax := newChart("Backlog: outbox rows pending or processing", s)
	points := ix.backlog()
	if len(points) == 0 {
		c.Empty = "no outbox transitions were recorded"
		return c
	}
	total, proc := newBucketer(s, ax), newBucketer(s, ax)
	for _, p := range points {
		total.add(p.at, float64(p.pending+p.processing))
		proc.add(p.at, float64(p.processing))
	}
	tx, ty := carryMax(total)
	px, py := carryMax(proc)
	va := valueAxisOf(&c, maxOf(ty), 1)
	c.Series = []series{
		{Name: "pending + processing", Class: "s-total", Segments: polylines(tx, scale(ty, va), math.Inf(1))},
		{Name: "processing", Class: "s-proc", Segments: polylines(px, scale(py, va), math.Inf(1))},
	}
	overlay(&c, run, s, ax)
	return c
}

// carryMax returns, per bucket, the largest value seen in it; an empty
// bucket carries the last value of the one before (the backlog did not move).
func carryMax(b *bucketer) (xs, ys []float64) {
	last, started := 0.0, false
	for i, vs := range b.vals {
		if len(vs) == 0 && !started {
			continue
		}
		v := last
		if len(vs) > 0 {
			v = maxOf(vs)
			last = vs[len(vs)-1]
			started = true
		}
		xs = append(xs, b.x(i))
		ys = append(ys, v)
	}
	return xs, ys
}

// latencyChart plots the median and the worst commit-to-published latency
// of the events published in each bucket.
func latencyChart(run history.Run, ix runIndex, s span) chart {
	c, ax := newChart("Commit-to-published latency in ms (event committed → outbox row published)", s)
	samples := ix.latencies()
	if len(samples) == 0 {
		c.Empty = "no event was published"
		return c
	}
	b := newBucketer(s, ax)
	for _, smp := range samples {
		b.add(smp.at, millis(smp.d))
	}
	var xs, med, worst []float64
	for i, vs := range b.vals {
		if len(vs) == 0 {
			continue
		}
		xs = append(xs, b.x(i))
		med = append(med, median(vs))
		worst = append(worst, maxOf(vs))
	}
	va := valueAxisOf(&c, maxOf(worst), 0.001)
	gap := max(gapBuckets*float64(c.Plot.W)/chartBuckets, 3*medianSpacing(xs))
	c.Series = []series{
		{Name: "worst in interval", Class: "s-max", Segments: polylines(xs, scale(worst, va), gap), Dots: dots(xs, scale(worst, va))},
		{Name: "median in interval", Class: "s-p50", Segments: polylines(xs, scale(med, va), gap), Dots: dots(xs, scale(med, va))},
	}
	overlay(&c, run, s, ax)
	return c
}

// valueAxisOf is the value axis of c's plot, from 0 to top (minStep as in
// newValueAxis), with its ticks written on c.
func valueAxisOf(c *chart, top, minStep float64) valueAxis {
	va := newValueAxis(top, float64(c.Plot.Y+c.Plot.H), float64(c.Plot.Y), minStep)
	c.YTicks = va.ticks(func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) })
	return va
}

// overlay adds what every time chart shows over its series: the fault
// bands, the heal marker and the legend.
func overlay(c *chart, run history.Run, s span, ax timeAxis) {
	c.Bands = chartBands(run, s, ax, *c)
	c.Markers = healMarker(run.Meta, ax, float64(c.Plot.Y), float64(c.Plot.Y+c.Plot.H))
	placeLegend(c)
}

func placeLegend(c *chart) {
	x := float64(c.Plot.X + c.Plot.W)
	for i := len(c.Series) - 1; i >= 0; i-- {
		x -= float64(len(c.Series[i].Name))*6.2 + 40
		c.Series[i].LegendX, c.Series[i].LegendX2, c.Series[i].LegendTextX = num(x), num(x+20), num(x+26)
	}
}

func scale(vs []float64, va valueAxis) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = va.y(v)
	}
	return out
}

func maxOf(vs []float64) float64 {
	m := 0.0
	for _, v := range vs {
		m = max(m, v)
	}
	return m
}

func median(vs []float64) float64 {
	s := append([]float64(nil), vs...)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
