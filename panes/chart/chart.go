// Package chart is the candle chart pane: OHLC candles drawn with Unicode
// half blocks (two price steps per row) or ASCII, volume bars in eighths
// of a cell below, a price axis on the right and a time axis at the
// bottom. Drawn straight into the pane's canvas: no charting library
// needed for this, and it costs one pass over the cells.
package chart

import (
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/fixed"
	"tradedeck/panes/common"
	"tradedeck/panes/depth"
	"tradedeck/venue"
)

// View is what the chart pane draws.
type View int

const (
	Candles View = iota // candles and volume of the interval
	Depth               // the book's cumulative depth (panes/depth.Curve)
	HeatMap             // the book's history (panes/depth.Heat)
	numViews
)

// Model is the chart pane.
type Model struct {
	common.Base
	symbol, interval string
	// asked is the interval a key asked the root for, until the root
	// answers: a second key pressed before that steps from it, so ">>"
	// gives 15m, not 5m twice.
	asked   string
	title   string
	candles *feed.Candles
	cols    []col
	// levels are the symbol's algo triggers, lrows their rows (triggers.go).
	levels []common.Level
	lrows  []int
	view   View
	book   *feed.Book
	curve  depth.Curve
	heat   depth.Heat // fed with every book update, shown or not
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
	m.Common, m.Draw = c, m.render
	m.load()
	return m
}

func (m *Model) load() {
	m.candles = m.Store.Candles[feed.CandleKey(m.symbol, m.interval)]
	m.book = m.Store.Books[m.symbol]
	switch m.view {
	case Depth:
		m.title = "Depth " + m.symbol
	case HeatMap:
		m.title = "Heat map " + m.symbol
	default:
		m.title = "Chart " + m.symbol + " " + m.interval
	}
	m.Invalidate()
}

// ShowView switches what the pane draws.
func (m *Model) ShowView(v View) {
	if v >= 0 && v < numViews && v != m.view {
		m.view = v
		m.load()
	}
}

// ViewShown is what the pane draws.
func (m *Model) ViewShown() View { return m.view }

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
		m.feed(msg.Update)
	case common.AlgosMsg:
		m.loadLevels()
	case common.SymbolMsg:
		if msg.Symbol != m.symbol {
			m.symbol = msg.Symbol
			m.heat.Reset()
			m.load()
			m.loadLevels()
		}
	case common.IntervalMsg:
		m.asked = "" // the root has answered: step from what it chose
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
		case key.Matches(msg, m.Keys.ChartView):
			m.ShowView((m.view + 1) % numViews)
		}
	case common.PaneMouse:
		if m.view != Candles {
			return m, nil // the wheel changes the candles' interval
		}
		if msg.Wheel && msg.Button == tea.MouseWheelUp {
			return m, m.step(-1)
		} else if msg.Wheel && msg.Button == tea.MouseWheelDown {
			return m, m.step(1)
		}
	}
	return m, nil
}

// feed takes what the views draw from an update: candles, the book (the
// heat map records every change, shown or not), trades, own orders.
func (m *Model) feed(u *feed.Update) {
	if cs := u.Candles[feed.CandleKey(m.symbol, m.interval)]; cs != nil && (m.candles == nil || cs.Version != m.candles.Version || cs.Loaded != m.candles.Loaded) {
		m.candles = cs
		if m.view == Candles {
			m.Invalidate()
		}
	}
	if b := u.Books[m.symbol]; b != nil && (m.book == nil || b.Version != m.book.Version || b.State != m.book.State) {
		m.book = b
		m.heat.AddBook(b)
		if m.view != Candles {
			m.Invalidate()
		}
	}
	if tr := u.Trades[m.symbol]; tr != nil {
		m.heat.AddTrades(tr)
		if m.view == HeatMap {
			m.Invalidate()
		}
	}
	if u.Account != nil && m.view == Depth {
		m.Invalidate()
	}
}

