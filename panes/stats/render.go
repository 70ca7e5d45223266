package stats

import (
	"strings"

	"github.com/shopspring/decimal"

	st "tradedeck/stats"
	"tradedeck/theme"
)

// renderCache holds the last rendered text and the model version it shows.
type renderCache struct {
	version uint64
	theme   theme.Theme // the theme drawn with: :theme overwrites it in place
	valid   bool
	view    string
	lines   []string
}

// fresh reports whether the cache shows the model's version in its theme.
func (rc *renderCache) fresh(m *Model) bool {
	return rc.valid && rc.version == m.version && rc.theme.Name == m.theme.Name && rc.theme.Glyphs.ASCII == m.theme.Glyphs.ASCII
}

func (rc *renderCache) update(m *Model) {
	if rc.fresh(m) {
		return
	}
	rc.theme = *m.theme
	r := renderer{st: stylesOf(m.theme), g: glyphsOf(m.theme.Glyphs)}
	rc.lines = r.layout(m)
	rc.view = strings.Join(rc.lines, "\n")
	rc.version, rc.valid = m.version, true
}

type renderer struct {
	st styles
	g  *glyphs
}

// layout renders the whole pane: exactly m.height lines of m.width cells.
func (r *renderer) layout(m *Model) []string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return nil
	}
	out := r.header(m, w)
	snap, ok := m.snaps[m.Key()]
	out = append(out, r.status(m, snap, ok, w))
	if ok && snap.HasData() {
		out = append(out, r.totals(snap.Report, w)...)
		if rest := h - len(out); rest > 0 {
			if rest > 30 {
				out = append(out, strings.Repeat(" ", w))
				rest--
			}
			out = append(out, r.body(snap.Report, w, rest)...)
		}
	}
	if len(out) > h {
		out = out[:h]
	}
	return append(out, blank(w, h-len(out))...)
}

// selector renders a list with the chosen item in [brackets] and the
// others padded to the same width, so switching does not shift the text.
func (r *renderer) selector(l *line, items []string, sel int) {
	for i, it := range items {
		if i == sel {
			l.put(r.st.Selected, "["+it+"]")
		} else {
			l.put(r.st.Muted, " "+it+" ")
		}
	}
}

func (r *renderer) header(m *Model, w int) []string {
	var nets, pers line
	nets.put(r.st.Label, "network ")
	r.selector(&nets, m.networks, m.ni)
	pers.put(r.st.Label, "period ")
	r.selector(&pers, m.periods, m.pi)
	title := "Swap stats"
	if nets.w+pers.w+len(title)+4 <= w {
		var l line
		l.put(r.st.Title, title).space(2)
		l.b.WriteString(nets.b.String())
		l.w += nets.w
		l.space(2)
		l.b.WriteString(pers.b.String())
		l.w += pers.w
		return []string{l.fit(w, "")}
	}
	if nets.w > w {
		// Too narrow for the list: name the selection and its place.
		nets = line{}
		nets.put(r.st.Label, "network ").put(r.st.Selected, "["+m.Network()+"]").
			put(r.st.Muted, " "+itoa(m.ni+1)+"/"+itoa(len(m.networks)))
	}
	return []string{nets.fit(w, r.g.ellipsis), pers.fit(w, r.g.ellipsis)}
}

