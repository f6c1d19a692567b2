package reports

import (
	"strconv"
	"time"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// layoutSwimlane places items in ordinal columns and lanes, and shades fault
// windows by interpolating their times between the columns.
func layoutSwimlane(items []item, lanes []string, faults []history.Fault, omitted int) swimlane {
	sl := swimlane{Omitted: omitted}
	colW := columnWidth(len(items))
	laneY := make(map[string]float64, len(lanes))
	for i, n := range lanes {
		y := swimTop + float64(i)*swimLaneH
		laneY[n] = y + 16
		sl.Lanes = append(sl.Lanes, newLane(y, swimLaneH, n, i))
		sl.Lanes[i].TextY = num(y + 20)
	}
	height := swimTop + float64(len(lanes))*swimLaneH
	sl.W = num(swimLabelW + float64(len(items))*colW + 16)
	sl.H = num(height + 8)
	sl.GridTop, sl.GridBottom, sl.TimeY, sl.GapY = swimTop, num(height), swimTop-6, swimTop-19
	first := items[0].at
	for i, it := range items {
		x := swimLabelW + (float64(i)+0.5)*colW
		sl.Cols = append(sl.Cols, newColumn(items, i, x, colW, first))
		if it.ellipsis > 0 {
			continue
		}
		y, ok := laneY[it.lane]
		if !ok {
			continue
		}
		m := newMark(x, y, it.shape)
		chars := int(colW / 6.4)
		m.Label, m.Label2 = truncate(it.label, chars), truncate(it.label2, chars+2)
		m.LabelY, m.Label2Y = num(y+20), num(y+31)
		m.Title = it.title
		if fy, ok := laneY[it.from]; ok && it.from != it.lane {
			m.Arrow, m.FromY = true, num(fy)
		}
		sl.Marks = append(sl.Marks, m)
	}
	cx := columnAxis{items: items, colW: colW}
	for i, f := range faults {
		if i >= maxBands {
			break
		}
		sl.Bands = append(sl.Bands, swimBand(f, cx, i, height))
	}
	return sl
}

// columnWidth fits the columns into the page's width when they can stay
// readable, and lets the drawing scroll sideways when they cannot.
func columnWidth(n int) float64 {
	w := (swimPageW - swimLabelW - 16) / float64(max(n, 1))
	return max(swimMinColW, min(swimMaxColW, w))
}

func newColumn(items []item, i int, x, colW float64, first time.Time) column {
	it := items[i]
	c := column{X: num(x), Time: "+" + shortDuration(it.at.Sub(first)), Title: stamp(it.at)}
	if it.ellipsis > 0 {
		c.Ellipsis = true
		c.Time = "… " + strconv.Itoa(it.ellipsis) + " more"
		c.Title = strconv.Itoa(it.ellipsis) + " items not drawn; see the steps and the history files"
		return c
	}
	if i > 0 && items[i-1].ellipsis == 0 {
		if gap := it.at.Sub(items[i-1].at); gap >= 100*time.Millisecond {
			c.Gap = shortDuration(gap) + " later"
			c.GapX = num(x - colW/2)
		}
	}
	return c
}

// columnAxis maps a time to an x between the ordinal columns.
type columnAxis struct {
	items []item
	colW  float64
}

func (c columnAxis) x(t time.Time) float64 {
	w := c.colW
	col := func(i int) float64 { return swimLabelW + (float64(i)+0.5)*w }
	n := len(c.items)
	if !t.After(c.items[0].at) {
		return col(0) - w/2 + 2
	}
	if !t.Before(c.items[n-1].at) {
		return col(n-1) + w/2 - 2
	}
	for i := 0; i+1 < n; i++ {
		a, b := c.items[i].at, c.items[i+1].at
		if t.Before(a) || t.After(b) {
			continue
		}
		if !b.After(a) {
			return col(i)
		}
		return col(i) + float64(t.Sub(a))/float64(b.Sub(a))*w
	}
	return col(n - 1)
}

func swimBand(f history.Fault, cx columnAxis, i int, height float64) band {
	end := f.End
	label := f.Kind + " " + f.Target
	if end.IsZero() {
		end = cx.items[len(cx.items)-1].at.Add(time.Hour)
		label += " (never healed)"
	}
	x0, x1 := cx.x(f.Start), cx.x(end)
	if x1-x0 < 3 {
		x1 = x0 + 3
	}
	top := 4.0 + float64(i%2)*13
	return band{
		X: num(x0), W: num(x1 - x0), Top: num(top), H: num(height - top), LabelX: num(x0 + 3), LabelY: num(top + 10),
		Label: truncate(label, int(max(16, (x1-x0)/6.2))), Title: faultTitle(f),
	}
}
