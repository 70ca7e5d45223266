// Package chart is the candle chart pane: OHLC candles drawn with Unicode
// half blocks (two price steps per row) or ASCII, volume bars in eighths
// of a cell below, a price axis on the right and a time axis at the
// bottom. Drawn straight into the pane's canvas: no charting library
// needed for this, and it costs one pass over the cells.
package chart

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/panes/common"
)

// Model is the chart pane.
type Model struct {
	common.Base
	symbol, interval string
	title            string
	candles          *feed.Candles
	cols             []col
}

// col is one candle's geometry in sub-rows (two per text row).
type col struct {
	up               bool
	wickTop, wickBot int
	bodyTop, bodyBot int
	volEighths       int
	has              bool
}

// New returns a chart pane.
func New(c common.Common, symbol, interval string) *Model {
	m := &Model{symbol: symbol, interval: interval}
	m.Common = c
	m.load()
	return m
}

func (m *Model) load() {
	m.candles = m.Store.Candles[feed.CandleKey(m.symbol, m.interval)]
	m.title = "Chart " + m.symbol + " " + m.interval
	m.Invalidate()
}

// Title is the pane's title.
func (m *Model) Title() string { return m.title }

// Interval is the interval shown.
func (m *Model) Interval() string { return m.interval }

// Init does nothing.
func (m *Model) Init() tea.Cmd { return nil }

// Update handles feed updates, symbol and interval changes, and the
// interval keys (which ask the root to switch, so the feed follows).
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case common.FeedMsg:
		if cs := msg.Update.Candles[feed.CandleKey(m.symbol, m.interval)]; cs != nil && (m.candles == nil || cs.Version != m.candles.Version || cs.Loaded != m.candles.Loaded) {
			m.candles = cs
			m.Invalidate()
		}
	case common.SymbolMsg:
		if msg.Symbol != m.symbol {
			m.symbol = msg.Symbol
			m.load()
		}
	case common.IntervalMsg:
		if msg.Interval != m.interval {
			m.interval = msg.Interval
			m.load()
		}
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.Keys.NextInterval):
			return m, m.step(1)
		case key.Matches(msg, m.Keys.PrevInterval):
			return m, m.step(-1)
		}
	case common.PaneMouse:
		if msg.Wheel && msg.Button == tea.MouseWheelUp {
			return m, m.step(-1)
		} else if msg.Wheel && msg.Button == tea.MouseWheelDown {
			return m, m.step(1)
		}
	}
	return m, nil
}

func (m *Model) step(d int) tea.Cmd {
	for i, iv := range common.Intervals {
		if iv == m.interval {
			j := i + d
			if j < 0 || j >= len(common.Intervals) {
				return nil
			}
			next := common.Intervals[j]
			return func() tea.Msg { return common.IntervalMsg{Interval: next} }
		}
	}
	return nil
}

// Lines renders (or returns the cached) chart.
func (m *Model) Lines() []string { return m.Cached(m.render) }

// View is the chart as one string.
func (m *Model) View() string { return common.JoinLines(m.Lines()) }

const axisW = 11 // price labels on the right

