package reports

import (
	"sort"
	"strconv"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// Fault labels on the timeline and the charts. Faults that come close
// together (crash-window's eight crashes in a second and a half) would
// print their labels over each other, so the labels are laid out in rows:
// each band gets its full label ("crash-point d2") on the first row where
// it overlaps no label placed before it, else its key ("F3") where that
// fits, else no label in the drawing (see placeBandLabels). Every key and every full label is
// listed under the timeline whenever one was shortened or left out, and
// each band's tooltip holds the whole fault.
const (
	bandLabelRowH = 11.0 // distance between label rows (the label is 10px)
	bandLabelGap  = 5.0  // space kept between two labels on a row
	bandLabelPad  = 2.0  // from the band's left edge to its label
	chartLabelRow = 3    // label rows inside a chart's plot
	timelineRows  = 4    // label rows above the timeline's lanes
)

// faultKey is the short label of a fault: F and its number, as in the
// page's fault table.
func faultKey(f history.Fault, i int) string {
	id := f.ID
	if id <= 0 {
		id = i + 1
	}
	return "F" + strconv.Itoa(id)
}

// labelWidth bounds the width of s in the bands' 10px bold label font:
// each character's advance in a wide sans-serif (DejaVu Sans Bold, the
// widest of the page's fonts on Linux), rounded up.
func labelWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case r == 'm' || r == 'w':
			w += 10.5
		case r == 'M' || r == 'W':
			w += 11.2
		case r >= 'A' && r <= 'Z':
			w += 8.4
		case r == 'i' || r == 'l' || r == 'j' || r == '.' || r == ',' || r == ':' || r == ';' || r == '\'' || r == '|' || r == '!' || r == ' ':
			w += 3.6
		case r == 'f' || r == 't' || r == 'r' || r == '-' || r == '(' || r == ')' || r == '/':
			w += 5.2
		default:
			w += 7.2
		}
	}
	return w
}

// labelBox is where a placed label's text lies.
type labelBox struct{ x0, x1, y0, y1 float64 }

// box is the area the band's label covers (zero when it has none).
func (b band) box() labelBox {
	x, y := float64(b.LabelX), float64(b.LabelY)
	return labelBox{x0: x, x1: x + labelWidth(b.Label), y0: y - 9, y1: y + 2}
}

func (a labelBox) overlaps(b labelBox) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// placeBandLabels lays the bands' labels out on rows whose baselines are
// firstY, firstY+bandLabelRowH, ...; no label passes xmax. Bands whose
// full labels would touch form a cluster: a cluster gets full labels when
// all of them fit on the rows, else keys, and a band whose key finds no
// room either has no label. It returns how many rows it used.
func placeBandLabels(bands []band, firstY float64, rows int, xmax float64) int {
	ends := make([]float64, rows) // the right end of each row's last label, with the gap
	for r := range ends {
		ends[r] = -1e9
	}
	used := 0
	for _, cluster := range labelClusters(bands) {
		var spots []labelSpot
		var ok bool
		for _, short := range []bool{false, true} {
			trial := append([]float64(nil), ends...)
			if spots, ok = fitCluster(bands, cluster, short, trial, xmax); ok || short {
				ends = trial
				break
			}
		}
		for k, i := range cluster {
			b, sp := &bands[i], spots[k]
			b.Label, b.Short = sp.text, sp.text != b.Full
			if sp.row >= 0 {
				b.LabelX, b.LabelY = num(sp.x), num(firstY+float64(sp.row)*bandLabelRowH)
				used = max(used, sp.row+1)
			}
		}
	}
	return used
}

// labelSpot is where one label goes; row -1 means nowhere.
type labelSpot struct {
	text string
	x    float64
	row  int
}

// fitCluster places the cluster's full labels (or keys, when short) on the
// first free row each, updating ends; ok says every one found a row.
func fitCluster(bands []band, cluster []int, short bool, ends []float64, xmax float64) ([]labelSpot, bool) {
	spots := make([]labelSpot, len(cluster))
	ok := true
	for k, i := range cluster {
		text := bands[i].Full
		if short {
			text = bands[i].Key
		}
		w := labelWidth(text)
		x := min(float64(bands[i].X)+bandLabelPad, xmax-w)
		r := freeRow(ends, x)
		if r < 0 {
			spots[k], ok = labelSpot{row: -1}, false
			continue
		}
		ends[r] = x + w + bandLabelGap
		spots[k] = labelSpot{text: text, x: x, row: r}
	}
	return spots, ok
}

// labelClusters groups the bands, in time order, into runs whose full
// labels, each at its band, would touch.
func labelClusters(bands []band) [][]int {
	order := make([]int, len(bands))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return bands[order[i]].X < bands[order[j]].X })
	var out [][]int
	reach := -1e9
	for _, i := range order {
		x := float64(bands[i].X) + bandLabelPad
		if x >= reach || len(out) == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], i)
		reach = max(reach, x+labelWidth(bands[i].Full)+bandLabelGap)
	}
	return out
}

func freeRow(ends []float64, x float64) int {
	for r, end := range ends {
		if end <= x {
			return r
		}
	}
	return -1
}

// faultKeyItem is one line of the list of fault labels under the timeline.
type faultKeyItem struct {
	Key, Label, When string
}

// faultKeyList lists every fault's key and full label when some drawing
// shortened or left out a label, so that each label's text is on the page.
func faultKeyList(faults []history.Fault, s span, drawings ...[]band) ([]faultKeyItem, int) {
	short := false
	for _, bands := range drawings {
		for _, b := range bands {
			short = short || b.Short
		}
	}
	if !short {
		return nil, 0
	}
	shown, omitted := capSlice(faults, maxFaultRows)
	out := make([]faultKeyItem, len(shown))
	for i, f := range shown {
		when := "+" + shortDuration(f.Start.Sub(s.start))
		if !f.End.IsZero() {
			when += " – +" + shortDuration(f.End.Sub(s.start))
		}
		out[i] = faultKeyItem{Key: faultKey(f, i), Label: bandText(f), When: when}
	}
	return out, omitted
}

// bandText is a fault's full label.
func bandText(f history.Fault) string {
	label := f.Kind + " " + f.Target
	if f.End.IsZero() {
		label += " (never healed)"
	}
	return label
}
