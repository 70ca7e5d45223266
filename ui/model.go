// Package ui is the dashboard's root model: layout, focus, routing of
// messages to panes, the header, status bar and help line, the command
// line, the symbol picker, the dialog stack, notices and full-screen
// pages. Panes live in panes/; the shared contract in panes/common.
package ui

import (
	"sort"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"tradedeck/feed"
	"tradedeck/panes/accountpane"
	"tradedeck/panes/book"
	"tradedeck/panes/chart"
	"tradedeck/panes/common"
	"tradedeck/panes/tape"
	"tradedeck/panes/watchlist"
	"tradedeck/theme"
)

// Source is what the root needs of the feed (a *feed.Feed satisfies it).
type Source interface {
	Updates() <-chan feed.Update
	Focus(symbol string)
	SetInterval(iv string)
	SetWatchlist(syms []string)
}

// Options configure the dashboard.
type Options struct {
	Source    Source // nil: updates are sent as messages (tests)
	Venue     string // "SIM" or "LIVE" (LIVE is drawn in red, always)
	Account   string // account label for the header (never a secret)
	Symbol    string
	Interval  string
	Watchlist []string
	// Symbols lists every tradable symbol for the picker (nil: the watchlist).
	Symbols func() []string
	// Tick gives a symbol's price tick in fixed-point units (nil: 1).
	Tick func(symbol string) int64
	// Budget describes the REST rate-limit budget for the status bar.
	Budget func() string
	Theme  *theme.Theme
	Keys   *common.KeyMap
	ASCII  bool
	// ReadOnly hides every trading action.
	ReadOnly bool
	// Now is the clock (nil: time.Now); tests fix it.
	Now func() time.Time
	// Services is handed to hooks (e.g. the venue client for trading).
	Services map[string]any
	// Focus names the pane focused at start (book, chart, trades,
	// watchlist, account); Zoom starts it zoomed.
	Focus string
	Zoom  bool
	// Alerts is the session's alert engine (ui/alerts.go); nil: none.
	Alerts *AlertDesk
}

// Model is the root model.
type Model struct {
	opts  Options
	c     common.Common // screen size, shared theme/keys/store
	store *common.Store

	symbol, interval string

	panes  [numPanes]common.Pane
	book   *book.Model
	chart  *chart.Model
	tables *accountpane.Model
	watch  *watchlist.Model
	rects  [numPanes]rect
	rowMap [][]PaneID // screen row -> panes crossing it, left to right
	focus  PaneID
	zoom   bool

	pages     map[string]common.Pane
	pageNames []string
	page      string

	dialogs []common.Dialog

	cmdline   textinput.Model
	cmdActive bool

	notices []notice
	hooks   []Hook

	frame   []byte
	boxes   [numPanes]box
	pageBox box
	header  header
	status  statusBar
	helpBar helpLine
	title   string
}

type notice struct {
	level   common.NoticeLevel
	text    string
	expires time.Time
}

// updateMsg is one Update read from the Source.
type updateMsg struct{ u feed.Update }

// tickMsg drives the clock, countdowns and notice expiry.
type tickMsg time.Time

// New builds the root model.
func New(o Options) *Model {
	if o.Interval == "" {
		o.Interval = "1m"
	}
	if o.Venue == "" {
		o.Venue = "SIM"
	}
	if o.Symbol == "" && len(o.Watchlist) > 0 {
		o.Symbol = o.Watchlist[0]
	}
	store := common.NewStore()
	c := common.Common{Theme: o.Theme, Keys: o.Keys, ASCII: o.ASCII, ReadOnly: o.ReadOnly, Store: store, Now: o.Now}
	if o.ReadOnly {
		o.Keys.SetTradingEnabled(false)
	}
	m := &Model{opts: o, c: c, store: store, symbol: o.Symbol, interval: o.Interval, pages: map[string]common.Pane{}}
	m.book = book.New(c, o.Symbol)
	m.chart = chart.New(c, o.Symbol, o.Interval)
	m.tables = accountpane.New(c)
	m.watch = watchlist.New(c, o.Watchlist, o.Symbol)
	m.panes = [numPanes]common.Pane{
		PaneBook:   m.book,
		PaneChart:  m.chart,
		PaneTrades: tape.New(c, o.Symbol),
		PaneWatch:  m.watch,
		PaneTables: m.tables,
	}
	m.setTick()
	for i, n := range paneNames {
		if n == o.Focus {
			m.focus = PaneID(i)
		}
	}
	m.zoom = o.Zoom
	m.panes[m.focus].Focus()
	ti := textinput.New()
	ti.Prompt = ":"
	ti.CharLimit = 120
	ti.ShowSuggestions = true // tab completes commands and symbols
	m.cmdline = ti
	for _, f := range hookFactories {
		m.hooks = append(m.hooks, f(m))
	}
	m.title = "tradedeck " + o.Venue + " " + o.Symbol
	return m
}

