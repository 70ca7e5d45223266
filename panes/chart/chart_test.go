package chart

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

func newChart(w, h int, ascii bool) *Model {
	m := New(panetest.MarketCommon(ascii), "PERP_BTC_USDT", "1m")
	m.SetSize(w, h)
	return m
}

func TestGolden(t *testing.T) {
	sizes := []panetest.Size{panetest.At("chart_60x16", 60, 16, false), panetest.At("chart_100x30", 100, 30, false), panetest.At("chart_ascii_60x16", 60, 16, true)}
	panetest.GoldenSizes(t, sizes, func(s panetest.Size) panetest.Pane { return newChart(s.W, s.H, s.ASCII) })
}

func TestAxisShowsTheRange(t *testing.T) {
	m := newChart(60, 16, false)
	rows := m.candles.Rows[len(m.candles.Rows)-(60-axisW):]
	hi, lo := rows[0].High, rows[0].Low
	for _, r := range rows {
		if r.High.GreaterThan(hi) {
			hi = r.High
		}
		if r.Low.LessThan(lo) {
			lo = r.Low
		}
	}
	lines := m.Lines()
	// The fixture's last candle closes near the high: its price, marked,
	// takes the top row of the axis.
	last := rows[len(rows)-1].Close
	if !strings.HasSuffix(strings.TrimSpace(ansi.Strip(lines[1])), "◀"+last.String()) {
		t.Fatalf("top row %q, want the last price %s", ansi.Strip(lines[1]), last)
	}
	priceH := 16 - max(1, 16/5) - 2
	if !strings.HasSuffix(strings.TrimSpace(ansi.Strip(lines[priceH])), lo.String()) {
		t.Fatalf("bottom label %q, want the low %s", ansi.Strip(lines[priceH]), lo)
	}
}

// Two keys pressed before the root answers the first step twice.
func TestIntervalKeysPressedFastStepFromTheAsked(t *testing.T) {
	m := newChart(60, 16, false)
	gt := tea.KeyPressMsg{Code: '>', Text: ">"}
	_, first := m.Update(gt)
	_, second := m.Update(gt)
	if msg, ok := second().(common.SetIntervalMsg); !ok || msg.Interval != "15m" {
		t.Fatalf("second > asked for %#v, want 15m", second())
	}
	m.Update(common.IntervalMsg{Interval: first().(common.SetIntervalMsg).Interval})
	m.Update(common.IntervalMsg{Interval: "15m"})
	_, third := m.Update(tea.KeyPressMsg{Code: '<', Text: "<"})
	if msg, ok := third().(common.SetIntervalMsg); !ok || msg.Interval != "5m" {
		t.Fatalf("< from 15m asked for %#v, want 5m", third())
	}
}

func TestIntervalKeysAskTheRoot(t *testing.T) {
	m := newChart(60, 16, false)
	_, cmd := m.Update(tea.KeyPressMsg{Code: '>', Text: ">"})
	if msg, ok := cmd().(common.SetIntervalMsg); !ok || msg.Interval != "5m" {
		t.Fatalf("%#v", cmd())
	}
	m.Update(common.IntervalMsg{Interval: "1M"})
	if _, cmd := m.Update(tea.KeyPressMsg{Code: '>', Text: ">"}); cmd != nil {
		t.Fatal("no interval after 1M")
	}
	if m.Title() != "Chart PERP_BTC_USDT 1M" || !strings.Contains(m.View(), "loading 1M candles") {
		t.Fatal(m.Title(), ansi.Strip(m.View()))
	}
	m.Update(common.FeedMsg{Update: &feed.Update{Candles: map[string]*feed.Candles{
		feed.CandleKey("PERP_BTC_USDT", "1M"): {Symbol: "PERP_BTC_USDT", Interval: "1M", Loaded: true, Version: 1},
	}}})
	if !strings.Contains(m.View(), "no 1M candles") {
		t.Fatal(ansi.Strip(m.View()))
	}
}

