// Package accountpane is the tabbed account pane of the grid (pane 5):
// positions (with unrealised PnL from the live mark price), open orders
// (with fill progress), order history, own trades and balances, plus extra
// tabs such as the swap statistics. The account screen with the venue's
// account settings is the dialog in panes/account.
package accountpane

import (
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/panes/common"
)

// Tab is one table of the pane.
type Tab int

const (
	Positions Tab = iota
	Orders
	History
	Fills
	Balances
	PnL // realised PnL and fees per day and symbol
	numTabs
)

var tabNames = [numTabs]string{"Positions", "Open orders", "History", "Fills", "Balances", "PnL"}

func (t Tab) String() string { return tabNames[t] }

// column of a table: header, minimum width, right-aligned, and rank: a
// narrow pane keeps the columns of lowest rank (the symbol, the size and
// the PnL of a position before its entry price) and drops the others
// whole, keeping the display order.
type column struct {
	title string
	min   int
	right bool
	rank  int
}

var columns = [numTabs][]column{
	Positions: {{"Symbol", 14, false, 0}, {"Qty", 10, true, 1}, {"Avg open", 11, true, 10}, {"Mark", 11, true, 6},
		{"Liq", 11, true, 3}, {"Notional", 11, true, 4}, {"Lev", 4, true, 9}, {"Margin", 10, true, 5},
		{"uPnL", 11, true, 2}, {"PnL%", 7, true, 7}, {"rPnL 24h", 10, true, 8}, {"Fee 24h", 9, true, 11}},
	Orders: {{"Time", 14, false, 5}, {"Symbol", 13, false, 0}, {"Side", 4, false, 1}, {"Type", 9, false, 8},
		{"Price", 10, true, 2}, {"Qty", 8, true, 3}, {"Filled", 11, false, 4}, {"Status", 9, false, 6},
		{"Order ID", 10, true, 7}, {"CID", 8, true, 9}},
	History: {{"Time", 14, false, 5}, {"Symbol", 13, false, 0}, {"Side", 4, false, 1}, {"Type", 9, false, 8},
		{"Price", 10, true, 2}, {"Qty", 8, true, 3}, {"Avg", 10, true, 6}, {"Status", 9, false, 4},
		{"Order ID", 10, true, 7}, {"Reason", 10, false, 9}},
	Fills: {{"Time", 14, false, 4}, {"Symbol", 14, false, 0}, {"Side", 5, false, 1}, {"Price", 11, true, 2},
		{"Qty", 10, true, 3}, {"Fee", 12, true, 5}, {"rPnL", 10, true, 6}, {"M/T", 3, false, 8}, {"Order ID", 10, true, 7}},
	Balances: {{"Token", 8, false, 0}, {"Holding", 14, true, 2}, {"Frozen", 12, true, 3}, {"Available", 14, true, 1}, {"Pending", 12, true, 4}},
	PnL:      {{"Day", 10, false, 0}, {"Symbol", 14, false, 1}, {"Fills", 5, true, 4}, {"Realised", 12, true, 2}, {"Fees", 16, true, 3}},
}

// Model is the tables pane.
type Model struct {
	common.Base
	extras  []extraTab // more tabs after the account's (e.g. swap stats)
	tabX    [][2]int   // x range of each tab label, for clicks
	tab     Tab
	cursor  [numTabs]int
	offset  [numTabs]int
	account *feed.Account
	open    []feed.Position            // the account's positions with a holding
	marks   map[string]decimal.Decimal // mark price per position symbol
	ledger  []LedgerRow                // realised PnL and fees per day and symbol
	// protectionWidth is the protection column's width in the frame
	// being drawn: its text is shortened to fit.
	protectionWidth int
}

// New returns the tables pane.
func New(c common.Common) *Model {
	m := &Model{marks: map[string]decimal.Decimal{}}
	m.Common, m.Draw = c, m.render
	m.setAccount(c.Store.Account)
	m.Invalidate()
	return m
}