func (m *Model) step(d int) tea.Cmd {
	from := m.interval
	if m.asked != "" {
		from = m.asked
	}
	for i, iv := range venue.Intervals {
		if iv == from {
			j := i + d
			if j < 0 || j >= len(venue.Intervals) {
				return nil
			}
			next := venue.Intervals[j]
			m.asked = next
			return func() tea.Msg { return common.SetIntervalMsg{Interval: next} }
		}
	}
	return nil
}

const axisW = 11 // price labels on the right

// frame is the geometry of one rendering: the visible candles, the cells
// per candle, the heights of the price and volume areas, and the range.
type frame struct {
	rows          []feed.Candle
	plotW, cw     int
	priceH, volH  int
	hi, lo, vol   decimal.Decimal
	fhi, flo, sub float64
}

// y is the sub-row (two per text row) of a price.
func (f *frame) y(p decimal.Decimal) int {
	span := f.fhi - f.flo
	if span <= 0 {
		return f.priceH // flat: middle
	}
	v := int((f.fhi-p.InexactFloat64())/span*f.sub + 0.5)
	return max(0, min(v, int(f.sub)))
}

func (m *Model) render(c *common.Canvas) {
	switch m.view {
	case Depth:
		m.curve.Draw(c, m.Theme, m.book, m.ownPrices(), m.Width, m.Height)
		return
	case HeatMap:
		m.heat.Draw(c, m.Theme, m.Width, m.Height)
		return
	}
	m.candleChart(c)
}

// ownPrices are the prices of the account's open orders on the symbol, in
// the book's fixed point.
func (m *Model) ownPrices() []int64 {
	if m.book == nil {
		return nil
	}
	var out []int64
	for _, o := range m.Store.OpenOrders(m.symbol) {
		if p, ok := fixed.FromDecimal(o.Price, m.book.Scale.PriceDec); ok && p > 0 {
			out = append(out, p)
		}
	}
	return out
}

// candleChart draws the candles, volume and axes.
func (m *Model) candleChart(c *common.Canvas) {
	t := m.Theme
	w, h := m.Width, m.Height
	if m.candles == nil || (!m.candles.Loaded && len(m.candles.Rows) == 0) {
		c.Lines(common.Centered(w, h, t.Muted, "loading "+m.interval+" candles"+t.Glyphs.Ellipsis))
		return
	}
	if len(m.candles.Rows) == 0 {
		c.Lines(common.Centered(w, h, t.Muted, "no "+m.interval+" candles"))
		return
	}
	f := m.layout(m.candles.Rows, w, h)
	m.columns(&f)
	m.infoLine(c, f.rows[len(f.rows)-1], w)
	m.priceRows(c, &f)
	m.volumeRows(c, &f)
	// Time axis: first and last candle start.
	first := stamp(f.rows[0].Start, m.interval)
	lastS := stamp(f.rows[len(f.rows)-1].Start, m.interval)
	if gap := f.plotW - len(first) - len(lastS); gap >= 1 {
		c.Styled(t.Muted, first).Space(gap).Styled(t.Muted, lastS)
	} else {
		c.Styled(t.Muted, common.Cut(lastS, w))
	}
	c.EndLine()
}

// layout chooses the visible candles and the areas' sizes, and finds the
// range (exact decimals for the labels, floats for the geometry).
func (m *Model) layout(rows []feed.Candle, w, h int) frame {
	f := frame{plotW: max(w-axisW, 1)}
	if len(rows) > f.plotW {
		rows = rows[len(rows)-f.plotW:]
	}
	f.rows = rows
	// Few candles: draw them wider (up to 3 cells and a gap), so a fresh
	// series is readable. cw cells per candle, the last one a gap when > 1.
	f.cw = max(1, min(f.plotW/len(rows), 4))
	f.volH = max(1, h/5)
	f.priceH = h - f.volH - 2 // minus the info line and the time axis
	if f.priceH < 2 {
		f.priceH, f.volH = max(h-2, 1), 0
	}
	f.hi, f.lo, f.vol = rows[0].High, rows[0].Low, rows[0].Volume
	for _, r := range rows[1:] {
		if r.High.GreaterThan(f.hi) {
			f.hi = r.High
		}
		if r.Low.LessThan(f.lo) {
			f.lo = r.Low
		}
		if r.Volume.GreaterThan(f.vol) {
			f.vol = r.Volume
		}
	}
	m.withLevels(&f)
	f.fhi, f.flo = f.hi.InexactFloat64(), f.lo.InexactFloat64()
	f.sub = float64(2*f.priceH - 1)
	return f
}