func TestFewCandlesDrawnWide(t *testing.T) {
	m := newChart(60, 16, false)
	cs := *m.candles
	cs.Rows = cs.Rows[len(cs.Rows)-3:]
	cs.Version++
	m.Update(common.FeedMsg{Update: &feed.Update{Candles: map[string]*feed.Candles{feed.CandleKey("PERP_BTC_USDT", "1m"): &cs}}})
	panetest.CheckLines(t, m.Lines(), 60, 16)
	// Three candles, each three cells wide and a gap: the volume row at
	// the bottom of the bars shows 3 runs of 3 cells.
	vol := []rune(ansi.Strip(m.Lines()[16-2]))
	runs, n := 0, 0
	for _, r := range vol[:60-axisW] {
		if r != ' ' {
			n++
			continue
		}
		if n > 0 {
			if n != 3 {
				t.Fatalf("a candle %d cells wide: %q", n, string(vol))
			}
			runs++
		}
		n = 0
	}
	if runs != 3 {
		t.Fatalf("%d candles in %q", runs, string(vol))
	}
}

func TestOHLCLineDropsFieldsNeverDigits(t *testing.T) {
	k := feed.Candle{
		Open: decimal.RequireFromString("647990.7"), High: decimal.RequireFromString("647994.3"),
		Low: decimal.RequireFromString("647990.7"), Close: decimal.RequireFromString("647992.6"),
	}
	for _, c := range []struct {
		width int
		want  string
	}{
		{80, " O 647990.7 H 647994.3 L 647990.7 C 647992.6"},
		{40, " H 647994.3 L 647990.7 C 647992.6"},
		{25, " H 647994.3 C 647992.6"},
		{12, " C 647992.6"},
		{5, ""},
	} {
		if got := ohlcLine(k, c.width, decimal.Decimal.String); got != c.want {
			t.Errorf("width %d: %q, want %q", c.width, got, c.want)
		}
	}
}

// Every price on the chart has the symbol's decimals: "H 647996.0" next
// to "L 647992.3", axis labels included.
func TestPricesShareTheSymbolsDecimals(t *testing.T) {
	v := ansi.Strip(newChart(100, 30, false).View())
	if !strings.Contains(v, "H 647996.0 L 647992.3") || !strings.Contains(v, "647951.0") {
		t.Fatalf("prices not at the symbol's decimals:\n%s", v)
	}
}

// v switches the chart between candles, the depth chart and the heat map
// (which has recorded the book all along); the title says which.
func TestViewKeySwitchesTheChart(t *testing.T) {
	m := newChart(80, 22, false)
	m.Focus()
	v := tea.KeyPressMsg{Code: 'v', Text: "v"}
	m.Update(v)
	if m.ViewShown() != Depth || m.Title() != "Depth PERP_BTC_USDT" {
		t.Fatalf("v showed %v %q", m.ViewShown(), m.Title())
	}
	if s := ansi.Strip(m.View()); !strings.Contains(s, "mid 654321.0") || !strings.Contains(s, "own 2") {
		t.Fatalf("depth view:\n%s", s)
	}
	panetest.CheckLines(t, m.Lines(), 80, 22)
	panetest.Golden(t, "chart_depth_80x22", m.View())
	// A book update while the depth is shown redraws it, and the heat
	// map records it.
	b := *m.book
	b.Version++
	b.TS += 1500
	b.Bids = append([]feed.Level{{Price: b.Bids[0].Price + 1, Qty: 5000}}, b.Bids...)
	m.Update(common.FeedMsg{Update: &feed.Update{Books: map[string]*feed.Book{"PERP_BTC_USDT": &b}}})
	if !strings.Contains(ansi.Strip(m.View()), "mid 654321.0") {
		t.Fatal("depth not redrawn")
	}
	m.Update(v)
	if m.ViewShown() != HeatMap || m.Title() != "Heat map PERP_BTC_USDT" || m.heat.Len() != 1 {
		t.Fatalf("v showed %v %q with %d columns", m.ViewShown(), m.Title(), m.heat.Len())
	}
	panetest.CheckLines(t, m.Lines(), 80, 22)
	m.Update(v)
	if m.ViewShown() != Candles || m.Title() != "Chart PERP_BTC_USDT 1m" {
		t.Fatalf("v back to %v %q", m.ViewShown(), m.Title())
	}
	// Another symbol starts a new history.
	m.Update(common.SymbolMsg{Symbol: "PERP_ETH_USDT"})
	if m.heat.Len() != 0 {
		t.Fatal("heat map kept another symbol's history")
	}
}