// setAccount takes a new account snapshot. A position the venue lists
// with nothing held (an open order not yet filled, a closed position) is
// not a position: it is neither counted nor shown.
func (m *Model) setAccount(a *feed.Account) {
	m.account, m.open, m.ledger = a, m.open[:0], nil
	if a == nil {
		return
	}
	m.ledger = Ledger(a.Fills)
	for _, p := range a.Positions {
		if !p.Holding.IsZero() {
			m.open = append(m.open, p)
		}
	}
}

// extraTab is a whole component shown as a tab (below the tab bar).
type extraTab struct {
	name string
	pane common.Pane
}

// AddTab adds a component as a tab after the account tables; it gets the
// pane's size less the tab bar, the keys while its tab is shown, and every
// other message always.
func (m *Model) AddTab(name string, p common.Pane) Tab {
	m.extras = append(m.extras, extraTab{name, p})
	p.SetSize(m.Width, max(m.Height-1, 0))
	m.Invalidate()
	return numTabs + Tab(len(m.extras)-1)
}

// Extras are the components added with AddTab.
func (m *Model) Extras() []common.Pane {
	out := make([]common.Pane, len(m.extras))
	for i, e := range m.extras {
		out[i] = e.pane
	}
	return out
}

func (m *Model) tabs() Tab { return numTabs + Tab(len(m.extras)) }

func (m *Model) tabName(t Tab) string {
	if t < numTabs {
		return tabNames[t]
	}
	return m.extras[t-numTabs].name
}

// extra is the component of the current tab, nil for an account table.
func (m *Model) extra() common.Pane {
	if m.tab >= numTabs && int(m.tab-numTabs) < len(m.extras) {
		return m.extras[m.tab-numTabs].pane
	}
	return nil
}

// SetSize sizes the pane and its extra tabs.
func (m *Model) SetSize(w, h int) {
	m.Base.SetSize(w, h)
	for _, e := range m.extras {
		e.pane.SetSize(w, max(h-1, 0))
	}
}

// Focus focuses the pane (and the extra tab shown).
func (m *Model) Focus() {
	m.Base.Focus()
	if e := m.extra(); e != nil {
		e.Focus()
	}
}

// Blur blurs the pane (and the extra tab shown).
func (m *Model) Blur() {
	m.Base.Blur()
	if e := m.extra(); e != nil {
		e.Blur()
	}
}

// Invalidate drops the caches (theme switch).
func (m *Model) Invalidate() {
	m.Base.Invalidate()
	for _, e := range m.extras {
		e.pane.Invalidate()
	}
}

// Title is the pane's title.
func (m *Model) Title() string { return "Account" }

// Tab is the visible tab.
func (m *Model) Tab() Tab { return m.tab }

// SetTab shows a tab.
func (m *Model) SetTab(t Tab) {
	if t >= 0 && t < m.tabs() && t != m.tab {
		if e := m.extra(); e != nil {
			e.Blur()
		}
		m.tab = t
		if e := m.extra(); e != nil && m.Focused {
			e.Focus()
		}
		m.Base.Invalidate()
	}
}

// SelectedOrder is the open order under the cursor (for cancel).
func (m *Model) SelectedOrder() (feed.Order, bool) {
	if m.tab != Orders || m.account == nil || m.cursor[Orders] >= len(m.account.Open) {
		return feed.Order{}, false
	}
	return m.account.Open[m.cursor[Orders]], true
}

// SelectedPosition is the position under the cursor (for close).
func (m *Model) SelectedPosition() (feed.Position, bool) {
	if m.tab != Positions || m.cursor[Positions] >= len(m.open) {
		return feed.Position{}, false
	}
	return m.open[m.cursor[Positions]], true
}

// Init does nothing.
func (m *Model) Init() tea.Cmd { return nil }

