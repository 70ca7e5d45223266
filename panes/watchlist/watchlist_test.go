package watchlist

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
)

func newWatch(w, h int) *Model {
	m := New(panetest.MarketCommon(false), append(panetest.Symbols, "SPOT_NEW_USDT"), "PERP_BTC_USDT")
	m.SetSize(w, h)
	return m
}

func TestGolden(t *testing.T) {
	sizes := []panetest.Size{panetest.At("watchlist_32x10", 32, 10, false), panetest.At("watchlist_60x10", 60, 10, false), panetest.At("watchlist_2line_32x16", 32, 16, false)}
	panetest.GoldenSizes(t, sizes, func(s panetest.Size) panetest.Pane { return newWatch(s.W, s.H) })
}

func TestSelectAndClick(t *testing.T) {
	m := newWatch(32, 10)
	m.Focus()
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if msg, ok := cmd().(common.SetSymbolMsg); !ok || msg.Symbol != "PERP_ETH_USDT" {
		t.Fatalf("%#v", cmd())
	}
	_, cmd = m.Update(common.PaneMouse{X: 2, Y: 5, Button: tea.MouseLeft})
	if msg, ok := cmd().(common.SetSymbolMsg); !ok || msg.Symbol != "SPOT_WOO_USDT" {
		t.Fatalf("%#v", cmd())
	}
	m.Update(common.SymbolMsg{Symbol: "SPOT_WOO_USDT"})
	for _, l := range m.Lines() {
		if p := ansi.Strip(l); strings.Contains(p, "SPOT_WOO_USDT") && !strings.HasPrefix(p, "•") {
			t.Fatalf("current symbol not marked: %q", p)
		}
	}
}

func TestTwoLineClick(t *testing.T) {
	m := newWatch(32, 16)
	m.Lines()
	// Row 1-2 is the first symbol, 3-4 the second, ...: the bbo line of
	// PERP_ETH_USDT (third symbol) is row 6.
	_, cmd := m.Update(common.PaneMouse{X: 2, Y: 6, Button: tea.MouseLeft})
	if msg, ok := cmd().(common.SetSymbolMsg); !ok || msg.Symbol != "PERP_ETH_USDT" {
		t.Fatalf("%#v", cmd())
	}
}

// The last price shares the bid's and ask's decimals: "654321.0" beside
// "654320.9", never "654321".
func TestLastSharesTheBidAskDecimals(t *testing.T) {
	v := ansi.Strip(newWatch(60, 10).View())
	for _, want := range []string{"654321.0  +1.27%     654320.9", "145.230  -0.19%      145.220"} {
		if !strings.Contains(v, want) {
			t.Errorf("want %q in\n%s", want, v)
		}
	}
}
