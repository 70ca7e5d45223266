package stats

import (
	"math"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	st "tradedeck/stats"
)

// The charts are drawn here rather than with ntcharts' barchart/linechart:
// those only draw with block, box and braille runes (the pane must also
// draw in plain ASCII), label the axes every n-th cell with one formatter
// (we want K/M/B ticks at round values and date labels at bucket starts),
// and the barchart has no value axis at all. The traders/trades panel does
// use ntcharts (braille lines) in Unicode mode; see lines.go.

// yLabelWidth fits the longest compact label, "$12.3M".
const yLabelWidth = 6

// niceStep rounds a raw tick step up to a round multiple of a power of
// ten: 1, 2, 2.5 or 5 when there are several ticks (their multiples stay
// round), or any of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 for a single one.
func niceStep(raw float64, single bool) float64 {
	if raw <= 0 {
		return 1
	}
	mults := []float64{1, 2, 2.5, 5, 10}
	if single {
		mults = []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range mults {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// axisScale picks the top of the value axis and the number of tick
// intervals for rows of plot: the round top closest above the maximum,
// with as many ticks as fit when several give the same top.
func axisScale(maxV float64, rows int) (top float64, ticks int) {
	if maxV <= 0 {
		return 1, 1
	}
	top, ticks = math.Inf(1), 1
	for t := 1; t <= max(1, min(5, rows/2)); t++ {
		if s := niceStep(maxV/float64(t), t == 1) * float64(t); s <= top*(1+1e-9) { // ties: more ticks
			top, ticks = s, t
		}
	}
	return top, ticks
}

// dateLabel formats a bucket start for the x axis of a period.
func dateLabel(t time.Time, hourly bool, span time.Duration) string {
	t = t.UTC()
	switch {
	case hourly && t.Hour() == 0:
		return t.Format("Jan 02") // the day changes here
	case hourly:
		return t.Format("15:04")
	case span > 400*24*time.Hour:
		return t.Format("Jan 2006")
	default:
		return t.Format("Jan 02")
	}
}

// volumeChart draws the period's volume as columns with a K/M/B USD value
// axis and date labels: a title line, the plot, the axis line and the
// labels, w x h cells in all.
func (r *renderer) volumeChart(s st.Series, w, h int) []string {
	out := make([]string, 0, h)
	plotW := w - yLabelWidth - 1
	rows := h - 3
	buckets := s.Buckets(plotW)
	what := "per day"
	switch {
	case s.Hourly:
		what = "per hour"
	case len(buckets) > 0 && buckets[0].Rows > 1:
		what = "per " + itoa(buckets[0].Rows) + " days"
	}
	var title line
	title.put(r.st.Title, "Volume USD ").put(r.st.Muted, what)
	if len(buckets) == 0 || rows < 1 || plotW < 4 {
		out = append(out, title.fit(w, r.g.ellipsis))
		return append(out, blank(w, h-1)...)
	}
	vals := make([]float64, len(buckets))
	maxV, maxAt := 0.0, 0
	for i, b := range buckets {
		vals[i] = st.ToFloat(b.VolumeUSD)
		if vals[i] > maxV {
			maxV, maxAt = vals[i], i
		}
	}
	title.put(r.st.Muted, " "+r.g.dot+" peak ").put(r.st.Value, st.CompactUSD(maxV)).
		put(r.st.Muted, " "+dateLabel(buckets[maxAt].Start, s.Hourly, 0))
	out = append(out, title.fit(w, r.g.ellipsis))

	top, ticks := axisScale(maxV, rows)
	cols := columns(len(buckets), plotW)
	heights := make([]int, len(vals)) // in eighths of a cell
	for i, v := range vals {
		heights[i] = int(math.Round(v / top * float64(rows*8)))
		if v > 0 && heights[i] == 0 {
			heights[i] = 1 // a quiet hour still shows
		}
	}
	labels := map[int]string{} // plot row (from the top) -> tick label
	for i := 1; i <= ticks; i++ {
		k := int(math.Round(float64(i) * float64(rows) / float64(ticks)))
		labels[rows-k] = st.CompactUSD(top * float64(i) / float64(ticks))
	}
	var bars strings.Builder
	for row := 0; row < rows; row++ {
		var l line
		lab, tick := labels[row]
		l.put(r.st.Muted, padLeft(lab, yLabelWidth))
		if tick {
			l.put(r.st.Axis, r.g.axisTick)
		} else {
			l.put(r.st.Axis, r.g.axisV)
		}
		bars.Reset()
		base := (rows - 1 - row) * 8 // eighths below this row
		for _, b := range cols.bucket {
			if b < 0 {
				bars.WriteByte(' ')
				continue
			}
			bars.WriteString(r.g.vEighths[min(8, max(0, heights[b]-base))])
		}
		l.putN(r.st.Bar, bars.String(), len(cols.bucket))
		out = append(out, l.fit(w, ""))
	}
	var axis line
	axis.put(r.st.Muted, padLeft("$0", yLabelWidth)).putN(r.st.Axis, r.g.corner+strings.Repeat(r.g.axisH, plotW), plotW+1)
	out = append(out, axis.fit(w, ""))
	out = append(out, r.xLabels(buckets, s.Hourly, cols.start, w))
	return out
}

// colMap says which bucket each plot column draws (-1: a gap) and where
// each bucket starts.
type colMap struct {
	bucket []int
	start  []int
}

// columns spreads n buckets over w columns. Wide slots get a one-column gap
// between bars; narrow ones fill the width with bars of one or two columns.
func columns(n, w int) colMap {
	c := colMap{bucket: make([]int, 0, w), start: make([]int, n)}
	if slot := w / n; slot >= 3 {
		for i := range n {
			c.start[i] = len(c.bucket)
			for j := range slot {
				if j == slot-1 {
					c.bucket = append(c.bucket, -1)
				} else {
					c.bucket = append(c.bucket, i)
				}
			}
		}
		return c
	}
	for x := range w {
		b := x * n / w
		if x == 0 || c.bucket[x-1] != b {
			c.start[b] = x
		}
		c.bucket = append(c.bucket, b)
	}
	return c
}

// xLabels places date labels at bucket starts wherever they fit with two
// cells between neighbours: day changes of hourly charts first, then the
// rest from left to right.
func (r *renderer) xLabels(buckets []st.Bucket, hourly bool, starts []int, w int) string {
	span := buckets[len(buckets)-1].End.Sub(buckets[0].Start)
	buf := []byte(strings.Repeat(" ", w))
	used := make([]bool, w) // cells taken by a label or the two-cell margins around it
	place := func(i int) {
		x := yLabelWidth + 1 + starts[i]
		lab := dateLabel(buckets[i].Start, hourly, span)
		if x+len(lab) > w {
			return
		}
		for c := x; c < x+len(lab); c++ {
			if used[c] {
				return
			}
		}
		copy(buf[x:], lab)
		for c := max(0, x-2); c < min(w, x+len(lab)+2); c++ {
			used[c] = true
		}
	}
	if hourly {
		for i, b := range buckets {
			if b.Start.UTC().Hour() == 0 {
				place(i)
			}
		}
	}
	for i := range buckets {
		place(i)
	}
	var l line
	l.put(r.st.Muted, strings.TrimRight(string(buf), " "))
	return l.fit(w, "")
}

// spark draws values as columns, w x h cells, scaled to their maximum.
func (r *renderer) spark(vals []float64, w, h int, style lipgloss.Style) []string {
	vals = resample(vals, w)
	maxV := 0.0
	for _, v := range vals {
		maxV = math.Max(maxV, v)
	}
	out := make([]string, h)
	for row := range out {
		var b strings.Builder
		base := (h - 1 - row) * 8
		for _, v := range vals {
			e := 0
			if maxV > 0 {
				e = int(math.Round(v / maxV * float64(h*8)))
				if v > 0 && e == 0 {
					e = 1
				}
			}
			b.WriteString(r.g.vEighths[min(8, max(0, e-base))])
		}
		var l line
		l.putN(style, b.String(), len(vals))
		out[row] = l.fit(w, "")
	}
	return out
}

// resample maps values onto exactly w columns: each column averages the
// values it covers, or repeats the value it falls in when there are fewer
// values than columns.
func resample(vals []float64, w int) []float64 {
	n := len(vals)
	if n == 0 || w <= 0 {
		return nil
	}
	out := make([]float64, w)
	for x := range out {
		lo, hi := x*n/w, (x+1)*n/w
		if hi <= lo {
			out[x] = vals[lo]
			continue
		}
		sum := 0.0
		for _, v := range vals[lo:hi] {
			sum += v
		}
		out[x] = sum / float64(hi-lo)
	}
	return out
}

// hbar draws a bar of frac (0..1) of w cells with eighth-cell resolution.
func (r *renderer) hbar(frac float64, w int) string {
	e := int(math.Round(frac * float64(w*8)))
	if frac > 0 && e == 0 {
		e = 1
	}
	full := min(e/8, w)
	s := strings.Repeat(r.g.hEighths[8], full)
	if full < w && e%8 > 0 {
		s += r.g.hEighths[e%8]
	}
	return s
}

func itoa(n int) string { return st.FormatCount(int64(n)) }