// Update handles account updates, mark prices, tabs, selection, clicks.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	cmd := m.update(msg)
	if e := m.extra(); e != nil {
		m.Base.Invalidate() // its lines are copied in
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	if _, isKey := msg.(tea.KeyPressMsg); !isKey {
		if _, isMouse := msg.(common.PaneMouse); !isMouse {
			for _, e := range m.extras {
				if _, c := e.pane.Update(msg); c != nil {
					cmds = append(cmds, c)
				}
			}
		}
	}
	if k, ok := msg.(tea.KeyPressMsg); ok && m.extra() != nil &&
		!key.Matches(k, m.Keys.NextTab, m.Keys.PrevTab) {
		_, c := m.extra().Update(k)
		return c
	}
	if e, ok := msg.(common.PaneMouse); ok && m.extra() != nil && e.Y > 0 {
		e.Y--
		_, c := m.extra().Update(e)
		return c
	}
	switch msg := msg.(type) {
	case common.AlgosMsg:
		if m.tab == Positions {
			m.Invalidate() // the protection column
		}
	case common.FeedMsg:
		if a := msg.Update.Account; a != nil {
			m.setAccount(a)
			m.Invalidate()
		}
		if m.account != nil {
			for _, p := range m.open {
				if f, ok := msg.Update.Futures[p.Symbol]; ok && !f.MarkPrice.Equal(m.marks[p.Symbol]) {
					m.marks[p.Symbol] = f.MarkPrice
					if m.tab == Positions {
						m.Invalidate()
					}
				}
			}
		}
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.Keys.NextTab):
			m.SetTab((m.tab + 1) % m.tabs())
		case key.Matches(msg, m.Keys.PrevTab):
			m.SetTab((m.tab + m.tabs() - 1) % m.tabs())
		default:
			if d, ok := common.Motion(msg, m.Keys, m.Height-m.top(), 1); ok {
				m.move(d)
			}
		}
	case common.PaneMouse:
		switch {
		case msg.Wheel:
			if d, ok := common.Motion(msg, m.Keys, m.Height-m.top(), 1); ok {
				m.move(d)
			}
		case msg.Button == tea.MouseLeft && msg.Y == 0:
			for t, r := range m.tabX {
				if msg.X >= r[0] && msg.X < r[1] {
					m.SetTab(Tab(t))
				}
			}
		case msg.Button == tea.MouseLeft && msg.Y >= m.top():
			m.move(m.offset[m.tab] + msg.Y - m.top() - m.cursor[m.tab])
		}
	}
	return tea.Batch(cmds...)
}

func (m *Model) rows() int {
	a := m.account
	if a == nil {
		return 0
	}
	switch m.tab {
	case Positions:
		return len(m.open)
	case Orders:
		return len(a.Open)
	case History:
		return len(a.History)
	case Fills:
		return len(a.Fills)
	case PnL:
		return len(m.ledger)
	}
	return len(a.Balances)
}

// top is the first line of table rows: below the tab bar, the account
// summary (positions tab) and the column header.
func (m *Model) top() int {
	if m.tab == Positions {
		return 3
	}
	return 2
}

func (m *Model) move(d int) {
	if m.tab >= numTabs {
		return
	}
	n := m.rows()
	c := max(0, min(m.cursor[m.tab]+d, n-1))
	if c != m.cursor[m.tab] {
		m.cursor[m.tab] = c
		m.Invalidate()
	}
}

