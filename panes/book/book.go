// Package book is the order book pane: asks above bids, a mid/spread line,
// cumulative depth bars, price grouping by tick multiples, own open orders
// marked at their level, levels that just changed briefly highlighted, and
// the sync state shown over the book when it cannot be trusted.
package book

import (
	"math"
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/algo"
	"tradedeck/feed"
	"tradedeck/fixed"
	"tradedeck/panes/common"
)

// FlashFor is how long a changed level stays highlighted.
const FlashFor = 400 * time.Millisecond

// groups are the multiples of the tick the book can be grouped by.
var groups = []int64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}

// Model is the book pane.
type Model struct {
	common.Base
	symbol string
	book   *feed.Book
	tick   int64 // price units per tick (fixed-point at the book's PriceDec)
	group  int   // index into groups

	asks, bids         []feed.Level // grouped, best first
	prevAsks, prevBids []feed.Level
	changed            map[int64]time.Time // grouped price -> when its size changed
	flashArmed         bool

	title string
	sel   int            // keyboard-selected level: -1 best ask, -2 next ask..., +1 best bid...; 0 none
	own   map[int64]bool // grouped prices with own open orders
	// trigs are the symbol's algo trigger levels (triggers.go); mark is
	// the one of the level being drawn.
	trigs     []trigger
	levels    []common.Level
	trigScale int
	mark      algo.Leg
	rowPrice  []int64 // per inner row: price of the level shown (0 = none)
	rowSide   []feed.Side
	scratch   []byte
	pace      common.Pacer[*feed.Book] // a level added or removed moves every row: batched on SSH screens
}

type flashMsg struct{}

// New returns a book pane for symbol.
func New(c common.Common, symbol string) *Model {
	m := &Model{symbol: symbol, tick: 1, changed: map[int64]time.Time{}, own: map[int64]bool{}}
	m.Common, m.Draw = c, m.render
	m.pace.Every = c.Pace
	m.Invalidate()
	m.load()
	return m
}

// SetTick sets the symbol's price tick in fixed-point units (from its rule).
func (m *Model) SetTick(units int64) {
	if units > 0 && units != m.tick {
		m.tick = units
		m.regroup()
		m.retitle()
	}
}

// Title is the pane's title.
func (m *Model) Title() string { return m.title }

func (m *Model) retitle() {
	m.title = "Book " + m.symbol
	if g := m.groupUnits(); g > 1 && m.book != nil {
		m.title += " by " + string(fixed.Append(nil, g, m.book.Scale.PriceDec))
	}
	if m.book != nil && m.book.State != feed.Live {
		m.title += " [" + stateText(m.book.State) + "]" // visible in the border too
	}
}

func (m *Model) groupUnits() int64 { return groups[m.group] * m.tick }

// Init does nothing: the book waits for the feed.
func (m *Model) Init() tea.Cmd { return nil }

// Update handles feed updates, symbol changes, grouping keys and clicks.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case common.FeedMsg:
		var paced tea.Cmd
		if b := msg.Update.Books[m.symbol]; b != nil && (m.book == nil || b.Version != m.book.Version || b.State != m.book.State) {
			paced = m.pace.Offer(m.Clock(), b, m.setBook)
		}
		if msg.Update.Account != nil {
			m.ownOrders()
		}
		return m, tea.Batch(paced, m.armFlash())
	case common.PaceMsg:
		return m, tea.Batch(m.pace.Tick(m.Clock(), msg, m.setBook), m.armFlash())
	case common.AlgosMsg:
		m.loadTriggers()
	case common.SymbolMsg:
		if msg.Symbol != m.symbol {
			m.symbol, m.sel = msg.Symbol, 0
			m.book, m.asks, m.bids, m.prevAsks, m.prevBids = nil, nil, nil, nil, nil
			clear(m.changed)
			m.pace.Drop()
			m.load()
		}
	case flashMsg:
		m.flashArmed = false
		m.Invalidate()
		return m, m.armFlash()
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.Keys.GroupMore):
			m.setGroup(m.group + 1)
		case key.Matches(msg, m.Keys.GroupLess):
			m.setGroup(m.group - 1)
		case key.Matches(msg, m.Keys.Up):
			m.moveSel(-1)
		case key.Matches(msg, m.Keys.Down):
			m.moveSel(1)
		case key.Matches(msg, m.Keys.Select):
			return m, m.useSelected()
		}
	case common.PaneMouse:
		return m, m.mouse(msg)
	}
	return m, nil
}

