package stats

import (
	"strings"
	"time"

	tslc "github.com/NimbleMarkets/ntcharts/v2/linechart/timeserieslinechart"

	st "tradedeck/stats"
)

// tradesChart draws trades and traders as two braille lines on one time
// axis with ntcharts' time-series line chart (Unicode mode only: braille
// has no ASCII form), w x h cells including a title line. Trades are never
// below traders, so the upper line is trades even without colour.
func (r *renderer) tradesChart(s st.Series, w, h int) []string {
	n := len(s.Rows)
	var title line
	title.put(r.st.Series, "Trades").put(r.st.Muted, " (upper) and ").put(r.st.Bar, "traders").
		put(r.st.Muted, " (lower) per "+map[bool]string{true: "hour", false: "day"}[s.Hourly])
	first, last := s.Rows[0].Time, s.Rows[n-1].Time
	peak := 0.0
	for _, row := range s.Rows {
		peak = max(peak, float64(row.Trades))
	}
	top, _ := axisScale(peak, h-1)
	span := last.Sub(first)
	xLabel := func(_ int, v float64) string {
		return dateLabel(time.Unix(int64(v), 0), s.Hourly, span)
	}
	yLabel := func(_ int, v float64) string { return st.Compact(v) }
	chart := tslc.New(w, h-1,
		tslc.WithTimeRange(first, last),
		tslc.WithYRange(0, top),
		tslc.WithXYSteps(max(8, w/8), max(1, (h-3)/2)),
		tslc.WithXLabelFormatter(xLabel),
		tslc.WithYLabelFormatter(yLabel),
		tslc.WithAxesStyles(r.st.Axis, r.st.Muted),
		tslc.WithDataSetStyle("trades", r.st.Series),
		tslc.WithDataSetStyle("traders", r.st.Bar),
	)
	for _, row := range s.Rows {
		chart.PushDataSet("trades", tslc.TimePoint{Time: row.Time, Value: float64(row.Trades)})
		chart.PushDataSet("traders", tslc.TimePoint{Time: row.Time, Value: float64(row.Traders)})
	}
	chart.DrawBrailleAll()
	out := []string{title.fit(w, r.g.ellipsis)}
	for _, l := range strings.Split(chart.View(), "\n") {
		var ln line
		ln.b.WriteString(l)
		ln.w = w // the canvas draws every cell
		out = append(out, ln.fit(w, ""))
	}
	return out
}
