package accountpane

import (
	"charm.land/bubbles/v2/key"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
)

func newTables(w, h int) *Model {
	m := New(panetest.MarketCommon(false))
	m.SetSize(w, h)
	return m
}

func TestGoldenEveryTab(t *testing.T) {
	for _, size := range [][2]int{{78, 8}, {160, 8}} {
		m := newTables(size[0], size[1])
		for tab := Tab(0); tab < numTabs; tab++ {
			m.SetTab(tab)
			panetest.CheckLines(t, m.Lines(), size[0], size[1])
			name := strings.ToLower(strings.ReplaceAll(tab.String(), " ", "_"))
			panetest.Golden(t, "tables_"+name+"_"+itoa(size[0]), m.View())
		}
	}
}

func itoa(n int) string { return decimal.NewFromInt(int64(n)).String() }

func TestUnrealisedPnLFollowsTheMark(t *testing.T) {
	m := newTables(100, 8)
	if !strings.Contains(ansi.Strip(m.View()), "864.22") { // (654321.1-650000)*0.2
		t.Fatal(ansi.Strip(m.View()))
	}
	m.Update(common.FeedMsg{Update: &feed.Update{Futures: map[string]feed.Futures{
		"PERP_BTC_USDT": {Symbol: "PERP_BTC_USDT", MarkPrice: decimal.RequireFromString("651000")},
	}}})
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "200.00") || !strings.Contains(v, "0.15%") {
		t.Fatalf("uPnL at mark 651000 should be 200.00 (0.15%%):\n%s", v)
	}
}

func TestOrdersProgressAndSelection(t *testing.T) {
	m := newTables(120, 8)
	m.Focus()
	m.Update(tea.KeyPressMsg{Code: ']', Text: "]"})
	if m.Tab() != Orders {
		t.Fatal(m.Tab())
	}
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "██.... 40%") || !strings.Contains(v, "PENDING") {
		t.Fatalf("fill progress / pending:\n%s", v)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	o, ok := m.SelectedOrder()
	if !ok || o.ClientOrderID != 4 {
		t.Fatalf("selected %+v %v", o, ok)
	}
	m.Update(common.PaneMouse{X: 3, Y: 4, Button: tea.MouseLeft})
	if o, _ := m.SelectedOrder(); o.ClientOrderID != 5 {
		t.Fatalf("click selected %+v", o)
	}
	m.Update(common.PaneMouse{X: 1 + len(" Positions 2 ") + 2, Y: 0, Button: tea.MouseLeft})
	if m.Tab() != Orders {
		t.Fatal("click on the Open orders tab", m.Tab())
	}
	m.SetTab(Balances)
	if _, ok := m.SelectedOrder(); ok {
		t.Fatal("no selected order outside the orders tab")
	}
}

// stubPane is a minimal extra tab: it records what reaches it.
type stubPane struct {
	common.Base
	keys, msgs int
}

func (p *stubPane) Init() tea.Cmd { return nil }
func (p *stubPane) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg.(type) {
	case tea.KeyPressMsg:
		p.keys++
	default:
		p.msgs++
	}
	p.Invalidate()
	return p, nil
}
func (p *stubPane) View() string  { return common.JoinLines(p.Lines()) }
func (p *stubPane) Title() string { return "stub" }
func (p *stubPane) Lines() []string {
	return p.Cached(func(c *common.Canvas) {
		c.Text("stub keys " + itoa(p.keys) + " msgs " + itoa(p.msgs))
		c.EndLine()
	})
}
func (p *stubPane) ShortHelp() []key.Binding  { return nil }
func (p *stubPane) FullHelp() [][]key.Binding { return nil }

// withStub is a focused pane of w x h with a stub as its Swap stats tab.
func withStub(w, h int) (*Model, *stubPane, Tab) {
	m := newTables(w, h)
	m.Focus()
	stub := &stubPane{}
	stub.Common = m.Common
	return m, stub, m.AddTab("Swap stats", stub)
}