func (m *Model) load() {
	m.book = m.Store.Books[m.symbol]
	m.regroup()
	m.ownOrders()
	m.retitle()
}

func (m *Model) setGroup(g int) {
	if g < 0 || g >= len(groups) || g == m.group {
		return
	}
	m.group, m.sel = g, 0
	m.prevAsks, m.prevBids = nil, nil
	clear(m.changed)
	m.regroup()
	m.ownOrders()
	m.retitle()
}

// moveSel walks the selection across the book, through the spread: up
// goes towards the asks (away from the bids), down towards the bids.
func (m *Model) moveSel(d int) {
	n := m.sel
	switch {
	case n == 0 && d < 0:
		n = -1
	case n == 0:
		n = 1
	case n == -1 && d > 0:
		n = 1
	case n == 1 && d < 0:
		n = -1
	default:
		n += d // asks count up the screen (-1, -2, ...), bids down it
	}
	if n < 0 && -n > len(m.asks) || n > 0 && n > len(m.bids) {
		return
	}
	m.sel = n
	m.Invalidate()
}

// selected is the level under the keyboard selection.
func (m *Model) selected() (feed.Level, feed.Side, bool) {
	switch {
	case m.sel < 0 && -m.sel <= len(m.asks):
		return m.asks[-m.sel-1], feed.Sell, true
	case m.sel > 0 && m.sel <= len(m.bids):
		return m.bids[m.sel-1], feed.Buy, true
	}
	return feed.Level{}, 0, false
}

func (m *Model) useSelected() tea.Cmd {
	l, side, ok := m.selected()
	if !ok || m.book == nil {
		return nil
	}
	return m.usePrice(l.Price, side)
}

func (m *Model) usePrice(price int64, side feed.Side) tea.Cmd {
	msg := common.UsePriceMsg{Symbol: m.symbol, Side: side, Price: fixed.ToDecimal(price, m.book.Scale.PriceDec)}
	return tea.Batch(func() tea.Msg { return msg },
		common.Notify(common.NoticeInfo, "price "+msg.Price.String()+" picked for the order form"))
}

func (m *Model) mouse(e common.PaneMouse) tea.Cmd {
	if e.Wheel {
		switch e.Button {
		case tea.MouseWheelUp:
			m.setGroup(m.group - 1)
		case tea.MouseWheelDown:
			m.setGroup(m.group + 1)
		}
		return nil
	}
	if e.Button != tea.MouseLeft || e.Y < 0 || e.Y >= len(m.rowPrice) || m.rowPrice[e.Y] == 0 || m.book == nil {
		return nil
	}
	return m.usePrice(m.rowPrice[e.Y], m.rowSide[e.Y])
}

// setBook shows b.
func (m *Model) setBook(b *feed.Book) {
	first := m.book == nil
	stateChanged := first || m.book.State != b.State
	m.book = b
	m.regroup()
	if first {
		m.ownOrders()
	}
	if first || b.Scale.PriceDec != m.trigScale {
		m.loadTriggers()
	}
	if stateChanged {
		m.retitle()
	}
}

// armFlash schedules a redraw when the oldest highlight expires.
func (m *Model) armFlash() tea.Cmd {
	if m.flashArmed || len(m.changed) == 0 {
		return nil
	}
	now := m.Clock()
	next := time.Duration(-1)
	for p, t := range m.changed {
		left := FlashFor - now.Sub(t)
		if left <= 0 {
			delete(m.changed, p)
			m.Invalidate()
			continue
		}
		if next < 0 || left < next {
			next = left
		}
	}
	if next < 0 {
		return nil
	}
	m.flashArmed = true
	return tea.Tick(next+time.Millisecond, func(time.Time) tea.Msg { return flashMsg{} })
}

func (m *Model) ownOrders() {
	clear(m.own)
	if m.book == nil {
		return
	}
	g := m.groupUnits()
	for _, o := range m.Store.OpenOrders(m.symbol) {
		p, ok := fixed.FromDecimal(o.Price, m.book.Scale.PriceDec)
		if !ok || p <= 0 {
			continue
		}
		if r := p % g; r != 0 {
			p -= r
			if o.Side == "SELL" {
				p += g
			}
		}
		m.own[p] = true
	}
	m.Invalidate()
}