func (m *Model) render(c *common.Canvas) {
	t := m.Theme
	w, h := m.Width, m.Height
	if m.candles == nil || (!m.candles.Loaded && len(m.candles.Rows) == 0) {
		for _, l := range common.Centered(w, h, t.Muted, "loading "+m.interval+" candles"+t.Glyphs.Ellipsis) {
			c.Text(l)
			c.EndLine()
		}
		return
	}
	rows := m.candles.Rows
	if len(rows) == 0 {
		for _, l := range common.Centered(w, h, t.Muted, "no "+m.interval+" candles") {
			c.Text(l)
			c.EndLine()
		}
		return
	}
	plotW := max(w-axisW, 1)
	if len(rows) > plotW {
		rows = rows[len(rows)-plotW:]
	}
	// Few candles: draw them wider (up to 3 cells and a gap), so a fresh
	// series is readable. cw cells per candle, the last one a gap when > 1.
	cw := max(1, min(plotW/len(rows), 4))
	volH := max(1, h/5)
	priceH := h - volH - 2 // minus the info line and the time axis
	if priceH < 2 {
		priceH, volH = max(h-2, 1), 0
	}

	// Range of the visible candles (decimal, exact) and geometry (float).
	hi, lo := rows[0].High, rows[0].Low
	maxVol := rows[0].Volume
	for _, r := range rows[1:] {
		if r.High.GreaterThan(hi) {
			hi = r.High
		}
		if r.Low.LessThan(lo) {
			lo = r.Low
		}
		if r.Volume.GreaterThan(maxVol) {
			maxVol = r.Volume
		}
	}
	fhi, flo := hi.InexactFloat64(), lo.InexactFloat64()
	span := fhi - flo
	sub := 2*priceH - 1
	y := func(p decimal.Decimal) int {
		if span <= 0 {
			return priceH // flat: middle
		}
		v := int((fhi-p.InexactFloat64())/span*float64(sub) + 0.5)
		return max(0, min(v, sub))
	}
	fmax := maxVol.InexactFloat64()
	if cap(m.cols) < len(rows) {
		m.cols = make([]col, len(rows))
	}
	m.cols = m.cols[:len(rows)]
	for i, r := range rows {
		up := !r.Close.LessThan(r.Open)
		bt, bb := y(r.Open), y(r.Close)
		if bt > bb {
			bt, bb = bb, bt
		}
		ve := 0
		if fmax > 0 {
			ve = int(r.Volume.InexactFloat64()/fmax*float64(volH*8) + 0.5)
		}
		m.cols[i] = col{up: up, wickTop: y(r.High), wickBot: y(r.Low), bodyTop: bt, bodyBot: bb, volEighths: ve, has: true}
	}

	// Info line: the last candle.
	last := rows[len(rows)-1]
	chg := decimal.Zero
	if !last.Open.IsZero() {
		chg = last.Close.Sub(last.Open).Div(last.Open).Mul(decimal.NewFromInt(100))
	}
	info := ohlcLine(last, w)
	cs := t.Buy
	if chg.IsNegative() {
		cs = t.Sell
	}
	c.Styled(t.Text, info)
	rest := w - c.Width()
	if pct := " " + chg.StringFixed(2) + "%"; rest >= len(pct) {
		c.Styled(cs, pct)
	}
	c.EndLine()

	// Price rows.
	labels := axisLabels(hi, lo, priceH)
	// The last price on the axis, at its row, in the colour of the last
	// candle (it wins over a range label on the same row).
	lastRow := y(last.Close) / 2
	lastStyle := t.BuyBold
	if last.Close.LessThan(last.Open) {
		lastStyle = t.SellBold
	}
	g := t.Glyphs
	var pen common.Pen
	for r := 0; r < priceH; r++ {
		up, dn := 2*r, 2*r+1
		for x := 0; x < plotW; x++ {
			i, sub := x/cw, x%cw
			if i >= len(m.cols) || (cw > 1 && sub == cw-1) {
				c.Put(&pen, "", " ")
				continue
			}
			k := m.cols[i]
			style := t.Buy
			if !k.up {
				style = t.Sell
			}
			inUp := up >= k.bodyTop && up <= k.bodyBot
			inDn := dn >= k.bodyTop && dn <= k.bodyBot
			wick := (up >= k.wickTop && up <= k.wickBot) || (dn >= k.wickTop && dn <= k.wickBot)
			switch {
			case inUp && inDn:
				c.Put(&pen, style, g.Full)
			case inUp:
				c.Put(&pen, style, g.Upper)
			case inDn:
				c.Put(&pen, style, g.Lower)
			case wick && sub == (cw-1)/2:
				c.Put(&pen, style, g.Wick)
			default:
				c.Put(&pen, "", " ")
			}
		}
		c.PenOff(&pen)
		switch l, ok := labels[r]; {
		case r == lastRow:
			c.Styled(lastStyle, common.Left(g.Left+last.Close.String(), axisW))
		case ok:
			c.Space(1).Styled(t.Muted, common.Left(l, axisW-1))
		}
		c.EndLine()
	}
	// Volume rows, bottom-aligned eighths.
	for r := 0; r < volH; r++ {
		base := (volH - 1 - r) * 8
		for x := 0; x < plotW; x++ {
			i, sub := x/cw, x%cw
			if i >= len(m.cols) || (cw > 1 && sub == cw-1) {
				c.Put(&pen, "", " ")
				continue
			}
			k := m.cols[i]
			e := max(0, min(k.volEighths-base, 8))
			style := t.Buy
			if !k.up {
				style = t.Sell
			}
			if e == 0 {
				style = ""
			}
			c.Put(&pen, style, g.VolEighths[e])
		}
		c.PenOff(&pen)
		if r == 0 {
			c.Space(1).Styled(t.Muted, common.Left("vol "+short(maxVol), axisW-1))
		}
		c.EndLine()
	}
	// Time axis: first and last candle start.
	first := stamp(rows[0].Start, m.interval)
	lastS := stamp(last.Start, m.interval)
	gap := plotW - len(first) - len(lastS)
	if gap >= 1 {
		c.Styled(t.Muted, first).Space(gap).Styled(t.Muted, lastS)
	} else {
		c.Styled(t.Muted, common.Cut(lastS, w))
	}
	c.EndLine()
}

