package tape

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
)

func newTrades(w, h int, ascii bool) *Model {
	m := New(panetest.MarketCommon(ascii), "PERP_BTC_USDT")
	m.SetSize(w, h)
	return m
}

func TestGolden(t *testing.T) {
	sizes := []panetest.Size{panetest.At("trades_34x12", 34, 12, false), panetest.At("trades_ascii_34x12", 34, 12, true)}
	panetest.GoldenSizes(t, sizes, func(s panetest.Size) panetest.Pane { return newTrades(s.W, s.H, s.ASCII) })
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

// With a Pace (SSH sessions), trades that come within it are drawn
// together on the pace's tick, the newest winning.
func TestPaceBatchesTrades(t *testing.T) {
	// In a synctest bubble the tick's wait takes no real time and is
	// measured exactly: the redraw comes when the next slot begins.
	synctest.Test(t, func(t *testing.T) {
		store := common.NewStore()
		u := panetest.Market(1, 20)
		store.Apply(u)
		c, clk := panetest.Paced(store, 400*time.Millisecond)
		m := New(c, "PERP_BTC_USDT")
		m.SetSize(34, 12)
		trades := func(v uint64, price int64) common.FeedMsg {
			tr := *u.Trades["PERP_BTC_USDT"]
			tr.Version = v
			tr.Rows = append([]feed.Trade{{TS: clk.Now().UnixMilli(), Price: price, Qty: 1, Side: feed.Buy}}, tr.Rows...)
			return common.FeedMsg{Update: &feed.Update{Trades: map[string]*feed.Trades{"PERP_BTC_USDT": &tr}}}
		}
		// The first update after New is drawn at once (nothing drawn yet).
		_, cmd := m.Update(trades(10, 1111111))
		if cmd != nil || !strings.Contains(ansi.Strip(m.View()), "111111.1") {
			t.Fatalf("first trades not drawn at once:\n%s", ansi.Strip(m.View()))
		}
		clk.Advance(100 * time.Millisecond)
		_, cmd = m.Update(trades(11, 2222222))
		m.Update(trades(12, 3333333))
		if cmd == nil {
			t.Fatal("trades within the pace scheduled no redraw")
		}
		if v := ansi.Strip(m.View()); strings.Contains(v, "222222.2") || strings.Contains(v, "333333.3") {
			t.Fatalf("trades within the pace drawn at once:\n%s", v)
		}
		clk.Advance(300 * time.Millisecond)
		start := time.Now()
		msg := cmd()
		if waited := time.Since(start); waited != 300*time.Millisecond {
			t.Fatalf("the redraw came %v after the trades, want 300ms (the next slot)", waited)
		}
		m.Update(msg)
		if v := ansi.Strip(m.View()); !strings.Contains(v, "333333.3") || strings.Contains(v, "222222.2") {
			t.Fatalf("the tick did not draw the newest trades:\n%s", v)
		}
	})
}