func TestExtraTab(t *testing.T) {
	m, stub, tab := withStub(100, 8)
	if stub.Width != 100 || stub.Height != 7 {
		t.Fatalf("extra sized %dx%d", stub.Width, stub.Height)
	}
	m.Update(common.FeedMsg{Update: &feed.Update{}})
	if stub.msgs != 1 {
		t.Fatal("messages must reach an extra tab even when hidden")
	}
	m.Update(tea.KeyPressMsg{Code: '[', Text: "["})
	if m.Tab() != tab {
		t.Fatalf("[ from the first tab should wrap to the extra tab, got %v", m.Tab())
	}
	m.Update(tea.KeyPressMsg{Code: 'n', Text: "n"})
	m.Update(common.PaneMouse{X: 3, Y: 0, Button: tea.MouseWheelDown, Wheel: true})
	v := ansi.Strip(m.View())
	if stub.keys != 1 || !strings.Contains(v, "Swap stats") || !strings.Contains(v, "stub keys 1 msgs 1") {
		t.Fatalf("keys %d:\n%s", stub.keys, v)
	}
	panetest.CheckLines(t, m.Lines(), 100, 8)
	// Clicking a tab label switches back.
	m.Update(common.PaneMouse{X: m.tabX[Balances][0] + 1, Y: 0, Button: tea.MouseLeft})
	if m.Tab() != Balances {
		t.Fatal(m.Tab())
	}
}

// An open order with nothing filled makes the venue list a position with
// nothing held: it is no position, neither counted nor shown.
func TestZeroHoldingIsNoPosition(t *testing.T) {
	store := common.NewStore()
	store.Apply(panetest.Market(1, 20))
	a := *store.Account
	a.Positions = []feed.Position{{Symbol: "PERP_SOL_USDT", Holding: decimal.Zero, PendingLong: decimal.RequireFromString("1")}}
	m := New(panetest.Common(store, panetest.Keys(), false))
	m.SetSize(100, 6)
	m.Update(common.FeedMsg{Update: &feed.Update{Account: &a}})
	v := ansi.Strip(m.View())
	if strings.Contains(v, "Positions 1") || strings.Contains(v, "PERP_SOL_USDT") || !strings.Contains(v, " none") {
		t.Fatalf("a zero holding shows as a position:\n%s", v)
	}
	if !strings.Contains(v, "Open orders 3") {
		t.Fatalf("open orders still counted:\n%s", v)
	}
}