// Init starts reading the feed and the clock.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.tick(), m.wait()}
	for _, h := range m.hooks {
		cmds = append(cmds, h.Init(m))
	}
	for _, n := range m.pageNames {
		cmds = append(cmds, m.pages[n].Init())
	}
	for _, p := range m.tables.Extras() {
		cmds = append(cmds, p.Init())
	}
	if m.opts.Source != nil {
		m.opts.Source.SetWatchlist(m.opts.Watchlist)
		m.opts.Source.Focus(m.symbol)
		m.opts.Source.SetInterval(m.interval)
	}
	return tea.Batch(cmds...)
}

func (m *Model) wait() tea.Cmd {
	if m.opts.Source == nil {
		return nil
	}
	ch := m.opts.Source.Updates()
	return func() tea.Msg {
		u, ok := <-ch
		if !ok {
			return nil
		}
		return updateMsg{u}
	}
}

func (m *Model) tick() tea.Cmd {
	now := m.c.Clock()
	next := now.Truncate(time.Second).Add(time.Second).Sub(now)
	return tea.Tick(next, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Symbol is the focused symbol.
func (m *Model) Symbol() string { return m.symbol }

// Interval is the candle interval.
func (m *Model) Interval() string { return m.interval }

// Store is the latest state of everything.
func (m *Model) Store() *common.Store { return m.store }

// Common is the shared Common for building components and dialogs.
func (m *Model) Common() common.Common { return m.c }

// Options are the dashboard's options (Services for hooks).
func (m *Model) Options() Options { return m.opts }

// ReadOnly reports whether trading is disabled.
func (m *Model) ReadOnly() bool { return m.opts.ReadOnly }

// Focused is the focused pane.
func (m *Model) Focused() PaneID { return m.focus }

// Zoomed reports whether the focused pane fills the body.
func (m *Model) Zoomed() bool { return m.zoom }

// Page is the full-screen page shown ("" for the grid).
func (m *Model) Page() string { return m.page }

// SelectedOrder is the open order selected in the account pane.
func (m *Model) SelectedOrder() (feed.Order, bool) { return m.tables.SelectedOrder() }

// ShowOrders switches the account pane to the open orders tab.
func (m *Model) ShowOrders() { m.tables.SetTab(accountpane.Orders) }

// AddTab adds a component as a tab of the account pane (after its
// tables), e.g. a compact swap statistics view.
func (m *Model) AddTab(name string, p common.Pane) { m.tables.AddTab(name, p) }

// AddPage registers a full-screen page (":NAME" shows it).
func (m *Model) AddPage(name string, p common.Pane) {
	if _, ok := m.pages[name]; !ok {
		m.pageNames = append(m.pageNames, name)
	}
	m.pages[name] = p
	m.relayout()
}

// DialogOpen reports whether a dialog is open.
func (m *Model) DialogOpen() bool { return len(m.dialogs) > 0 }

// Update routes a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.Width, m.c.Height = msg.Width, msg.Height
		m.relayout()
		for _, d := range m.dialogs {
			d.SetSize(msg.Width, msg.Height)
		}
		return m, nil
	case updateMsg:
		cmds = append(cmds, m.apply(&msg.u), m.wait())
		return m, tea.Batch(cmds...)
	case feed.Update:
		return m, m.apply(&msg)
	case *feed.Update:
		return m, m.apply(msg)
	case tickMsg:
		m.expireNotices()
		m.header.invalidate()
		m.status.invalidate()
		return m, tea.Batch(m.tick(), m.toAll(msg))
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.MouseClickMsg:
		return m, m.mouse(msg.Mouse(), false)
	case tea.MouseWheelMsg:
		return m, m.mouse(msg.Mouse(), true)
	case common.OpenDialogMsg:
		if msg.Dialog != nil {
			msg.Dialog.SetSize(m.c.Width, m.c.Height)
			m.dialogs = append(m.dialogs, msg.Dialog)
		}
		return m, nil
	case common.CloseDialogMsg:
		if n := len(m.dialogs); n > 0 {
			m.dialogs = m.dialogs[:n-1]
		}
		return m, nil
	case common.NoticeMsg:
		m.notify(msg.Level, msg.Text)
		return m, nil
	case common.SymbolMsg:
		return m, m.setSymbol(msg.Symbol)
	case common.IntervalMsg:
		return m, m.setInterval(msg.Interval)
	case common.ShowPageMsg:
		return m, m.showPage(msg.Name)
	}
	// Anything else: results of commands. Offer it to every component
	// (async results find their owner even when it is not focused).
	return m, m.toAll(msg)
}

