// Package watchlist is the watchlist pane: per symbol the last price, the
// 24h change and the best bid and offer; enter or a click focuses one.
package watchlist

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/panes/common"
)

// Model is the watchlist pane.
type Model struct {
	common.Base
	symbols []string
	current string // the focused symbol of the dashboard
	cursor  int
	offset  int
	per     int                    // lines per symbol (2 when the bbo has its own line)
	rows    map[string]tickerCells // formatted ticker cells per symbol
}

// tickerCells caches the decimal formatting of a ticker: with 20 symbols
// BBOs change every frame, tickers about once a second.
type tickerCells struct {
	ts          int64
	open, close decimal.Decimal
	last, pct   string
	down        bool
	scaled      bool // last formatted at the symbol's decimals
}

// New returns a watchlist of symbols.
func New(c common.Common, symbols []string, current string) *Model {
	m := &Model{current: current, rows: map[string]tickerCells{}}
	m.Common, m.Draw = c, m.render
	m.SetSymbols(symbols)
	return m
}

// SetSymbols replaces the list.
func (m *Model) SetSymbols(s []string) {
	m.symbols = append(m.symbols[:0], s...)
	m.cursor = max(0, min(m.cursor, len(m.symbols)-1))
	m.Invalidate()
}

// Symbols is the list shown.
func (m *Model) Symbols() []string { return m.symbols }

// Title is the pane's title.
func (m *Model) Title() string { return "Watchlist" }

// Init does nothing.
func (m *Model) Init() tea.Cmd { return nil }

var hundred = decimal.NewFromInt(100)

// Update handles feed updates, selection and clicks.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	if d, ok := common.Motion(msg, m.Keys, (m.Height-1)/max(m.per, 1), 1); ok {
		m.move(d)
		return m, nil
	}
	switch msg := msg.(type) {
	case common.FeedMsg:
		for _, s := range m.symbols {
			_, t := msg.Update.Tickers[s]
			_, b := msg.Update.BBOs[s]
			if t || b {
				m.Invalidate()
				break
			}
		}
	case common.SymbolMsg:
		m.current = msg.Symbol
		m.Invalidate()
	case tea.KeyPressMsg:
		if key.Matches(msg, m.Keys.Select) {
			return m, m.choose()
		}
	case common.PaneMouse:
		if i := m.offset + (msg.Y-1)/max(m.per, 1); msg.Button == tea.MouseLeft && msg.Y >= 1 && i < len(m.symbols) {
			m.cursor = i
			m.Invalidate()
			return m, m.choose()
		}
	}
	return m, nil
}

func (m *Model) move(d int) {
	c := max(0, min(m.cursor+d, len(m.symbols)-1))
	if c != m.cursor {
		m.cursor = c
		m.Invalidate()
	}
}

func (m *Model) choose() tea.Cmd {
	if m.cursor >= len(m.symbols) {
		return nil
	}
	s := m.symbols[m.cursor]
	return func() tea.Msg { return common.SetSymbolMsg{Symbol: s} }
}

func (m *Model) render(c *common.Canvas) {
	t := m.Theme
	w := m.Width
	// symbol | last | chg% [| bid | ask when wide]
	wide := w >= 54
	lw, cw := 10, 8
	sw := max(6, min(15, w-lw-cw))
	bw := 0
	if wide {
		bw = (w - sw - lw - cw) / 2
	}
	c.Styled(t.Muted, common.Left(" Symbol", sw)).Styled(t.Muted, common.Right("Last", lw)).Styled(t.Muted, common.Right("24h%", cw))
	if wide {
		c.Styled(t.Muted, common.Right("Bid", bw)).Styled(t.Muted, common.Right("Ask", bw))
	}
	c.EndLine()
	// Narrow: the best bid and offer go on a second line under each
	// symbol when every symbol still fits.
	m.per = 1
	if !wide && m.Height-1 >= 2*len(m.symbols) {
		m.per = 2
	}
	vis := (m.Height - 1) / m.per
	if m.cursor < m.offset {
		m.offset = m.cursor
	} else if vis > 0 && m.cursor >= m.offset+vis {
		m.offset = m.cursor - vis + 1
	}
	for i := m.offset; i < len(m.symbols) && c.Rows() < m.Height; i++ {
		s := m.symbols[i]
		name := s
		if len(name) > sw-1 {
			name = common.Cut(name, sw-1)
		}
		nameStyle := t.Text
		if s == m.current {
			nameStyle = t.Accent
		}
		if i == m.cursor && m.Focused {
			nameStyle = t.Selected
		}
		mark := " "
		if s == m.current {
			mark = t.Glyphs.Dot
		}
		c.Styled(t.Accent, mark).Styled(nameStyle, common.Left(name, sw-1))
		tk, ok := m.Store.Tickers[s]
		if !ok {
			c.Styled(t.Muted, common.Right("-", lw)).Styled(t.Muted, common.Right("-", cw))
		} else {
			tc := m.cells(s, tk)
			st := t.Buy
			if tc.down {
				st = t.Sell
			}
			c.Styled(t.Text, common.Right(tc.last, lw))
			c.Styled(st, common.Right(tc.pct, cw))
		}
		b, hasBBO := m.Store.BBOs[s]
		switch {
		case wide && hasBBO:
			c.Num(t.Buy, b.Bid, b.Scale.PriceDec, bw, true)
			c.Num(t.Sell, b.Ask, b.Scale.PriceDec, bw, true)
		case wide:
			c.Styled(t.Muted, common.Right("-", bw)).Styled(t.Muted, common.Right("-", bw))
		}
		c.EndLine()
		if m.per == 2 {
			if hasBBO {
				half := (w - 2) / 2
				c.Space(2)
				c.Num(t.Buy, b.Bid, b.Scale.PriceDec, half, true).Num(t.Sell, b.Ask, b.Scale.PriceDec, w-2-half, true)
			}
			c.EndLine()
		}
	}
}

// cells formats a ticker once per change.
func (m *Model) cells(sym string, tk feed.Ticker) tickerCells {
	_, scaled := m.Store.Scale(sym)
	if tc, ok := m.rows[sym]; ok && tc.ts == tk.TS && tc.close.Equal(tk.Close) && tc.open.Equal(tk.Open) && tc.scaled == scaled {
		return tc
	}
	chg := decimal.Zero
	if !tk.Open.IsZero() {
		chg = tk.Close.Sub(tk.Open).Div(tk.Open).Mul(hundred)
	}
	pct := chg.StringFixed(2) + "%"
	if !chg.IsNegative() {
		pct = "+" + pct
	}
	tc := tickerCells{ts: tk.TS, open: tk.Open, close: tk.Close, last: m.Store.Price(sym, tk.Close), pct: pct, down: chg.IsNegative(), scaled: scaled}
	m.rows[sym] = tc
	return tc
}

// ShortHelp is the pane's help line.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.Keys.Up, m.Keys.Down, m.Keys.Select}
}

// FullHelp is the pane's full help.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{m.Keys.Up, m.Keys.Down, m.Keys.Top, m.Keys.Bottom, m.Keys.Select}}
}