func (m *Model) render(c *common.Canvas) {
	t := m.Theme
	w, h := m.Width, m.Height
	m.rowPrice = resize(m.rowPrice, h)
	m.rowSide = resizeSide(m.rowSide, h)
	if m.book == nil {
		for i := 0; i < h/2; i++ {
			c.EndLine()
		}
		c.Styled(t.Muted, common.Cut("waiting for "+m.symbol+" book"+t.Glyphs.Ellipsis, w))
		c.EndLine()
		return
	}
	sc := m.book.Scale
	depth := (h - 2) / 2 // rows per side, after the header and the spread line
	asks, bids := m.asks, m.bids
	if len(asks) > depth {
		asks = asks[:depth]
	}
	if len(bids) > depth {
		bids = bids[:depth]
	}
	var askCum, bidCum int64
	for _, l := range asks {
		askCum += l.Qty
	}
	for _, l := range bids {
		bidCum += l.Qty
	}
	maxCum := max(askCum, bidCum, 1)

	pw, qw, tw := m.columnWidths(asks, bids, sc, w)

	// Header.
	c.Space(1).Styled(t.Muted, common.Right("Price", pw)).Styled(t.Muted, common.Right("Size", qw)).Styled(t.Muted, common.Right("Total", tw))
	c.EndLine()
	row := 1

	state := m.book.State
	dim := state != feed.Live
	now := m.Clock()

	// Asks: worst at the top, best right above the spread line.
	for i := depth - 1; i >= 0; i-- {
		if i >= len(asks) {
			c.EndLine()
			row++
			continue
		}
		cum := int64(0)
		for _, l := range asks[:i+1] {
			cum += l.Qty
		}
		m.mark = m.levelTrigger(asks, bids, i, false)
		m.level(c, asks[i], cum, maxCum, feed.Sell, sc, pw, qw, tw, dim, now, m.Focused && m.sel == -(i+1))
		c.EndLine()
		m.rowPrice[row], m.rowSide[row] = asks[i].Price, feed.Sell
		row++
	}
	// Spread line, or the sync state when the book cannot be trusted.
	m.spreadLine(c, sc)
	row++
	cum := int64(0)
	for i := 0; i < depth; i++ {
		if i >= len(bids) {
			c.EndLine()
			row++
			continue
		}
		cum += bids[i].Qty
		m.mark = m.levelTrigger(asks, bids, i, true)
		m.level(c, bids[i], cum, maxCum, feed.Buy, sc, pw, qw, tw, dim, now, m.Focused && m.sel == i+1)
		c.EndLine()
		m.rowPrice[row], m.rowSide[row] = bids[i].Price, feed.Buy
		row++
	}
}

// columnWidths: after a marker cell, the price column fits the widest
// price shown, size and total share the rest.
func (m *Model) columnWidths(asks, bids []feed.Level, sc feed.Scale, w int) (pw, qw, tw int) {
	pw = 5
	if len(asks) > 0 {
		pw = max(pw, len(fixed.AppendPadded(m.scratch[:0], asks[len(asks)-1].Price, sc.PriceDec)))
	}
	if len(bids) > 0 {
		pw = max(pw, len(fixed.AppendPadded(m.scratch[:0], bids[0].Price, sc.PriceDec)))
	}
	rest := w - 1 - pw
	qw = rest / 2
	return pw, qw, rest - qw
}

func resize(s []int64, n int) []int64 {
	if cap(s) < n {
		s = make([]int64, n)
	}
	s = s[:n]
	clear(s)
	return s
}

