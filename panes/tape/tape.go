// Package tape is the Trades pane, the tape of public trades (package
// trade is order validation): newest first, price coloured by the taker
// side, large trades emphasised.
package tape

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/feed"
	"tradedeck/panes/common"
)

// LargeFactor: a trade at least this many times the tape's mean size is
// emphasised.
const LargeFactor = 3

// Model is the trades pane.
type Model struct {
	common.Base
	symbol  string
	title   string
	trades  *feed.Trades
	offset  int // rows scrolled down from the newest
	scratch []byte
	pace    common.Pacer[*feed.Trades] // every trade moves every row: batched on SSH screens
}

// New returns a trades pane for symbol.
func New(c common.Common, symbol string) *Model {
	m := &Model{symbol: symbol, title: "Trades " + symbol}
	m.Common, m.Draw = c, m.render
	m.trades = c.Store.Trades[symbol]
	m.pace.Every = c.Pace
	m.Invalidate()
	return m
}

// Title is the pane's title.
func (m *Model) Title() string { return m.title }

// Init does nothing.
func (m *Model) Init() tea.Cmd { return nil }

// Update handles feed updates, symbol changes and scrolling.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case common.FeedMsg:
		if t := msg.Update.Trades[m.symbol]; t != nil && (m.trades == nil || t.Version != m.trades.Version) {
			return m, m.pace.Offer(m.Clock(), t, m.show)
		}
	case common.PaceMsg:
		return m, m.pace.Tick(m.Clock(), msg, m.show)
	case common.SymbolMsg:
		if msg.Symbol != m.symbol {
			m.symbol, m.offset = msg.Symbol, 0
			m.title = "Trades " + m.symbol
			m.trades = m.Store.Trades[m.symbol]
			m.pace.Drop()
			m.Invalidate()
		}
	default:
		if d, ok := common.Motion(msg, m.Keys, m.Height-1, 3); ok {
			m.scroll(d)
		}
	}
	return m, nil
}

func (m *Model) show(t *feed.Trades) {
	m.trades = t
	m.Invalidate()
}

func (m *Model) scroll(d int) {
	n := 0
	if m.trades != nil {
		n = len(m.trades.Rows)
	}
	o := max(0, min(m.offset+d, n-(m.Height-1)))
	if o != m.offset {
		m.offset = o
		m.Invalidate()
	}
}

func (m *Model) render(c *common.Canvas) {
	t := m.Theme
	w := m.Width
	if m.trades == nil || len(m.trades.Rows) == 0 {
		c.Styled(t.Muted, common.Cut(" no trades yet", w))
		c.EndLine()
		return
	}
	rows := m.trades.Rows
	sc := m.trades.Scale
	var sum int64
	for _, r := range rows {
		sum += r.Qty
	}
	mean := sum / int64(len(rows))
	const tw = 9 // "HH:MM:SS "
	rest := w - tw - 2
	pw := rest / 2
	qw := rest - pw
	c.Styled(t.Muted, common.Left(" Time", tw)).Styled(t.Muted, common.Right("Price", pw)).Styled(t.Muted, common.Right("Size", qw))
	c.EndLine()
	if m.offset > len(rows) {
		m.offset = 0
	}
	for _, r := range rows[m.offset:] {
		if c.Rows() >= m.Height {
			break
		}
		large := mean > 0 && r.Qty >= LargeFactor*mean
		style := t.Buy
		arrow := t.Glyphs.Up
		if r.Side == feed.Sell {
			style, arrow = t.Sell, t.Glyphs.Down
		}
		if large {
			style = t.BuyBold
			if r.Side == feed.Sell {
				style = t.SellBold
			}
		}
		b := appendClock(m.scratch[:0], r.TS)
		m.scratch = b
		c.Space(1).StyledBytes(t.Muted, b).Space(tw - 1 - len(b))
		c.Num(style, r.Price, sc.PriceDec, pw, true)
		c.Num(style, r.Qty, sc.QtyDec, qw, true)
		c.Space(1)
		if large {
			c.Styled(style, arrow)
		} else {
			c.Styled(t.Muted, arrow)
		}
		c.EndLine()
	}
}

// appendClock appends the UTC time of day of a millisecond timestamp.
func appendClock(b []byte, ms int64) []byte {
	s := (ms / 1000) % 86400
	if s < 0 {
		s += 86400
	}
	b = two(b, s/3600)
	b = append(b, ':')
	b = two(b, s/60%60)
	b = append(b, ':')
	return two(b, s%60)
}

func two(b []byte, v int64) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

// ShortHelp is the pane's help line.
func (m *Model) ShortHelp() []key.Binding { return []key.Binding{m.Keys.Up, m.Keys.Down} }

// FullHelp is the pane's full help.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{m.Keys.Up, m.Keys.Down, m.Keys.PageUp, m.Keys.PageDown, m.Keys.Top}}
}