// Narrow panes keep what a trader reads first: the symbol, the size, the
// PnL and the liquidation price of a position, dropping the entry price
// and mark whole.
func TestNarrowPositionsKeepPnL(t *testing.T) {
	m := newTables(56, 6)
	v := ansi.Strip(m.View())
	for _, want := range []string{"Symbol", "Qty", "uPnL", "Liq", "864.22", "531200.4", "Equity 25864.22"} {
		if !strings.Contains(v, want) {
			t.Errorf("narrow positions lack %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "Avg open") {
		t.Errorf("the entry price should go first:\n%s", v)
	}
	panetest.CheckLines(t, m.Lines(), 56, 6)
	panetest.Golden(t, "tables_positions_56", m.View())
}

// Prices of one symbol share the symbol's decimals: "650000.0" next to
// "654321.1", never "650000".
func TestPricesShareTheSymbolsDecimals(t *testing.T) {
	v := ansi.Strip(newTables(160, 6).View())
	if !strings.Contains(v, "650000.0") || !strings.Contains(v, "3500.00") {
		t.Fatalf("prices not at the symbol's decimals:\n%s", v)
	}
}

// When the labels do not fit, the tab bar still names the active tab,
// with a marker where labels are left out.
func TestTabBarAlwaysShowsTheActiveTab(t *testing.T) {
	m, _, tab := withStub(42, 5)
	for want := Positions; want <= tab; want++ {
		m.SetTab(want)
		bar := ansi.Strip(m.Lines()[0])
		if !strings.Contains(bar, " "+m.tabName(want)) {
			t.Fatalf("tab %v not in the bar %q", want, bar)
		}
		panetest.CheckLines(t, m.Lines(), 42, 5)
		// The label is where a click finds it.
		r := m.tabX[want]
		m.SetTab(Positions)
		if want != Positions {
			m.Update(common.PaneMouse{X: r[0] + 1, Y: 0, Button: tea.MouseLeft})
			if m.Tab() != want {
				t.Fatalf("click on %v's label at %v chose %v", want, r, m.Tab())
			}
		}
		m.SetTab(want)
	}
	if bar := ansi.Strip(m.Lines()[0]); !strings.HasPrefix(bar, "…") {
		t.Fatalf("no marker for the tabs left out: %q", bar)
	}
	panetest.Golden(t, "tables_tabbar_42_extra", m.View())
}

// The help of a tab inside the pane names only the keys that reach it:
// with ] and → switching tabs, the swap stats tab's "→/n next network"
// and "]/p longer period" become "n" and "p".
func TestExtraTabHelpNamesOnlyKeysThatReachIt(t *testing.T) {
	keys := panetest.Keys()
	if err := keys.Rebind(map[string][]string{"next_tab": {"]", "right"}, "next_network": {"right", "n"}, "next_period": {"]", "p"}}); err != nil {
		t.Fatal(err)
	}
	store := common.NewStore()
	store.Apply(panetest.Market(1, 20))
	m := New(panetest.Common(store, keys, false))
	m.SetSize(100, 6)
	m.Focus()
	stub := &helpPane{help: []key.Binding{keys.NextNetwork, keys.NextPeriod}}
	stub.Common = m.Common
	m.SetTab(m.AddTab("Swap stats", stub))
	var shown []string
	for _, b := range m.ShortHelp() {
		shown = append(shown, b.Help().Key+" "+b.Help().Desc)
	}
	got := strings.Join(shown, ", ")
	if strings.Contains(got, "→") || strings.Contains(got, "]/p") || !strings.Contains(got, "n next network") || !strings.Contains(got, "p longer period") {
		t.Fatalf("help %q", got)
	}
	m.Update(tea.KeyPressMsg{Code: 'n', Text: "n"})
	if stub.keys != 1 {
		t.Fatal("the advertised n did not reach the tab")
	}
}

type helpPane struct {
	stubPane
	help []key.Binding
}

func (p *helpPane) ShortHelp() []key.Binding { return p.help }

// The position under the cursor is what a close acts on; the summary line
// sits between the tab bar and the header, so a click on the second row
// selects the second position.
func TestSelectedPosition(t *testing.T) {
	m := newTables(120, 8)
	m.Focus()
	if p, ok := m.SelectedPosition(); !ok || p.Symbol != "PERP_BTC_USDT" {
		t.Fatalf("%+v %v", p, ok)
	}
	m.Update(common.PaneMouse{X: 3, Y: 4, Button: tea.MouseLeft})
	if p, _ := m.SelectedPosition(); p.Symbol != "PERP_ETH_USDT" {
		t.Fatalf("click selected %+v", p)
	}
	m.SetTab(Orders)
	if _, ok := m.SelectedPosition(); ok {
		t.Fatal("no selected position outside the positions tab")
	}
}

// The protection column: drawn only with an engine (or a view of one);
// "engine not running" when no process runs it, UNPROTECTED without a
// stop, else the stop's level.
func TestProtectionColumn(t *testing.T) {
	store := common.NewStore()
	store.Apply(&feed.Update{Account: panetest.Account()})
	m := New(panetest.Common(store, nil, false))
	m.SetSize(200, 10)
	if strings.Contains(ansi.Strip(m.View()), "Protection") {
		t.Fatal("a protection column without an engine")
	}
	store.Algos = common.AlgoState{Shown: true, Engine: common.EngineNone}
	m.Update(common.AlgosMsg{})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "Protection") || !strings.Contains(v, "engine not running") {
		t.Fatalf("no engine: %s", v)
	}
	store.Algos.Engine = common.EngineHere
	m.Update(common.AlgosMsg{})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "UNPROTECTED") {
		t.Fatalf("no stop: %s", v)
	}
	var sym string
	for _, p := range store.Account.Positions {
		if !p.Holding.IsZero() {
			sym = p.Symbol
			break
		}
	}
	store.Algos.Protection = map[string]algo.Protection{sym: {Symbol: sym, Stop: decimal.RequireFromString("1234.5"), StopAlgo: 7,
		Covered: decimal.RequireFromString("1000000"), Fresh: true}}
	m.Update(common.AlgosMsg{})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "stop 1234.5") {
		t.Fatalf("a stop on %s: %s", sym, v)
	}
	// The account pane of an 80-column screen is ~42 wide: the column
	// stays, before the PnL, in its short form.
	m.SetSize(42, 10)
	if v := ansi.Strip(m.View()); !strings.Contains(v, "Protection") || !strings.Contains(v, "stop 1234.5") || strings.Contains(v, "uPnL") {
		t.Fatalf("narrow: %s", v)
	}
	store.Algos.Protection = nil
	m.Update(common.AlgosMsg{})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "UNPROTECTED") {
		t.Fatalf("narrow, no stop: %s", v)
	}
}

// The protection text shortens to its column: whole, short, tiny.
func TestProtectionFits(t *testing.T) {
	long, short, tiny := "stop 96000.0 tp 98000.0 STALE", "S 96000.0 T 98000.0 STALE", "S 96000.0*"
	for w, want := range map[int]string{40: long, 26: short, 12: tiny, 5: tiny} {
		if got := fit(w, long, short, tiny); got != want {
			t.Errorf("width %d: %q, want %q", w, got, want)
		}
	}
}