func (r *renderer) status(m *Model, snap st.Snapshot, ok bool, w int) string {
	var l line
	switch {
	case !ok:
		l.put(r.st.Muted, "loading "+m.Network()+" "+m.Period()+r.g.ellipsis)
	case snap.HasData():
		l.put(r.st.Muted, "fetched ").put(r.st.Value, snap.FetchedAt.UTC().Format("2006-01-02 15:04:05")+" UTC")
		if snap.Stale() {
			l.space(2).put(r.st.Stale, "STALE").
				put(r.st.Error, " refresh failed "+snap.ErrAt.UTC().Format("15:04:05")+": "+oneLine(snap.Err.Error()))
		}
	default:
		l.put(r.st.Stale, "ERROR").put(r.st.Error, " "+m.Network()+" "+m.Period()+": "+oneLine(snap.Err.Error()))
	}
	return l.fit(w, r.g.ellipsis)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// totals is the headline: period volume and its change against the
// previous period, trades, traders and turnover; wrapped onto at most two
// lines, least important last.
func (r *renderer) totals(rep st.Report, w int) []string {
	s := rep.Series
	t := s.Totals()
	per := "/day"
	if s.Hourly {
		per = "/hour"
	}
	var segs []line
	seg := func() *line { segs = append(segs, line{}); return &segs[len(segs)-1] }
	seg().put(r.st.Label, "Volume ").put(r.st.Value, st.CompactUSD(st.ToFloat(t.VolumeUSD)))
	c := seg()
	if ch, ok := st.Change(t.VolumeUSD, rep.Previous.VolumeUSD); rep.HasPrevious && ok {
		style, arrow := r.st.Up, r.g.up
		if ch.IsNegative() {
			style, arrow = r.st.Down, r.g.down
		}
		if !r.g.isUnicode() {
			arrow = ""
		} else {
			arrow += " "
		}
		c.put(style, arrow+st.FormatChange(ch)).put(r.st.Muted, " vs prev "+s.Period+" ("+st.CompactUSD(st.ToFloat(rep.Previous.VolumeUSD))+")")
	} else {
		c.put(r.st.Muted, "vs prev "+s.Period+": n/a")
	}
	seg().put(r.st.Label, "Trades ").put(r.st.Value, st.FormatCount(t.Trades))
	seg().put(r.st.Label, "Traders ").put(r.st.Value, st.FormatCount(t.AvgTraders())).put(r.st.Muted, per+" avg, peak "+st.FormatCount(t.TraderPeak))
	if t.HasTurnover {
		seg().put(r.st.Label, "Turnover ").put(r.st.Value, t.Turnover.StringFixed(2)+"%").put(r.st.Muted, per+" avg")
	}
	var out []string
	var cur line
	for _, sg := range segs {
		if cur.w > 0 && cur.w+3+sg.w > w {
			out = append(out, cur.fit(w, r.g.ellipsis))
			cur = line{}
			if len(out) == 2 {
				return out
			}
		}
		if cur.w > 0 {
			cur.space(3)
		}
		cur.b.WriteString(sg.b.String())
		cur.w += sg.w
	}
	return append(out, cur.fit(w, r.g.ellipsis))
}

func (g *glyphs) isUnicode() bool { return !g.ascii }

// body lays out the charts under the headline in rows lines: the volume
// chart on top; below it the traders/trades/turnover series and the
// sources, side by side when the pane is wide, stacked otherwise.
func (r *renderer) body(rep st.Report, w, rows int) []string {
	s := rep.Series
	if len(s.Rows) == 0 {
		var l line
		l.put(r.st.Muted, "no data for "+s.Network+" "+s.Period)
		return []string{l.fit(w, r.g.ellipsis)}
	}
	nMini := 2
	if !s.Hourly {
		nMini = 3
	}
	const minChart = 6
	if w >= 120 {
		lw := w * 55 / 100
		rw := w - lw - 3
		bottomH := min(max(rows*40/100, nMini), rows-minChart-1)
		if bottomH < nMini {
			return r.volumeChart(s, w, rows)
		}
		mh := min(5, bottomH/nMini-1)
		bottom := beside(r.minis(s, lw, mh), lw, r.sources(rep, rw, bottomH), rw, 3)
		out := r.volumeChart(s, w, rows-len(bottom)-1)
		out = append(out, strings.Repeat(" ", w))
		return append(out, bottom...)
	}
	mh := 0
	if rows >= 40 {
		mh = 2
	}
	minis := r.minis(s, w, mh)
	srcH := min(len(rep.Sources)+1, max(4, rows*3/10))
	if rows-len(minis)-srcH < minChart {
		minis = r.minis(s, w, 0)
	}
	if rows-len(minis)-srcH < minChart {
		srcH = max(0, rows-len(minis)-minChart)
	}
	chartH := rows - len(minis) - srcH
	if chartH < minChart {
		return append(minis, r.sources(rep, w, rows-len(minis))...)
	}
	out := r.volumeChart(s, w, chartH)
	out = append(out, minis...)
	return append(out, r.sources(rep, w, srcH)...)
}

// mini is one small series: traders, trades or turnover.
type mini struct {
	label   string
	vals    []float64
	summary string
}

func (r *renderer) miniSeries(s st.Series) []mini {
	n := len(s.Rows)
	traders, trades, turnover := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, row := range s.Rows {
		traders[i] = float64(row.Traders)
		trades[i] = float64(row.Trades)
		turnover[i] = st.ToFloat(row.Turnover)
	}
	t := s.Totals()
	last := s.Rows[n-1]
	out := []mini{
		{"Traders", traders, "last " + st.FormatCount(last.Traders) + " peak " + st.FormatCount(t.TraderPeak)},
		{"Trades", trades, "last " + st.FormatCount(last.Trades) + " sum " + st.FormatCount(t.Trades)},
	}
	if !s.Hourly {
		out = append(out, mini{"Turnover", turnover, "last " + last.Turnover.StringFixed(2) + "% avg " + t.Turnover.StringFixed(2) + "%"})
	}
	return out
}

// minis draws the small series: one line each when mh is 0 or 1 (label,
// sparkline, summary), else a title line over mh sparkline rows.
func (r *renderer) minis(s st.Series, w, mh int) []string {
	var out []string
	series := r.miniSeries(s)
	sumW := 0 // one summary column, so the sparklines line up
	for _, mi := range series {
		sumW = max(sumW, min(len(mi.summary), w/3))
	}
	if mh >= 2 && r.g.isUnicode() && len(s.Rows) >= 2 {
		// Trades and traders share one braille line chart in the room of
		// their two sparkline blocks.
		out = r.tradesChart(s, w, 2*(mh+1))
		series = series[2:]
	}
	for _, mi := range series {
		if mh <= 1 {
			const labelW = 9
			spark := r.spark(mi.vals, max(0, w-labelW-sumW-1), 1, r.st.Series)[0]
			var l line
			l.put(r.st.Label, padRight(mi.label, labelW))
			l.b.WriteString(spark)
			l.w += max(0, w-labelW-sumW-1)
			l.space(1).put(r.st.Muted, padLeft(cut(mi.summary, sumW, r.g.ellipsis), sumW))
			out = append(out, l.fit(w, ""))
			continue
		}
		var t line
		t.put(r.st.Label, mi.label).put(r.st.Muted, "  "+mi.summary)
		out = append(out, t.fit(w, r.g.ellipsis))
		out = append(out, r.spark(mi.vals, w, mh, r.st.Series)...)
	}
	return out
}

// sources draws the split by source as ranked bars with percentages, in at
// most h lines (a title and the rows; the tail folds into one "more" row).
func (r *renderer) sources(rep st.Report, w, h int) []string {
	if h <= 0 {
		return nil
	}
	var t line
	t.put(r.st.Title, "Sources ").put(r.st.Muted, "by volume, "+rep.Series.Network+" "+rep.Series.Period)
	out := []string{t.fit(w, r.g.ellipsis)}
	src := rep.Sources
	if len(src) == 0 {
		var l line
		l.put(r.st.Muted, "no sources")
		return append(out, l.fit(w, ""))
	}
	shown, rest := src, []st.Source(nil)
	if room := h - 1; len(src) > room {
		shown, rest = src[:max(0, room-1)], src[max(0, room-1):]
	}
	nameW := 4
	for _, s := range shown {
		nameW = max(nameW, len([]rune(s.Name)))
	}
	nameW = min(nameW, 12)
	if len(rest) > 0 {
		nameW = max(nameW, len(itoa(len(rest))+" more"))
	}
	showVol, showTrades := w >= 50, w >= 70
	fixedW := 3 + nameW + 1 + 1 + 7
	if showVol {
		fixedW += 8
	}
	if showTrades {
		fixedW += 12
	}
	barW := max(1, w-fixedW)
	top := st.ToFloat(src[0].Percentage)
	row := func(rank, name string, pct decimal.Decimal, vol decimal.Decimal, trades int64, drawBar bool) string {
		var l line
		l.put(r.st.Muted, padLeft(rank, 2)+" ").put(r.st.Label, padRight(cut(name, nameW, r.g.ellipsis), nameW)).space(1)
		frac := 0.0
		if top > 0 {
			frac = st.ToFloat(pct) / top
		}
		bar := ""
		if drawBar { // the folded tail gets no bar: it is not one source
			bar = r.hbar(frac, barW)
		}
		n := len([]rune(bar))
		l.putN(r.st.Bar, bar, n).space(barW - n + 1)
		l.put(r.st.Value, padLeft(pct.StringFixed(2)+"%", 7))
		if showVol {
			l.put(r.st.Muted, padLeft(st.CompactUSD(st.ToFloat(vol)), 8))
		}
		if showTrades {
			l.put(r.st.Muted, padLeft(st.FormatCount(trades)+" txs", 12))
		}
		return l.fit(w, "")
	}
	for i, s := range shown {
		out = append(out, row(itoa(i+1), s.Name, s.Percentage, s.VolumeUSD, s.Trades, true))
	}
	if len(rest) > 0 {
		var pct, vol decimal.Decimal
		var trades int64
		for _, s := range rest {
			pct, vol, trades = pct.Add(s.Percentage), vol.Add(s.VolumeUSD), trades+s.Trades
		}
		out = append(out, row("+", itoa(len(rest))+" more", pct, vol, trades, false))
	}
	return out
}