// axisLabels puts the high, the middle and the low of the range on the
// price axis (exact decimals, not floats).
func axisLabels(hi, lo decimal.Decimal, rows int) map[int]string {
	if hi.Equal(lo) {
		return map[int]string{rows / 2: hi.String()}
	}
	out := map[int]string{0: hi.String(), rows - 1: lo.String()}
	if rows >= 5 {
		exp := min(hi.Exponent(), lo.Exponent())
		mid := hi.Add(lo).Div(decimal.NewFromInt(2)).Round(-exp)
		out[rows/2] = mid.String()
	}
	return out
}

// short formats a volume compactly: 1.2K, 3.4M.
func short(d decimal.Decimal) string {
	units := []struct {
		s string
		v int64
	}{{"B", 1e9}, {"M", 1e6}, {"K", 1e3}}
	for _, u := range units {
		if d.Abs().GreaterThanOrEqual(decimal.NewFromInt(u.v)) {
			return d.Div(decimal.NewFromInt(u.v)).StringFixed(1) + u.s
		}
	}
	if d.Exponent() < -2 {
		return d.StringFixed(2)
	}
	return d.String()
}

func stamp(ms int64, interval string) string {
	tm := time.UnixMilli(ms).UTC()
	switch {
	case interval == "1M" || interval == "1w":
		return tm.Format("2006-01-02")
	case strings.HasSuffix(interval, "d"):
		return tm.Format("01-02")
	case interval == "1h":
		return tm.Format("01-02 15h")
	}
	return tm.Format("15:04")
}

// ShortHelp is the pane's help line.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.Keys.NextInterval, m.Keys.PrevInterval}
}

// FullHelp is the pane's full help.
func (m *Model) FullHelp() [][]key.Binding { return [][]key.Binding{m.ShortHelp()} }

// ohlcLine is the last candle's " O .. H .. L .. C .." that fits width
// cells. Whole fields are dropped (open first, then low and high; the
// close stays) because a number cut short would show a wrong price.
func ohlcLine(k feed.Candle, width int) string {
	o, h, l, cl := " O "+k.Open.String(), " H "+k.High.String(), " L "+k.Low.String(), " C "+k.Close.String()
	for _, line := range []string{o + h + l + cl, h + l + cl, h + cl, cl} {
		if len(line) <= width {
			return line
		}
	}
	return ""
}