// toAll offers a message to the panes, pages, dialogs and hooks.
func (m *Model) toAll(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, p := range m.panes {
		if _, c := p.Update(msg); c != nil {
			cmds = append(cmds, c)
		}
	}
	for _, n := range m.pageNames {
		if _, c := m.pages[n].Update(msg); c != nil {
			cmds = append(cmds, c)
		}
	}
	for i, d := range m.dialogs {
		nd, c := d.Update(msg)
		m.dialogs[i] = nd
		if c != nil {
			cmds = append(cmds, c)
		}
	}
	for _, h := range m.hooks {
		if c := h.Update(m, msg); c != nil {
			cmds = append(cmds, c)
		}
	}
	m.retitle()
	return batch(cmds)
}

func batch(cmds []tea.Cmd) tea.Cmd {
	switch len(cmds) {
	case 0:
		return nil
	case 1:
		return cmds[0]
	}
	return tea.Batch(cmds...)
}

// apply stores an Update, turns its events into notices and routes it.
func (m *Model) apply(u *feed.Update) tea.Cmd {
	m.store.Apply(u)
	sym := m.symbol
	if _, ok := u.Tickers[sym]; ok {
		m.header.invalidate()
	} else if _, ok := u.Futures[sym]; ok {
		m.header.invalidate()
	} else if _, ok := u.BBOs[sym]; ok {
		m.header.invalidate()
	} else if u.Account != nil {
		m.header.invalidate()
	}
	if u.Health != nil {
		m.status.invalidate()
	}
	for _, e := range u.Events {
		m.event(e)
	}
	return m.toAll(common.FeedMsg{Update: u})
}

func (m *Model) event(e feed.Event) {
	switch e.Kind {
	case feed.EventFill:
		m.notify(common.NoticeSuccess, e.Text)
	case feed.EventOrderAck, feed.EventCancelled:
		m.notify(common.NoticeInfo, e.Text)
	case feed.EventRejected:
		m.notify(common.NoticeWarn, e.Text)
	case feed.EventError:
		m.notify(common.NoticeError, e.Text)
		m.status.invalidate()
	default:
		if e.Text != "" {
			m.notify(common.NoticeInfo, e.Text)
		}
	}
}

// NoticeFor is how long a notice stays (errors longer).
var NoticeFor = map[common.NoticeLevel]time.Duration{
	common.NoticeInfo: 4 * time.Second, common.NoticeSuccess: 6 * time.Second,
	common.NoticeWarn: 8 * time.Second, common.NoticeError: 10 * time.Second,
}

func (m *Model) notify(level common.NoticeLevel, text string) {
	if text == "" {
		return
	}
	m.notices = append(m.notices, notice{level: level, text: text, expires: m.c.Clock().Add(NoticeFor[level])})
	if len(m.notices) > 20 {
		m.notices = m.notices[len(m.notices)-20:]
	}
	m.status.invalidate()
}