func (m *Model) render(c *common.Canvas) {
	t := m.Theme
	w := m.Width
	m.tabBar(c)
	if e := m.extra(); e != nil {
		for _, l := range e.Lines() {
			c.Text(l)
			c.EndLine()
		}
		return
	}
	if m.tab == Positions {
		m.summary(c)
	}
	cols := m.columns()
	widths := fitColumns(cols, w-1)
	if len(cols) > len(columns[Positions]) && m.tab == Positions {
		m.protectionWidth = widths[len(cols)-1]
	}
	c.Space(1)
	for i, col := range cols {
		if widths[i] == 0 {
			continue
		}
		c.Styled(t.Muted, align(col.title, widths[i], col.right))
	}
	c.EndLine()
	if m.account == nil {
		c.Styled(t.Muted, common.Cut(" waiting for the account"+t.Glyphs.Ellipsis, w))
		c.EndLine()
		return
	}
	n := m.rows()
	if n == 0 {
		c.Styled(t.Muted, common.Cut(" none", w))
		c.EndLine()
		return
	}
	vis := m.Height - m.top()
	cur := m.cursor[m.tab]
	if cur >= n {
		cur = n - 1
		m.cursor[m.tab] = cur
	}
	off := m.offset[m.tab]
	if cur < off {
		off = cur
	} else if vis > 0 && cur >= off+vis {
		off = cur - vis + 1
	}
	m.offset[m.tab] = off
	cells := make([]cell, len(cols))
	for i := off; i < n && c.Rows() < m.Height; i++ {
		m.row(i, cells)
		selected := m.Focused && i == cur
		c.Space(1)
		for j, col := range cols {
			if widths[j] == 0 {
				continue
			}
			st := cells[j].style
			if st == "" {
				st = t.Text
			}
			if selected {
				st = t.Selected
			}
			c.Styled(st, align(cells[j].text, widths[j], col.right))
		}
		c.EndLine()
	}
}

func (m *Model) countOf(tab Tab) int {
	if m.account == nil {
		return 0
	}
	switch tab {
	case Positions:
		return len(m.open)
	case Orders:
		return len(m.account.Open)
	}
	return 0
}

// ShortHelp is the pane's help line.
func (m *Model) ShortHelp() []key.Binding {
	if e := m.extra(); e != nil {
		help := []key.Binding{m.Keys.PrevTab, m.Keys.NextTab}
		for _, b := range e.ShortHelp() {
			if b = common.Unshadowed(b, m.Keys.PrevTab, m.Keys.NextTab); b.Enabled() {
				help = append(help, b)
			}
		}
		return help
	}
	if m.rows() < 2 { // no list, or one row: the cursor has nowhere to go
		return []key.Binding{m.Keys.PrevTab, m.Keys.NextTab}
	}
	return []key.Binding{m.Keys.PrevTab, m.Keys.NextTab, m.Keys.Up, m.Keys.Down}
}

// FullHelp is the pane's full help.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{m.Keys.PrevTab, m.Keys.NextTab}, {m.Keys.Up, m.Keys.Down, m.Keys.PageUp, m.Keys.PageDown, m.Keys.Top, m.Keys.Bottom}}
}

// tabBar draws the tab labels on the first line. When they do not all
// fit, it shows a run of whole labels that holds the active tab, with a
// marker on each side where labels are left out, so the tab shown is
// always named.
func (m *Model) tabBar(c *common.Canvas) {
	t, w := m.Theme, m.Width
	n := m.tabs()
	labels := make([]string, n)
	for i := range n {
		labels[i] = " " + m.tabName(i) + " "
		if k := m.countOf(i); k > 0 {
			labels[i] = " " + m.tabName(i) + " " + strconv.Itoa(k) + " "
		}
	}
	widths := make([]int, n)
	for i, l := range labels {
		widths[i] = len(l)
	}
	f, l := common.TabRun(widths, int(m.tab), w)
	first, last := Tab(f), Tab(l)
	m.tabX = m.tabX[:0]
	for range n {
		m.tabX = append(m.tabX, [2]int{})
	}
	more := t.Glyphs.Ellipsis
	if first > 0 {
		c.Styled(t.Muted, more)
	} else {
		c.Space(1)
	}
	for i := first; i <= last; i++ {
		m.tabX[i] = [2]int{c.Width(), c.Width() + len(labels[i])}
		st := t.Muted
		if i == m.tab {
			st = t.TitleFocus
		}
		c.Styled(st, labels[i])
		if i < last || last < n-1 {
			c.Space(1)
		}
	}
	if last < n-1 && c.Width()+1 <= w {
		c.Styled(t.Muted, more)
	}
	c.EndLine()
}
