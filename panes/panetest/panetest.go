// Package panetest holds what the dashboard's tests share: deterministic
// market and account snapshots (a seeded generator, no clock), a fixed
// clock, a Common for panes, and golden-file comparison with -update.
package panetest

import (
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	_ "github.com/charmbracelet/x/exp/golden" // defines -update
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/fixed"
	"tradedeck/internal/testkit"
	"tradedeck/panes/common"
	"tradedeck/theme"
)

// updating reports -update: rewrite golden files instead of comparing.
// The flag is the one charmbracelet/x/exp/golden (used by teatest)
// defines, so both kinds of golden tests share one -update.
func updating() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	v, _ := f.Value.(flag.Getter).Get().(bool)
	return v
}

// Now is the fixed clock of every test: 2026-03-02 12:34:56 UTC.
var Now = time.Date(2026, 3, 2, 12, 34, 56, 0, time.UTC)

// Clock returns Now.
func Clock() time.Time { return Now }

// Symbols of the fixture.
var Symbols = []string{"PERP_BTC_USDT", "SPOT_BTC_USDT", "PERP_ETH_USDT", "SPOT_ETH_USDT", "SPOT_WOO_USDT", "PERP_SOL_USDT"}

type spec struct {
	mid      int64 // at PriceDec
	priceDec int
	qtyDec   int
	tick     int64
	lot      int64
}

var specs = map[string]spec{
	"PERP_BTC_USDT": {6543210, 1, 4, 1, 10},
	"SPOT_BTC_USDT": {6542980, 1, 5, 1, 100},
	"PERP_ETH_USDT": {345678, 2, 3, 1, 10},
	"SPOT_ETH_USDT": {345612, 2, 3, 1, 10},
	"SPOT_WOO_USDT": {123456, 5, 0, 1, 10},
	"PERP_SOL_USDT": {145230, 3, 2, 10, 1},
}

// Keys returns the dashboard's default keymap, so tests read like what a
// user types and test what a user gets.
func Keys() *common.KeyMap { return common.DefaultKeyMap() }

// Common returns a Common with the dark theme and the fixed clock.
func Common(store *common.Store, keys *common.KeyMap, ascii bool) common.Common {
	t, err := theme.New("dark", ascii)
	if err != nil {
		panic(err)
	}
	if keys == nil {
		keys = Keys()
	}
	return common.Common{Theme: t, Keys: keys, ASCII: ascii, Store: store, Now: Clock}
}

func dec(v int64, d int) decimal.Decimal { return fixed.ToDecimal(v, d) }

// Market builds one Update with every symbol's book (depth levels a
// side), trades, BBO, ticker, futures data and 1m candles, from seed.
func Market(seed uint64, depth int) *feed.Update {
	r := rand.New(rand.NewPCG(seed, 7))
	u := &feed.Update{
		Seq: 1, Books: map[string]*feed.Book{}, Trades: map[string]*feed.Trades{},
		BBOs: map[string]feed.BBO{}, Tickers: map[string]feed.Ticker{},
		Candles: map[string]*feed.Candles{}, Futures: map[string]feed.Futures{},
	}
	nowMs := Now.UnixMilli()
	for _, sym := range Symbols {
		sp := specs[sym]
		sc := feed.Scale{PriceDec: sp.priceDec, QtyDec: sp.qtyDec}
		b := &feed.Book{Symbol: sym, Scale: sc, State: feed.Live, TS: nowMs, Version: 1}
		ask := sp.mid + sp.tick
		bid := sp.mid - sp.tick
		for i := 0; i < depth; i++ {
			b.Asks = append(b.Asks, feed.Level{Price: ask, Qty: sp.lot * (1 + r.Int64N(400))})
			b.Bids = append(b.Bids, feed.Level{Price: bid, Qty: sp.lot * (1 + r.Int64N(400))})
			ask += sp.tick * (1 + r.Int64N(3))
			bid -= sp.tick * (1 + r.Int64N(3))
		}
		u.Books[sym] = b
		tr := &feed.Trades{Symbol: sym, Scale: sc, Version: 1}
		p := sp.mid
		for i := 0; i < 80; i++ {
			side := feed.Buy
			if r.IntN(2) == 0 {
				side = feed.Sell
			}
			q := sp.lot * (1 + r.Int64N(50))
			if i%17 == 5 {
				q *= 20 // a large trade now and then
			}
			tr.Rows = append(tr.Rows, feed.Trade{Price: p, Qty: q, Side: side, TS: nowMs - int64(i)*1700})
			p += sp.tick * (r.Int64N(5) - 2)
		}
		u.Trades[sym] = tr
		u.BBOs[sym] = feed.BBO{Symbol: sym, Scale: sc, Bid: b.Bids[0].Price, BidSize: b.Bids[0].Qty, Ask: b.Asks[0].Price, AskSize: b.Asks[0].Qty, TS: nowMs}
		open := sp.mid - sp.mid/50 + r.Int64N(sp.mid/25)
		u.Tickers[sym] = feed.Ticker{
			Symbol: sym, Open: dec(open, sp.priceDec), Close: dec(sp.mid, sp.priceDec),
			High: dec(sp.mid+sp.mid/30, sp.priceDec), Low: dec(sp.mid-sp.mid/28, sp.priceDec),
			Volume: dec(123456789, sp.qtyDec), Amount: decimal.NewFromInt(98765432), Count: 4242, TS: nowMs,
		}
		if strings.HasPrefix(sym, "PERP_") {
			u.Futures[sym] = feed.Futures{
				Symbol: sym, MarkPrice: dec(sp.mid+sp.tick, sp.priceDec), IndexPrice: dec(sp.mid-sp.tick, sp.priceDec),
				EstFundingRate: decimal.RequireFromString("0.000125"), LastFundingRate: decimal.RequireFromString("0.0001"),
				NextFunding: Now.Truncate(8 * time.Hour).Add(8 * time.Hour), OpenInterest: decimal.NewFromInt(1234567), TS: nowMs,
			}
		}
		cs := candles(r, sym, sp)
		u.Candles[feed.CandleKey(sym, "1m")] = cs
	}
	u.Account = Account()
	// Own orders rest at real levels of the book, so the book marks them.
	if bk := u.Books["PERP_BTC_USDT"]; len(bk.Bids) > 4 {
		u.Account.Open[0].Price = dec(bk.Bids[2].Price, bk.Scale.PriceDec)
		u.Account.Open[1].Price = dec(bk.Asks[4].Price, bk.Scale.PriceDec)
	}
	u.Health = []feed.Health{
		{Stream: "market", State: feed.Connected, MsgsPerSec: 412, Latency: 14 * time.Millisecond, LastMsg: Now},
		{Stream: "private", State: feed.Connected, MsgsPerSec: 3, Latency: 9 * time.Millisecond, LastMsg: Now},
	}
	return u
}

