// Package ui is the dashboard's root model: layout, focus, routing of
// messages to panes, the header, status bar and help line, the command
// line, the symbol picker, the dialog stack, notices and full-screen
// pages. Panes live in panes/; the shared contract in panes/common.
package ui

import (
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/shopspring/decimal"

	"tradedeck/desk"
	"tradedeck/feed"
	"tradedeck/panes/accountpane"
	"tradedeck/panes/algos"
	"tradedeck/panes/book"
	"tradedeck/panes/chart"
	"tradedeck/panes/common"
	"tradedeck/panes/tape"
	"tradedeck/panes/watchlist"
	"tradedeck/theme"
	"tradedeck/venue"
)

// Feed is what the dashboard uses of the venue's data (consumer side):
// a stream of updates for what it shows, the requests that change what
// that is, and the symbol rules (names for the picker, ticks for the
// book). The dashboard command hands a hub session with the feed's rules.
type Feed interface {
	Updates() <-chan feed.Update
	Focus(symbol string)
	SetInterval(iv string)
	SetWatchlist(syms []string)
	SetBooks(symbols []string) // more books streamed (the split view); nil: none
	Symbols() []venue.SymbolRule
}

// Options configure the dashboard.
type Options struct {
	Feed Feed       // nil: updates are sent as messages (tests)
	Desk *desk.Desk // nil: no API keys, nothing trades
	// ReadOnly says why trading and account changes are off ("" = on):
	// decided once where the venue is opened ("--read-only", "no API
	// keys", "SSH viewer") and shown in every refusal.
	ReadOnly string
	// ConfirmNotional: orders at or above it get the strong confirmation
	// (zero: DefaultConfirmNotional; negative: never).
	ConfirmNotional decimal.Decimal

	Venue     string // "SIM", "PAPER" or "LIVE" (LIVE is drawn in red, always)
	Account   string // account label for the header (never a secret)
	Symbol    string
	Interval  string
	Watchlist []string
	// Budget describes the REST rate-limit budget for the status bar.
	Budget func() string
	Theme  *theme.Theme
	Keys   *common.KeyMap
	ASCII  bool
	// Now is the clock (nil: time.Now); tests fix it.
	Now func() time.Time
	// Focus names the pane focused at start (book, chart, trades,
	// watchlist, account); Zoom starts it zoomed.
	Focus string
	Zoom  bool
	// Alerts is the session's alert engine (ui/alerts.go); nil: none.
	Alerts *AlertDesk
	// ExportDir is where ':export' writes ("": refused, as for an SSH
	// viewer); Replay is a replay's playback control (nil: live).
	ExportDir string
	Replay    ReplayControl
	Paper     PaperControl // the paper venue behind the dashboard; nil: none
	// Algos is the account's protective-orders engine, or the view of the
	// one another process runs (ui/algos.go); nil: no process runs it, and
	// the screens say "engine not running". AlgoBy names who acts in this
	// session, for the engine's database and serve's audit ("": dashboard).
	Algos  Algos
	AlgoBy string
	// Pace: the screen takes in market and account updates once per slot
	// of Pace, and the trades tape and the book redraw at most once per
	// slot (0: every update at once); SSH sessions set it (docs/serve.md).
	Pace time.Duration
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

	dialogs  []common.Dialog
	stackGen uint64     // bumped when the dialog stack or the screen changes
	shown    frameShown // what the last frame drew, for the gate
	dropped  int        // dialogs a too-small screen closed, reported once
	ignored  int        // keys a too-small screen ignored, shown on it

	cmdline   textinput.Model
	cmdActive bool

	notices        []notice  // shown in the status bar until they expire
	log            noticeLog // every notice, with its time, for :log
	streamed       orderSet  // orders the private stream reported
	trader         *Trader
	hooks          []Hook       // alerts, :export, replay controls, :paper, :split, moves
	algoFeed       *algoFeed    // nil without Options.Algos
	algoTab        *algos.Model // the account pane's Algos tab
	algoTabID      accountpane.Tab
	algoSuggesting bool // the ':' line holds an algo command's completions

	frame    []byte   // the frame composed, rowEnds[i] where row i ends
	rowEnds  []int    // (both reused)
	rows     []string // the last frame's rows as handed over (never changed after)
	rowsGen  uint64   // counts new rows slices
	pushed   bool     // the host sends the feed's Updates (PushUpdates)
	overlaid overlaidFrame
	boxes    [numPanes]box
	pageBox  box
	header   header
	status   statusBar
	helpBar  helpLine
	title    string
}

