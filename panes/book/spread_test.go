package book

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
)

// realBook is a small book with a realistic price and spread: five
// levels a side, one tick apart beyond the touch.
func realBook(sym string, sc feed.Scale, bid, ask, tick, lot int64) *feed.Book {
	b := &feed.Book{Symbol: sym, Scale: sc, State: feed.Live, TS: panetest.Now.UnixMilli(), Version: 1}
	for i := int64(0); i < 5; i++ {
		b.Asks = append(b.Asks, feed.Level{Price: ask + i*tick, Qty: lot * (3 + i)})
		b.Bids = append(b.Bids, feed.Level{Price: bid - i*tick, Qty: lot * (4 + i)})
	}
	return b
}

func midLine(t *testing.T, m *Model) string {
	t.Helper()
	for _, l := range m.Lines() {
		if p := strings.TrimSpace(ansi.Strip(l)); strings.HasPrefix(p, "mid ") {
			return p
		}
	}
	t.Fatalf("no mid line in\n%s", ansi.Strip(m.View()))
	return ""
}

// The spread in basis points of the bid, on books whose spread is not
// lost next to the price: a wrong scale (10x) or rounding shows.
func TestSpreadInBasisPoints(t *testing.T) {
	for _, c := range []struct {
		name     string
		sc       feed.Scale
		bid, ask int64
		want     string
	}{
		// 4.9 / 97000.0 = 0.505 bp
		{"SPOT_BTC_USDT", feed.Scale{PriceDec: 1, QtyDec: 5}, 970000, 970049, "mid 97002.45  spread 4.9 (0.5bp)"},
		// 0.34 / 3456.78 = 0.98 bp, shown truncated to a tenth
		{"PERP_ETH_USDT", feed.Scale{PriceDec: 2, QtyDec: 3}, 345678, 345712, "mid 3456.950  spread 0.34 (0.9bp)"},
		// 0.00012 / 0.12340 = 9.72 bp: an illiquid token
		{"SPOT_WOO_USDT", feed.Scale{PriceDec: 5, QtyDec: 0}, 12340, 12352, "mid 0.123460  spread 0.00012 (9.7bp)"},
		// 0.180 / 14.523 = 123.9 bp: a wide, thin market
		{"PERP_SOL_USDT", feed.Scale{PriceDec: 3, QtyDec: 2}, 14523, 14703, "mid 14.6130  spread 0.180 (123.9bp)"},
	} {
		store := common.NewStore()
		store.Apply(&feed.Update{Seq: 1, Books: map[string]*feed.Book{c.name: realBook(c.name, c.sc, c.bid, c.ask, 1, 100)}})
		m := New(panetest.Common(store, panetest.Keys(), false), c.name)
		m.SetSize(44, 14)
		if got := midLine(t, m); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// An exact golden of a realistic book: the whole pane, mid line included.
func TestGoldenRealisticSpread(t *testing.T) {
	store := common.NewStore()
	sc := feed.Scale{PriceDec: 2, QtyDec: 3}
	store.Apply(&feed.Update{Seq: 1, Books: map[string]*feed.Book{"PERP_ETH_USDT": realBook("PERP_ETH_USDT", sc, 345678, 345712, 1, 250)}})
	m := New(panetest.Common(store, panetest.Keys(), false), "PERP_ETH_USDT")
	m.SetSize(44, 14)
	panetest.CheckLines(t, m.Lines(), 44, 14)
	panetest.Golden(t, "book_eth_spread_44x14", m.View())
}