// columns computes each candle's geometry once per rendering.
func (m *Model) columns(f *frame) {
	fmax := f.vol.InexactFloat64()
	if cap(m.cols) < len(f.rows) {
		m.cols = make([]col, len(f.rows))
	}
	m.cols = m.cols[:len(f.rows)]
	for i, r := range f.rows {
		bt, bb := f.y(r.Open), f.y(r.Close)
		if bt > bb {
			bt, bb = bb, bt
		}
		ve := 0
		if fmax > 0 {
			ve = int(r.Volume.InexactFloat64()/fmax*float64(f.volH*8) + 0.5)
		}
		m.cols[i] = col{up: !r.Close.LessThan(r.Open), wickTop: f.y(r.High), wickBot: f.y(r.Low), bodyTop: bt, bodyBot: bb, volEighths: ve, has: true}
	}
}

// infoLine is the last candle's OHLC and change.
func (m *Model) infoLine(c *common.Canvas, last feed.Candle, w int) {
	t := m.Theme
	chg := decimal.Zero
	if !last.Open.IsZero() {
		chg = last.Close.Sub(last.Open).Div(last.Open).Mul(decimal.NewFromInt(100))
	}
	cs := t.Buy
	if chg.IsNegative() {
		cs = t.Sell
	}
	c.Styled(t.Text, ohlcLine(last, w, m.price))
	if pct := " " + chg.StringFixed(2) + "%"; w-c.Width() >= len(pct) {
		c.Styled(cs, pct)
	}
	c.EndLine()
}

// price formats a price at the symbol's decimals.
func (m *Model) price(d decimal.Decimal) string { return m.Store.Price(m.symbol, d) }

// priceRows draws the candles, two price steps per row, with the axis.
func (m *Model) priceRows(c *common.Canvas, f *frame) {
	t, g := m.Theme, m.Theme.Glyphs
	labels := axisLabels(f.hi, f.lo, f.priceH, m.price)
	// The last price on the axis, at its row, in the colour of the last
	// candle (it wins over a range label on the same row).
	last := f.rows[len(f.rows)-1]
	lastRow := f.y(last.Close) / 2
	lastStyle := t.BuyBold
	if last.Close.LessThan(last.Open) {
		lastStyle = t.SellBold
	}
	var pen common.Pen
	m.levelRows(f)
	for r := 0; r < f.priceH; r++ {
		lv, onLevel := m.levelAt(r)
		lvStyle, letter := m.levelStyle(lv)
		for x := 0; x < f.plotW; x++ {
			k, ok := m.at(x, f.cw)
			style, glyph := "", " "
			if ok {
				style, glyph = m.candleCell(k, 2*r, x%f.cw == (f.cw-1)/2)
			}
			if onLevel && glyph == " " {
				style, glyph = lvStyle, g.H // the trigger's line in the gaps
			}
			c.Put(&pen, style, glyph)
		}
		c.PenOff(&pen)
		switch l, ok := labels[r]; {
		case r == lastRow:
			c.Styled(lastStyle, common.Left(g.Left+m.price(last.Close), axisW))
		case onLevel:
			c.Styled(lvStyle, common.Left(letter+m.price(lv.Price), axisW))
		case ok:
			c.Space(1).Styled(t.Muted, common.Left(l, axisW-1))
		}
		c.EndLine()
	}
}