// candles are 300 one-minute candles of a symbol, a random walk in ticks.
func candles(r *rand.Rand, sym string, sp spec) *feed.Candles {
	cs := &feed.Candles{Symbol: sym, Interval: "1m", Loaded: true, Version: 1}
	start := Now.Truncate(time.Minute).Add(-299 * time.Minute).UnixMilli()
	c := sp.mid - sp.mid/100
	for i := 0; i < 300; i++ {
		o := c
		hi, lo := o, o
		for k := 0; k < 6; k++ {
			c += sp.tick * (r.Int64N(41) - 19)
			hi, lo = max(hi, c), min(lo, c)
		}
		hi += sp.tick * r.Int64N(8)
		lo -= sp.tick * r.Int64N(8)
		cs.Rows = append(cs.Rows, feed.Candle{
			Start: start + int64(i)*60000, End: start + int64(i+1)*60000 - 1,
			Open: dec(o, sp.priceDec), High: dec(hi, sp.priceDec), Low: dec(lo, sp.priceDec), Close: dec(c, sp.priceDec),
			Volume: dec(sp.lot*(10+r.Int64N(900)), sp.qtyDec), Amount: decimal.NewFromInt(r.Int64N(1000000)),
		})
	}
	return cs
}

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// Account is a fixed account: positions, open orders (one partly
// filled, one pending), history, fills and balances.
func Account() *feed.Account {
	t0 := Now.Add(-time.Hour)
	return &feed.Account{
		Open: []feed.Order{
			{OrderID: 1003, ClientOrderID: 3, Symbol: "PERP_BTC_USDT", Side: "BUY", Type: "LIMIT", Status: "PARTIAL_FILLED", Price: d("654300.5"), Quantity: d("0.5"), Executed: d("0.2"), Created: t0},
			{OrderID: 1004, ClientOrderID: 4, Symbol: "PERP_BTC_USDT", Side: "SELL", Type: "POST_ONLY", Status: "NEW", Price: d("654330.2"), Quantity: d("0.25"), Executed: d("0"), Created: t0},
			{OrderID: 0, ClientOrderID: 5, Symbol: "PERP_ETH_USDT", Side: "BUY", Type: "LIMIT", Status: feed.StatusPending, Price: d("3400"), Quantity: d("1.5"), Executed: d("0"), Created: t0},
		},
		History: []feed.Order{
			{OrderID: 1002, ClientOrderID: 2, Symbol: "SPOT_ETH_USDT", Side: "SELL", Type: "MARKET", Status: "FILLED", Quantity: d("0.3"), Executed: d("0.3"), AvgPrice: d("3456.01"), Created: t0},
			{OrderID: 1001, ClientOrderID: 1, Symbol: "PERP_BTC_USDT", Side: "BUY", Type: "LIMIT", Status: "REJECTED", Reason: "price outside range", Price: d("1000"), Quantity: d("0.1"), Created: t0},
		},
		Fills: []feed.Fill{
			{TradeID: 77, OrderID: 1003, ClientOrderID: 3, Symbol: "PERP_BTC_USDT", Side: "BUY", Price: d("654300.5"), Qty: d("0.2"), Fee: d("0.0523"), FeeAsset: "USDT", Maker: true, Time: Now.Add(-5 * time.Minute), RealizedPnL: d("12.5")},
			{TradeID: 76, OrderID: 1002, ClientOrderID: 2, Symbol: "SPOT_ETH_USDT", Side: "SELL", Price: d("3456.01"), Qty: d("0.3"), Fee: d("0.8294"), FeeAsset: "USDT", Time: Now.Add(-20 * time.Minute)},
		},
		Balances: []feed.Balance{
			{Token: "USDT", Holding: d("25000.5"), Frozen: d("1200.25")},
			{Token: "BTC", Holding: d("0.75"), Frozen: d("0")},
			{Token: "ETH", Holding: d("3.2"), Frozen: d("0.5")},
		},
		Positions: []feed.Position{
			{Symbol: "PERP_BTC_USDT", Holding: d("0.2"), AvgOpenPrice: d("650000"), MarkPrice: d("654321.1"), EstLiqPrice: d("531200.4"), PnL24h: d("12.5"), Fee24h: d("0.0523")},
			{Symbol: "PERP_ETH_USDT", Holding: d("-2"), AvgOpenPrice: d("3500"), MarkPrice: d("3456.79"), EstLiqPrice: d("15880.12"), PnL24h: d("-3.25"), Fee24h: d("1.4")},
		},
		Margin: feed.Margin{Mode: "FUTURES", Leverage: d("5"), FuturesLeverage: d("10"), TakerFeeRate: d("0.0005"), MakerFeeRate: d("0.0002")},
		Collateral: feed.Collateral{TotalCollateral: d("25864.22"), FreeCollateral: d("12172.06"), TotalAccountValue: d("25864.22"),
			CurrentMarginRatio: d("1.5214"), InitialMarginRatio: d("0.1"), MaintenanceMarginRatio: d("0.03"), Known: true},
		Reconciled: Now,
		Version:    1,
	}
}

