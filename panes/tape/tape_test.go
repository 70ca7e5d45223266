package tape

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
)

func newTrades(w, h int, ascii bool) *Model {
	store := common.NewStore()
	store.Apply(panetest.Market(1, 20))
	m := New(panetest.Common(store, panetest.Keys(), ascii), "PERP_BTC_USDT")
	m.SetSize(w, h)
	return m
}

func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name  string
		w, h  int
		ascii bool
	}{{"trades_34x12", 34, 12, false}, {"trades_ascii_34x12", 34, 12, true}} {
		m := newTrades(c.w, c.h, c.ascii)
		panetest.CheckLines(t, m.Lines(), c.w, c.h)
		panetest.Golden(t, c.name, m.View())
	}
}

func TestLargeTradesEmphasised(t *testing.T) {
	m := newTrades(34, 20, false)
	rows := m.trades.Rows
	var sum int64
	for _, r := range rows {
		sum += r.Qty
	}
	mean := sum / int64(len(rows))
	lines := m.Lines()
	for i, r := range rows[:len(lines)-1] {
		l := lines[i+1]
		bold := strings.Contains(l, m.Theme.BuyBold) || strings.Contains(l, m.Theme.SellBold)
		if large := r.Qty >= LargeFactor*mean; large != bold {
			t.Fatalf("row %d qty %d (mean %d): emphasised %v", i, r.Qty, mean, bold)
		}
	}
}

func TestScrollAndSymbolSwitch(t *testing.T) {
	m := newTrades(34, 12, false)
	first := ansi.Strip(m.Lines()[1])
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	if ansi.Strip(m.Lines()[1]) == first {
		t.Fatal("down did not scroll")
	}
	m.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	if ansi.Strip(m.Lines()[1]) != first {
		t.Fatal("g did not go back to the newest")
	}
	m.Update(common.SymbolMsg{Symbol: "PERP_ETH_USDT"})
	if m.Title() != "Trades PERP_ETH_USDT" || !strings.Contains(m.View(), "3456.") {
		t.Fatal(m.Title(), ansi.Strip(m.View()))
	}
	m.Update(common.SymbolMsg{Symbol: "NOPE"})
	if !strings.Contains(m.View(), "no trades yet") {
		t.Fatal(m.View())
	}
}
