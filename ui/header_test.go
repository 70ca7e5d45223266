package ui

import (
	"strings"
	"testing"
	"unsafe"

	"charm.land/bubbles/v2/key"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/fixed"
	"tradedeck/panes/common"
)

// The header's leverage is the one of the account's mode (issue 20): the
// futures leverage in FUTURES mode, the margin leverage in MARGIN, none in
// PURE_SPOT.
func TestHeaderShowsTheLeverageOfTheMode(t *testing.T) {
	m := newTestModel(t, 200, 60, false)
	for _, c := range []struct{ mode, want, not string }{
		{"FUTURES", "FUTURES 10x", "5x"},
		{"MARGIN", "MARGIN 5x", "10x"},
		{"PURE_SPOT", "PURE_SPOT", "x "},
	} {
		a := *m.store.Account
		a.Margin = feed.Margin{Mode: c.mode, Leverage: decimal.NewFromInt(5), FuturesLeverage: decimal.NewFromInt(10)}
		m.Update(&feed.Update{Account: &a})
		line := strings.TrimRight(strings.Split(screen(m), "\n")[1], " ")
		if !strings.HasSuffix(line, c.want) || strings.HasSuffix(line, c.not) {
			t.Errorf("%s: header line 2 ends %q, want %q", c.mode, line[max(0, len(line)-20):], c.want)
		}
	}
}

// After a leverage change on the account screen (A, l, a choice, enter,
// y) the header's second line stays on screen: the dialogs are drawn
// below the header.
func TestHeaderStaysThroughALeverageChange(t *testing.T) {
	for _, p := range paths() {
		if p.name != "account leverage" {
			continue
		}
		l, before := setupPath(t, p, 160, 48, false)
		l.reach(p)
		l.accept(p, before)
		lines := strings.Split(l.screen(), "\n")
		if !strings.Contains(lines[1], "spot: no mark/funding") || !strings.Contains(lines[0], "SIM") {
			t.Fatalf("header lost after the leverage change:\n%s", strings.Join(lines[:3], "\n"))
		}
	}
}

// Help and ':' completion list the trading commands when the dashboard
// trades (issue 20), only :account when read-only with keys, none
// without keys.
func TestTradingCommandsInHelpAndCompletion(t *testing.T) {
	l := newLive(t, 200, 60, false)
	l.keys("?")
	l.until("the help", topIs[*helpDialog](l))
	sc := l.screen()
	for _, want := range []string{":buy [SYMBOL] [PRICE]", ":sell [SYMBOL] [PRICE]", ":cancel cid|oid N [SYMBOL]",
		":cancel all [SYMBOL]", ":panic", ":account"} {
		if !strings.Contains(sc, want) {
			t.Errorf("help lacks %s:\n%s", want, sc)
		}
	}
	l.keys("esc")
	l.until("the help to close", func() bool { return len(l.m.dialogs) == 0 })
	l.keys(":")
	l.typeText("pan")
	l.keys("tab")
	if got := l.m.cmdline.Value(); got != "panic" {
		t.Errorf(":pan + tab completed to %q", got)
	}
	l.keys("esc")

	ro := newLive(t, 200, 60, true)
	ro.keys("?")
	ro.until("the help", topIs[*helpDialog](ro))
	sc = ro.screen()
	if !strings.Contains(sc, ":account") || strings.Contains(sc, ":buy") || strings.Contains(sc, ":panic") {
		t.Errorf("read-only help:\n%s", sc)
	}
}

// An open help is asked for its view on every message: it hands back the
// box it drew while nothing in it changed, and draws it again when a
// binding is switched off or the screen is resized.
func TestHelpRedrawnOnlyWhenItChanged(t *testing.T) {
	m := newTestModel(t, 200, 60, false)
	d := &helpDialog{c: m.c, w: 200, h: 60, groups: []helpGroup{{"Pane", []key.Binding{
		key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "close position")),
		key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yank row")),
	}}}}
	first := d.View()
	if again := d.View(); unsafe.StringData(again) != unsafe.StringData(first) {
		t.Fatal("an unchanged help was drawn again")
	}
	if !strings.Contains(first, "yank row") {
		t.Fatalf("help lacks a binding:\n%s", first)
	}
	d.groups[0].bindings[1].SetEnabled(false)
	wide := d.View()
	if strings.Contains(wide, "yank row") {
		t.Fatalf("a binding switched off is still in the help:\n%s", wide)
	}
	d.SetSize(60, 20)
	if v := d.View(); v == wide || strings.Contains(v, "yank row") {
		t.Fatalf("the help at 60x20 is the one drawn at 200x60, or holds a binding switched off:\n%s", v)
	}
}

// The clock's second draws the header's second line again only while it
// shows a funding countdown, and never the first: the 24h statistics do
// not move with the clock. A ticker that moved still redraws line 1.
func TestHeaderTickRedrawsTheCountdownOnly(t *testing.T) {
	m := newTestModel(t, 200, 60, false) // PERP_BTC_USDT: a countdown
	m.Render()
	l1, l2 := unsafe.StringData(m.header.out[0]), unsafe.StringData(m.header.out[1])
	m.Update(tickMsg(m.c.Clock()))
	m.Render()
	if unsafe.StringData(m.header.out[0]) != l1 {
		t.Error("the tick drew line 1 again")
	}
	if unsafe.StringData(m.header.out[1]) == l2 || !strings.Contains(m.header.out[1], " in ") {
		t.Error("the tick left the countdown's line as it was")
	}

	m.Update(common.SetSymbolMsg{Symbol: "SPOT_ETH_USDT"}) // spot: no countdown
	m.Render()
	l1, l2 = unsafe.StringData(m.header.out[0]), unsafe.StringData(m.header.out[1])
	m.Update(tickMsg(m.c.Clock()))
	m.Render()
	if unsafe.StringData(m.header.out[0]) != l1 || unsafe.StringData(m.header.out[1]) != l2 {
		t.Error("the tick drew a header with no countdown again")
	}
	tk := m.store.Tickers["SPOT_ETH_USDT"]
	tk.Close = tk.Close.Add(decimal.NewFromInt(1))
	m.Update(&feed.Update{Tickers: map[string]feed.Ticker{"SPOT_ETH_USDT": tk}})
	m.Render()
	if unsafe.StringData(m.header.out[0]) == l1 {
		t.Error("a new last price left line 1 as it was")
	}
}

// A new best bid redraws the header's second line, where it shows, and
// not the first: a busy book moves it many times a second and line 1's
// 24h figures do not move with it.
func TestHeaderBestPricesRedrawLineTwoOnly(t *testing.T) {
	m := newTestModel(t, 200, 60, false)
	m.Render()
	l1 := unsafe.StringData(m.header.out[0])
	b := m.store.BBOs[m.symbol]
	b.Bid += 7 // ticks of the price's scale
	m.Update(&feed.Update{BBOs: map[string]feed.BBO{m.symbol: b}})
	m.Render()
	if unsafe.StringData(m.header.out[0]) != l1 {
		t.Error("a new best bid drew line 1 again")
	}
	if want := fixed.FormatPadded(b.Bid, b.Scale.PriceDec); !strings.Contains(m.header.out[1], want) {
		t.Errorf("line 2 does not show the new bid %s: %q", want, m.header.out[1])
	}
}