type notice struct {
	level   common.NoticeLevel
	text    string
	expires time.Time
}

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
	trader := NewTrader(TraderOptions{Desk: o.Desk, ReadOnly: o.ReadOnly, ConfirmNotional: o.ConfirmNotional})
	store := common.NewStore()
	c := common.Common{Theme: o.Theme, Keys: o.Keys, ASCII: o.ASCII, ReadOnly: trader.ReadOnly(), Store: store, Now: o.Now, Pace: o.Pace}
	if trader.ReadOnly() && o.Keys != nil {
		o.Keys.SetTradingEnabled(false) // hidden from help, refused on use
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
	m.trader = trader
	m.hooks = []Hook{newAlertsHook(m), exportHook{}, newReplayHook(m), newPaperHook(m), splitHook{}, movesHook{}, algosHook{}}
	m.algoTabID = -1
	m.useAlgos(o.Algos)
	m.title = "tradedeck " + o.Venue + " " + o.Symbol
	return m
}

// Init starts reading the feed and the clock.
// measureGraphemes has the renderer measure text as the panes do: by
// grapheme cluster (ansi.StringWidth), as Bubble Tea does by
// itself when the terminal answers its mode 2027 query. Measuring by
// wcwidth instead made every process build go-runewidth's 2.2 MB table
// for the first box-drawing character (docs/ui.md "Memory"); the two
// agree on everything the screen draws but emoji sequences.
func measureGraphemes() tea.Msg {
	return tea.ModeReportMsg{Mode: ansi.ModeUnicodeCore, Value: ansi.ModeReset}
}

func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.tick(), m.wait(), measureGraphemes}
	if !m.trader.ReadOnly() {
		cmds = append(cmds, m.trader.loadRules()) // the form validates at once
	}
	for _, h := range m.hooks {
		cmds = append(cmds, h.Init(m))
	}
	for _, n := range m.pageNames {
		cmds = append(cmds, m.pages[n].Init())
	}
	for _, p := range m.tables.Extras() {
		cmds = append(cmds, p.Init())
	}
	if f := m.opts.Feed; f != nil {
		f.SetWatchlist(m.opts.Watchlist)
		f.Focus(m.symbol)
		f.SetInterval(m.interval)
	}
	return tea.Batch(cmds...)
}

// PushUpdates says the host delivers the feed's Updates as *feed.Update
// messages itself (ForwardUpdates), so the model does not read them
// through a command per Update: Bubble Tea runs every command on a
// goroutine of its own, and each Update cost a goroutine and two
// hand-offs more. Call it before the program runs.
func (m *Model) PushUpdates() { m.pushed = true }

// ForwardUpdates hands every Update of updates to send (a program's
// Send) until updates is closed: the one goroutine a pushed feed needs.
func ForwardUpdates(updates <-chan feed.Update, send func(tea.Msg)) {
	for u := range updates {
		send(&u)
	}
}

// wait reads the next feed update; it comes back as *feed.Update, the
// one form of feed data the root takes.
func (m *Model) wait() tea.Cmd {
	if m.opts.Feed == nil || m.pushed {
		return nil
	}
	ch := m.opts.Feed.Updates()
	return func() tea.Msg {
		u, ok := <-ch
		if !ok {
			return nil
		}
		return &u
	}
}

// waitPaced reads the next update at once or, on a paced screen, at the
// start of the next slot of Pace (the slots the book's and the tape's
// pacers use). Meanwhile the hub session merges what arrives, newest
// winning, so a paced screen takes in one update per slot: the header,
// watchlist and account redraw with the book instead of on each of the
// ~20 BBO changes a second of a busy market (docs/serve.md "Bytes per
// viewer"). Keys and the clock still draw at once.
func (m *Model) waitPaced() tea.Cmd {
	wait := m.wait()
	if m.opts.Pace <= 0 || wait == nil {
		return wait
	}
	now := time.Now()
	hold := now.Truncate(m.opts.Pace).Add(m.opts.Pace).Sub(now)
	return func() tea.Msg {
		time.Sleep(hold)
		return wait()
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

// Options are the dashboard's options.
func (m *Model) Options() Options { return m.opts }

// ReadOnly reports whether trading is disabled.
func (m *Model) ReadOnly() bool { return m.trader.ReadOnly() }

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