// at is the candle drawn at column x, false in a gap or past the last.
func (m *Model) at(x, cw int) (col, bool) {
	i, sub := x/cw, x%cw
	if i >= len(m.cols) || (cw > 1 && sub == cw-1) {
		return col{}, false
	}
	return m.cols[i], true
}

// candleCell is the glyph of a candle in the row whose upper sub-row is
// up; the wick is drawn in the candle's middle cell.
func (m *Model) candleCell(k col, up int, middle bool) (style, glyph string) {
	t, g := m.Theme, m.Theme.Glyphs
	style = t.Buy
	if !k.up {
		style = t.Sell
	}
	dn := up + 1
	inUp := up >= k.bodyTop && up <= k.bodyBot
	inDn := dn >= k.bodyTop && dn <= k.bodyBot
	wick := (up >= k.wickTop && up <= k.wickBot) || (dn >= k.wickTop && dn <= k.wickBot)
	switch {
	case inUp && inDn:
		return style, g.Full
	case inUp:
		return style, g.Upper
	case inDn:
		return style, g.Lower
	case wick && middle:
		return style, g.Wick
	}
	return "", " "
}

// volumeRows draws the volume bars, bottom-aligned eighths.
func (m *Model) volumeRows(c *common.Canvas, f *frame) {
	t, g := m.Theme, m.Theme.Glyphs
	var pen common.Pen
	for r := 0; r < f.volH; r++ {
		base := (f.volH - 1 - r) * 8
		for x := 0; x < f.plotW; x++ {
			k, ok := m.at(x, f.cw)
			if !ok {
				c.Put(&pen, "", " ")
				continue
			}
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
			c.Space(1).Styled(t.Muted, common.Left("vol "+short(f.vol), axisW-1))
		}
		c.EndLine()
	}
}

// axisLabels puts the high, the middle and the low of the range on the
// price axis (exact decimals, not floats).
func axisLabels(hi, lo decimal.Decimal, rows int, price func(decimal.Decimal) string) map[int]string {
	if hi.Equal(lo) {
		return map[int]string{rows / 2: price(hi)}
	}
	out := map[int]string{0: price(hi), rows - 1: price(lo)}
	if rows >= 5 {
		exp := min(hi.Exponent(), lo.Exponent())
		mid := hi.Add(lo).Div(decimal.NewFromInt(2)).Round(-exp)
		out[rows/2] = price(mid)
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

// ShortHelp is the pane's help line: only the interval keys that have
// an interval to go to (none shorter than the shortest).
func (m *Model) ShortHelp() []key.Binding {
	if m.view != Candles {
		return []key.Binding{m.Keys.ChartView}
	}
	var out []key.Binding
	from := m.interval
	if m.asked != "" {
		from = m.asked
	}
	if i := slices.Index(venue.Intervals, from); i >= 0 {
		if i < len(venue.Intervals)-1 {
			out = append(out, m.Keys.NextInterval)
		}
		if i > 0 {
			out = append(out, m.Keys.PrevInterval)
		}
	}
	return append(out, m.Keys.ChartView)
}

// FullHelp is the pane's full help.
func (m *Model) FullHelp() [][]key.Binding { return [][]key.Binding{m.ShortHelp()} }

// ohlcLine is the last candle's " O .. H .. L .. C .." that fits width
// cells. Whole fields are dropped (open first, then low and high; the
// close stays) because a number cut short would show a wrong price.
func ohlcLine(k feed.Candle, width int, price func(decimal.Decimal) string) string {
	o, h, l, cl := " O "+price(k.Open), " H "+price(k.High), " L "+price(k.Low), " C "+price(k.Close)
	for _, line := range []string{o + h + l + cl, h + l + cl, h + cl, cl} {
		if len(line) <= width {
			return line
		}
	}
	return ""
}