// Golden compares got with testdata/NAME.golden (rewritten with -update).
// The screen is stored as plain text (what a person reads); a second
// file NAME.ansi.golden keeps the styled bytes so colour regressions show.
func Golden(t testing.TB, name, got string) {
	t.Helper()
	plain := ansi.Strip(got)
	check(t, filepath.Join("testdata", name+".golden"), plain)
	check(t, filepath.Join("testdata", name+".ansi.golden"), got)
}

func check(t testing.TB, path, got string) {
	t.Helper()
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the rendering (go test -update rewrites it)\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// CheckLines fails unless there are h lines of exactly w cells.
func CheckLines(t testing.TB, lines []string, w, h int) {
	t.Helper()
	if len(lines) != h {
		t.Fatalf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n != w {
			t.Fatalf("line %d is %d cells wide, want %d: %q", i, n, w, ansi.Strip(l))
		}
	}
}

// Size is one golden rendering of a pane: the golden file's name, the
// pane's size, and whether it draws in ASCII.
type Size struct {
	Name  string
	W, H  int
	ASCII bool
}

// Pane is what a golden test looks at: the rows and the whole view.
type Pane interface {
	Lines() []string
	View() string
}

// GoldenSizes builds the pane at each size, checks that every row fits,
// and compares the view with the size's golden file.
func GoldenSizes(t testing.TB, sizes []Size, build func(Size) Pane) {
	t.Helper()
	for _, s := range sizes {
		p := build(s)
		CheckLines(t, p.Lines(), s.W, s.H)
		Golden(t, s.Name, p.View())
	}
}

// At is the golden rendering name at w x h (ASCII when ascii).
func At(name string, w, h int, ascii bool) Size { return Size{Name: name, W: w, H: h, ASCII: ascii} }

// Paced is the Common of an SSH session with the given pace, on a clock
// the test moves (starting at Now).
func Paced(store *common.Store, pace time.Duration) (common.Common, *testkit.Clock) {
	clk := testkit.NewClock(Now)
	c := Common(store, Keys(), false)
	c.Now, c.Pace = clk.Now, pace
	return c, clk
}

// MarketCommon is a Common over a store holding Market(1, 20), the
// market most pane tests draw.
func MarketCommon(ascii bool) common.Common {
	store := common.NewStore()
	store.Apply(Market(1, 20))
	return Common(store, Keys(), ascii)
}
