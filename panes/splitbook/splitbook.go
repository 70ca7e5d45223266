// Package splitbook is the split view: two to four order books side by
// side (:split SYM ...), each the book pane with its own depth bars and
// grouping, and a line of the spreads between them (spot against
// perpetual, or pairs), exact decimals from the books' mids.
package splitbook

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/fixed"
	"tradedeck/panes/book"
	"tradedeck/panes/common"
)

// MinBooks and MaxBooks bound the symbols of a split view.
const (
	MinBooks = 2
	MaxBooks = 4
)

// Model is the split view.
type Model struct {
	common.Base
	symbols []string
	books   []*book.Model
	focus   int
}

// Parse checks the symbols of :split: two to four, distinct, known to
// the venue (known reports that).
func Parse(args []string, known func(string) bool) ([]string, error) {
	if len(args) < MinBooks || len(args) > MaxBooks {
		return nil, fmt.Errorf("split: give %d to %d symbols, e.g. :split SPOT_BTC_USDT PERP_BTC_USDT", MinBooks, MaxBooks)
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(args))
	for _, a := range args {
		s := strings.ToUpper(a)
		if seen[s] {
			return nil, fmt.Errorf("split: %s twice", s)
		}
		if known != nil && !known(s) {
			return nil, fmt.Errorf("split: unknown symbol %s", s)
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}

// New returns the split view of symbols; tick gives each symbol's price
// tick in fixed-point units (nil: one unit).
func New(c common.Common, symbols []string, tick func(string) int64) *Model {
	m := &Model{symbols: symbols}
	m.Common, m.Draw = c, m.render
	for _, s := range symbols {
		b := book.New(c, s)
		if tick != nil {
			b.SetTick(tick(s))
		}
		m.books = append(m.books, b)
	}
	m.books[0].Focus()
	m.Invalidate()
	return m
}

// Symbols are the books shown, left to right.
func (m *Model) Symbols() []string { return m.symbols }

// Title is the view's title.
func (m *Model) Title() string { return "Split " + strings.Join(m.symbols, " | ") }

// SetSize shares the width among the books (one column between two).
func (m *Model) SetSize(w, h int) {
	m.Base.SetSize(w, h)
	n := len(m.books)
	for i, b := range m.books {
		b.SetSize(m.colWidth(i, n, w), max(h-2, 0))
	}
}

func (m *Model) colWidth(i, n, w int) int {
	inner := w - (n - 1)
	cw := inner / n
	if i < inner%n {
		cw++
	}
	return max(cw, 0)
}

// Invalidate drops every cache (theme switch).
func (m *Model) Invalidate() {
	m.Base.Invalidate()
	for _, b := range m.books {
		b.Invalidate()
	}
}

// Init does nothing: the books wait for the feed.
func (m *Model) Init() tea.Cmd { return nil }

// Update gives feed updates to every book, keys to the focused one;
// tab / shift+tab (next / previous tab keys) move the focus.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.Keys.NextTab):
			m.setFocus((m.focus + 1) % len(m.books))
		case key.Matches(msg, m.Keys.PrevTab):
			m.setFocus((m.focus + len(m.books) - 1) % len(m.books))
		default:
			_, c := m.books[m.focus].Update(msg)
			cmds = append(cmds, c)
		}
	case common.SymbolMsg:
		// the dashboard's focused symbol changed: the split keeps its own
	default:
		for _, b := range m.books {
			_, c := b.Update(msg)
			cmds = append(cmds, c)
		}
	}
	m.Base.Invalidate() // the books' lines are copied in; each caches its own
	return m, tea.Batch(cmds...)
}

func (m *Model) setFocus(i int) {
	m.books[m.focus].Blur()
	m.focus = i
	m.books[i].Focus()
}

func (m *Model) render(c *common.Canvas) {
	t := m.Theme
	n := len(m.books)
	for i, b := range m.books {
		if i > 0 {
			c.Styled(t.Border, t.Glyphs.V)
		}
		st := t.Muted
		if i == m.focus {
			st = t.TitleFocus
		}
		c.Styled(st, common.Left(" "+b.Title(), m.colWidth(i, n, m.Width)))
	}
	c.EndLine()
	lines := make([][]string, n)
	for i, b := range m.books {
		lines[i] = b.Lines()
	}
	for row := 0; row < m.Height-2; row++ {
		for i := range m.books {
			if i > 0 {
				c.Styled(t.Border, t.Glyphs.V)
			}
			if row < len(lines[i]) {
				c.Text(lines[i][row])
			} else {
				c.Space(m.colWidth(i, n, m.Width))
			}
		}
		c.EndLine()
	}
	m.spreads(c)
}

// spreads draws each book's mid against the first book's: the price
// difference and its size in basis points of the first mid.
func (m *Model) spreads(c *common.Canvas) {
	t := m.Theme
	c.Space(1)
	base, ok := mid(m.Store.Books[m.symbols[0]])
	for i := 1; i < len(m.symbols); i++ {
		other, ok2 := mid(m.Store.Books[m.symbols[i]])
		label := m.symbols[i] + " - " + m.symbols[0] + " "
		if !ok || !ok2 {
			c.Styled(t.Muted, label+"-   ")
			continue
		}
		d := other.Sub(base)
		bps := d.Div(base).Mul(decimal.NewFromInt(10000)).StringFixed(1)
		st := t.Buy
		if d.IsNegative() {
			st = t.Sell
		}
		c.Styled(t.Muted, label)
		c.Styled(st, d.String()+" ("+bps+" bps)")
		c.Space(3)
	}
	c.EndLine()
}

// mid is the midpoint of a book's best bid and ask (exact).
func mid(b *feed.Book) (decimal.Decimal, bool) {
	if b == nil || len(b.Asks) == 0 || len(b.Bids) == 0 {
		return decimal.Zero, false
	}
	sum := fixed.ToDecimal(b.Asks[0].Price+b.Bids[0].Price, b.Scale.PriceDec)
	return sum.Div(decimal.NewFromInt(2)), true
}

// ShortHelp is the view's help line.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.Keys.PrevTab, m.Keys.NextTab, m.Keys.GroupMore, m.Keys.GroupLess, m.Keys.Back}
}

// FullHelp is the view's full help.
func (m *Model) FullHelp() [][]key.Binding { return [][]key.Binding{m.ShortHelp()} }