func resizeSide(s []feed.Side, n int) []feed.Side {
	if cap(s) < n {
		s = make([]feed.Side, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// level draws one row: own-order marker, price, size, cumulative total,
// with the depth bar as a background growing from the right edge.
func (m *Model) level(c *common.Canvas, l feed.Level, cum, maxCum int64, side feed.Side, sc feed.Scale, pw, qw, tw int, dim bool, now time.Time, selected bool) {
	t := m.Theme
	w := m.Width
	switch {
	case m.mark == algo.LegWork && m.markTrigger(c, m.mark): // a working order's (also own)
	case m.own[l.Price]:
		c.Styled(t.Own, t.Glyphs.Dot)
	case m.markTrigger(c, m.mark): // an algo's trigger sits at this level
	default:
		c.Space(1)
	}
	// The row's text (ASCII) into scratch, then painted in segments.
	b := m.scratch[:0]
	b = common.AppendNum(b, l.Price, sc.PriceDec, pw, true)
	b = common.AppendNum(b, l.Qty, sc.QtyDec, qw, true)
	b = common.AppendNum(b, cum, sc.QtyDec, tw, true)
	m.scratch = b
	inner := w - 1
	bar := int(cum * int64(inner) / maxCum)
	if bar > inner {
		bar = inner
	}
	split := inner - bar
	sideStyle, barStyle := t.Buy, t.BuyBar
	if side == feed.Sell {
		sideStyle, barStyle = t.Sell, t.SellBar
	}
	textStyle := t.Text
	if dim {
		sideStyle, textStyle, barStyle = t.Muted, t.Muted, t.Muted
	}
	if selected {
		c.StyledBytes(t.Selected, b)
		return
	}
	if ts, ok := m.changed[l.Price]; ok && now.Sub(ts) < FlashFor && !dim {
		c.StyledBytes(t.Flash, b)
		return
	}
	pEnd := min(pw, split)
	c.StyledBytes(sideStyle, b[:pEnd])
	if split > pw {
		c.StyledBytes(textStyle, b[pw:split])
	}
	c.StyledBytes(barStyle, b[split:])
}

func (m *Model) spreadLine(c *common.Canvas, sc feed.Scale) {
	t := m.Theme
	w := m.Width
	bk := m.book
	switch bk.State {
	case feed.Live:
	case feed.Stale:
		c.Styled(t.Warn, common.Fit(" STALE: no update for "+bk.Age.Round(100*time.Millisecond).String(), w, t.Glyphs.Ellipsis))
		c.EndLine()
		return
	default:
		c.Styled(t.Warn, common.Fit(" "+stateText(bk.State)+t.Glyphs.Ellipsis+" (resyncs "+strconv.FormatUint(bk.Resyncs, 10)+")", w, t.Glyphs.Ellipsis))
		c.EndLine()
		return
	}
	if len(bk.Asks) == 0 || len(bk.Bids) == 0 {
		c.Styled(t.Muted, common.Fit(" one-sided book", w, t.Glyphs.Ellipsis))
		c.EndLine()
		return
	}
	ask, bid := bk.Asks[0].Price, bk.Bids[0].Price
	spread := ask - bid
	// The mid with one more decimal so a half tick is exact, when the
	// scale and the magnitude allow it.
	b := m.scratch[:0]
	b = append(b, " mid "...)
	if sum := ask + bid; sc.PriceDec < fixed.MaxDecimals && sum >= 0 && sum <= math.MaxInt64/5 {
		b = fixed.AppendPadded(b, sum*5, sc.PriceDec+1)
	} else {
		b = fixed.AppendPadded(b, ask/2+bid/2, sc.PriceDec)
	}
	b = append(b, "  spread "...)
	b = fixed.AppendPadded(b, spread, sc.PriceDec)
	if bid > 0 {
		// spread in basis points of the bid, one decimal
		bp10, _ := fixed.MulDiv(spread, 100000, bid)
		b = append(b, " ("...)
		b = fixed.AppendPadded(b, bp10, 1)
		b = append(b, "bp)"...)
	}
	if len(b) > w {
		b = b[:w]
	}
	m.scratch = b
	c.StyledBytes(t.Accent, b)
	c.EndLine()
}

func stateText(s feed.SyncState) string {
	switch s {
	case feed.Syncing:
		return "SYNCING"
	case feed.Resyncing:
		return "RESYNCING"
	case feed.SyncNone:
		return "NOT SUBSCRIBED"
	case feed.Live:
		return "LIVE"
	case feed.Stale:
		return "STALE"
	}
	// feed.SyncState.String panics on values it does not know.
	return "UNKNOWN STATE " + strconv.Itoa(int(s))
}

// ShortHelp is the pane's help line: only the grouping keys that can
// still change the grouping (none finer than the tick, none past the
// coarsest).
func (m *Model) ShortHelp() []key.Binding {
	var out []key.Binding
	if m.group < len(groups)-1 {
		out = append(out, m.Keys.GroupMore)
	}
	if m.group > 0 {
		out = append(out, m.Keys.GroupLess)
	}
	return out
}

// FullHelp is the pane's full help.
func (m *Model) FullHelp() [][]key.Binding {
	up, down, sel := m.Keys.Up, m.Keys.Down, m.Keys.Select
	up.SetHelp(up.Help().Key, "select level")
	down.SetHelp(down.Help().Key, "select level")
	sel.SetHelp(sel.Help().Key, "use its price")
	return [][]key.Binding{{m.Keys.GroupMore, m.Keys.GroupLess, up, down, sel}}
}