func (m *Model) expireNotices() {
	now := m.c.Clock()
	kept := m.notices[:0]
	for _, n := range m.notices {
		if now.Before(n.expires) {
			kept = append(kept, n)
		}
	}
	if len(kept) != len(m.notices) {
		m.status.invalidate()
	}
	m.notices = kept
}

// setSymbol focuses another symbol everywhere.
func (m *Model) setSymbol(s string) tea.Cmd {
	if s == "" || s == m.symbol {
		return nil
	}
	m.symbol = s
	if m.opts.Source != nil {
		m.opts.Source.Focus(s)
	}
	m.setTick()
	m.header.invalidate()
	m.title = "tradedeck " + m.opts.Venue + " " + s
	return m.toAll(common.SymbolMsg{Symbol: s})
}

func (m *Model) setTick() {
	if m.opts.Tick != nil {
		m.book.SetTick(m.opts.Tick(m.symbol))
	}
}

// setInterval switches the candle interval.
func (m *Model) setInterval(iv string) tea.Cmd {
	if !common.ValidInterval(iv) {
		return common.Notify(common.NoticeError, "unknown interval "+iv+" (one of 1m 5m 15m 30m 1h 1d 1w 1M)")
	}
	if iv == m.interval {
		return nil
	}
	m.interval = iv
	if m.opts.Source != nil {
		m.opts.Source.SetInterval(iv)
	}
	return m.toAll(common.IntervalMsg{Interval: iv})
}

func (m *Model) showPage(name string) tea.Cmd {
	if name != "" {
		if _, ok := m.pages[name]; !ok {
			return common.Notify(common.NoticeError, "no page "+name)
		}
	}
	if m.page != "" {
		m.pages[m.page].Blur()
	}
	m.page = name
	if name != "" {
		m.pages[name].Focus()
	}
	m.relayout()
	return nil
}

// setFocus moves the focus to pane p (zooming it when it is hidden).
func (m *Model) setFocus(p PaneID) {
	if p < 0 || p >= numPanes {
		return
	}
	if m.page != "" {
		m.showPage("")
	}
	if p != m.focus {
		m.panes[m.focus].Blur()
		m.focus = p
		m.panes[p].Focus()
	}
	if m.rects[p].w == 0 && !m.zoom {
		m.zoom = true
	}
	m.relayout()
}

// cycle moves the focus to the next visible pane (d = +1 or -1).
func (m *Model) cycle(d int) {
	grid := layoutGrid(max(m.c.Width, MinWidth), max(m.c.Height, MinHeight))
	p := m.focus
	for i := 0; i < int(numPanes); i++ {
		p = (p + PaneID(d) + numPanes) % numPanes
		if grid[p].w > 0 {
			break
		}
	}
	if m.zoom && grid[p].w > 0 && grid[m.focus].w == 0 {
		m.zoom = false // leaving a pane that is only shown zoomed
	}
	m.setFocus(p)
}

// relayout recomputes every rectangle and the sizes of the panes.
func (m *Model) relayout() {
	w, h := m.c.Width, m.c.Height
	m.header.invalidate()
	m.status.invalidate()
	m.helpBar.invalidate()
	if w < MinWidth || h < MinHeight {
		return
	}
	var rects [numPanes]rect
	switch {
	case m.page != "":
		r := bodyRect(w, h)
		m.pages[m.page].SetSize(r.w-2, r.h-2)
		m.pageBox.invalidate()
	case m.zoom:
		rects[m.focus] = bodyRect(w, h)
	default:
		rects = layoutGrid(w, h)
		if rects[m.focus].w == 0 {
			// The focused pane is not part of this grid (unzoomed or the
			// screen shrank): keys must not go to a pane nobody sees.
			m.panes[m.focus].Blur()
			m.focus = PaneBook
			m.panes[m.focus].Focus()
		}
	}
	m.rects = rects
	for i, r := range rects {
		if r.w > 0 {
			m.panes[i].SetSize(r.w-2, r.h-2)
		}
		m.boxes[i].invalidate()
	}
	// Row map: which panes cross each screen row, left to right.
	if cap(m.rowMap) < h {
		m.rowMap = make([][]PaneID, h)
	}
	m.rowMap = m.rowMap[:h]
	for y := range m.rowMap {
		m.rowMap[y] = m.rowMap[y][:0]
	}
	order := make([]PaneID, 0, numPanes)
	for i, r := range rects {
		if r.w > 0 {
			order = append(order, PaneID(i))
		}
	}
	sort.Slice(order, func(a, b int) bool { return rects[order[a]].x < rects[order[b]].x })
	for _, id := range order {
		r := rects[id]
		for y := r.y; y < r.y+r.h && y < h; y++ {
			m.rowMap[y] = append(m.rowMap[y], id)
		}
	}
	m.retitle()
}

