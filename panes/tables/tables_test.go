package tables

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
)

func newTables(w, h int) *Model {
	store := common.NewStore()
	store.Apply(panetest.Market(1, 20))
	m := New(panetest.Common(store, panetest.Keys(), false))
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
