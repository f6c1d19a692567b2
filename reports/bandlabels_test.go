package reports

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// crowdedRun is crash-window's shape: eight crashes on three instances in
// the first 1.5 s of a 20 s run, with events flowing throughout.
func crowdedRun() history.Run {
	m := fixtureMeta("crash-window", 7, "reference", "outboxchaos run --scenario crash-window --seed 7")
	b := newRunBuilder(m)
	insts := []string{"d1", "d2", "d3"}
	for i, inst := range insts {
		b.process(inst, "start", b.at(float64(i)), 6101+i, "")
	}
	for k := 0; k < 8; k++ {
		inst := insts[k%3]
		start := b.at(60 + 180*float64(k))
		b.fault("crash-point", inst, start, start.Add(30*time.Millisecond), map[string]string{"point": "after-enqueue"})
		b.process(inst, "crashpoint", start.Add(2*time.Millisecond), 6101+k%3, "crash point after-enqueue")
	}
	for i := int64(1); i <= 30; i++ {
		produced := b.at(100 + 600*float64(i-1))
		b.produce(i, history.KindValid, "ai.job.enqueue", queueOf(i), produced)
		b.happyPath(i, insts[i%3], produced.Add(20*time.Millisecond), 0)
	}
	b.run.Meta.Healed = b.at(18000)
	b.run.Meta.Ended, b.run.Meta.Quiesced = b.at(20000), true
	return b.finish()
}

var (
	svgBlock  = regexp.MustCompile(`(?s)<svg [^>]*>.*?</svg>`)
	svgWidth  = regexp.MustCompile(`^<svg viewBox="0 0 ([0-9.]+) `)
	bandLabel = regexp.MustCompile(`<text class="bandlabel" x="([0-9.-]+)" y="([0-9.-]+)">([^<]*)</text>`)
	titleElem = regexp.MustCompile(`(?s)<title>.*?</title>`)
)

// Eight faults within 1.5 s: no two fault labels of one drawing overlap
// (boxes from the SVG's own coordinates and the label font's widths), none
// leaves its drawing, and every fault's full label is readable on the
// page, not only in a tooltip.
func TestCloseFaultLabelsDoNotOverlap(t *testing.T) {
	run := crowdedRun()
	tl := buildTimeline(run, runSpan(run))
	require.Len(t, tl.Bands, 8)
	spread := float64(tl.Bands[7].X - tl.Bands[0].X)
	require.Less(t, spread, 8*labelWidth("crash-point d1")/4,
		"the faults are close enough that their labels cannot all sit on one or two rows")

	dir := t.TempDir()
	results := allPass(map[string]string{})
	require.NoError(t, WriteRun(dir, run, results))
	data, err := os.ReadFile(filepath.Join(dir, FileHTML))
	require.NoError(t, err)
	page := string(data)

	drawings := 0
	for _, svg := range svgBlock.FindAllString(page, -1) {
		labels := bandLabel.FindAllStringSubmatch(svg, -1)
		if len(labels) == 0 {
			continue
		}
		drawings++
		w := svgWidth.FindStringSubmatch(svg)
		require.NotNil(t, w, "an SVG with labels has a viewBox")
		width, _ := strconv.ParseFloat(w[1], 64)
		boxes := make([]labelBox, len(labels))
		for i, l := range labels {
			x, _ := strconv.ParseFloat(l[1], 64)
			y, _ := strconv.ParseFloat(l[2], 64)
			boxes[i] = band{LabelX: num(x), LabelY: num(y), Label: html.UnescapeString(l[3])}.box()
			require.GreaterOrEqual(t, boxes[i].x0, 0.0, l[0])
			require.LessOrEqual(t, boxes[i].x1, width, "%s leaves its drawing", l[0])
			for j := 0; j < i; j++ {
				require.False(t, boxes[i].overlaps(boxes[j]), "%s overlaps %s", l[0], labels[j][0])
			}
		}
	}
	require.Equal(t, 3, drawings, "the timeline and both charts label their faults")

	visible := titleElem.ReplaceAllString(page, "")
	for _, f := range run.Faults {
		require.Contains(t, visible, htmlText(t, bandText(f)), "fault %d's label is on the page", f.ID)
		require.Contains(t, visible, "<b>"+faultKey(f, 0)+"</b> "+htmlText(t, bandText(f)), "the list pairs the key with the label")
	}
}

// Labels far apart are drawn in full, and no list is added.
func TestSpacedFaultLabelsStayFull(t *testing.T) {
	run, checks := loadStored(t, "fail-several")
	tl := buildTimeline(run, runSpan(run))
	require.NotEmpty(t, tl.Bands)
	for _, b := range tl.Bands {
		require.False(t, b.Short, "%s", b.Full)
		require.Equal(t, b.Full, b.Label)
	}
	dir := t.TempDir()
	require.NoError(t, WriteRun(dir, run, checks))
	data, err := os.ReadFile(filepath.Join(dir, FileHTML))
	require.NoError(t, err)
	require.NotContains(t, string(data), `class="faultkeys"`)
}

// The layout itself: labels that would touch are staggered onto rows; a
// cluster that does not fit in full gets keys, and a band with no room
// left even for its key has no label (its text is in the list).
func TestPlaceBandLabels(t *testing.T) {
	mk := func(x float64, full, key string) band { return band{X: num(x), Full: full, Key: key} }
	labels := func(bs []band) []string {
		out := make([]string, len(bs))
		for i, b := range bs {
			out[i] = b.Label
		}
		return out
	}

	two := []band{mk(100, "crash-point d1", "F1"), mk(104, "crash-point d2", "F2"), mk(400, "latency mysql", "F3")}
	require.Equal(t, 2, placeBandLabels(two, 10, 2, 1000))
	require.Equal(t, []string{"crash-point d1", "crash-point d2", "latency mysql"}, labels(two), "staggered, in full")
	require.NotEqual(t, two[0].LabelY, two[1].LabelY)
	require.Equal(t, two[0].LabelY, two[2].LabelY, "a label far away goes back to the first row")

	crowd := []band{mk(100, "crash-point d1", "F1"), mk(104, "crash-point d2", "F2"), mk(108, "crash-point d3", "F3"),
		mk(112, "kill d1", "F4"), mk(400, "latency mysql", "F5")}
	placeBandLabels(crowd, 10, 2, 1000)
	require.Equal(t, []string{"F1", "F2", "", "", "latency mysql"}, labels(crowd), "keys for the crowd, in full elsewhere")
	require.True(t, crowd[0].Short)
	require.True(t, crowd[3].Short)
	require.False(t, crowd[4].Short)

	keys := []band{mk(100, "crash-point d1", "F1"), mk(110, "crash-point d2", "F2"), mk(126, "crash-point d3", "F3")}
	placeBandLabels(keys, 10, 1, 1000)
	require.Equal(t, []string{"F1", "", "F3"}, labels(keys), "one row holds the keys that do not touch")

	edge := []band{mk(995, "crash-point d1", "F1")}
	placeBandLabels(edge, 10, 1, 1000)
	require.LessOrEqual(t, edge[0].box().x1, 1000.0, "a label near the right edge is moved left")
	require.Equal(t, "crash-point d1", edge[0].Label)
}