// retitle refreshes the cached borders whose title changed.
func (m *Model) retitle() {
	for i, p := range m.panes {
		m.boxes[i].title(p.Title())
	}
	if m.page != "" {
		m.pageBox.title(m.pages[m.page].Title())
	}
}

// key routes a key press: dialogs first, then the command line, the
// global keys, the hooks (trading), and finally the focused pane.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	if n := len(m.dialogs); n > 0 {
		d, cmd := m.dialogs[n-1].Update(msg)
		if len(m.dialogs) == n {
			m.dialogs[n-1] = d
		}
		return cmd
	}
	if m.cmdActive {
		return m.cmdKey(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		return common.Open(m.helpDialog())
	case key.Matches(msg, k.Search):
		return common.Open(newPicker(m))
	case key.Matches(msg, k.Command):
		m.cmdActive = true
		m.cmdline.Reset()
		m.cmdline.SetSuggestions(m.suggestions())
		m.helpBar.invalidate()
		return m.cmdline.Focus()
	case key.Matches(msg, k.Back):
		switch {
		case m.page != "":
			return m.showPage("")
		case m.zoom:
			m.zoom = false
			m.relayout()
		}
		return nil
	case m.page != "":
		// A page gets the rest of the keys.
		_, cmd := m.pages[m.page].Update(msg)
		m.retitle()
		return cmd
	case key.Matches(msg, k.NextPane):
		m.cycle(1)
		return nil
	case key.Matches(msg, k.PrevPane):
		m.cycle(-1)
		return nil
	case key.Matches(msg, k.FocusPane):
		if r := []rune(msg.String()); len(r) == 1 && r[0] >= '1' && r[0] <= '9' {
			m.setFocus(PaneID(r[0] - '1'))
		}
		return nil
	case key.Matches(msg, k.Zoom):
		m.zoom = !m.zoom
		m.relayout()
		return nil
	case key.Matches(msg, k.Stats):
		if _, ok := m.pages["stats"]; ok {
			return m.showPage("stats")
		}
	}
	for _, h := range m.hooks {
		if ok, cmd := h.Key(m, msg); ok {
			return cmd
		}
	}
	_, cmd := m.panes[m.focus].Update(msg)
	m.retitle()
	m.helpBar.invalidate() // a pane's keys may depend on its state (tabs)
	return cmd
}

// mouse focuses the pane under a click and hands it the event in its own
// coordinates; the wheel scrolls the pane under the pointer.
func (m *Model) mouse(e tea.Mouse, wheel bool) tea.Cmd {
	if len(m.dialogs) > 0 || m.c.Width < MinWidth || m.c.Height < MinHeight {
		return nil
	}
	if m.page != "" {
		r := bodyRect(m.c.Width, m.c.Height)
		if !r.contains(e.X, e.Y) {
			return nil
		}
		_, cmd := m.pages[m.page].Update(common.PaneMouse{X: e.X - r.x - 1, Y: e.Y - r.y - 1, Button: e.Button, Wheel: wheel})
		return cmd
	}
	for i, r := range m.rects {
		if r.w == 0 || !r.contains(e.X, e.Y) {
			continue
		}
		p := PaneID(i)
		if !wheel && e.Button == tea.MouseLeft && p != m.focus {
			m.setFocus(p)
		}
		_, cmd := m.panes[p].Update(common.PaneMouse{X: e.X - r.x - 1, Y: e.Y - r.y - 1, Button: e.Button, Wheel: wheel})
		m.retitle()
		return cmd
	}
	return nil
}
