package alerts

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/internal/testkit"
)

// rig is an engine with a fake clock that records what fired.
type rig struct {
	t     *testing.T
	e     *Engine
	clk   *testkit.Clock
	mu    sync.Mutex
	fired []Fired
}

func newRig(t *testing.T, store *Store) *rig { return newRigWith(t, Options{Store: store}) }

// newRigWith fills o's clock and OnFire.
func newRigWith(t *testing.T, o Options) *rig {
	t.Helper()
	r := &rig{t: t, clk: testkit.NewClock(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))}
	o.Now = r.clk.Now
	o.OnFire = func(f Fired) {
		r.mu.Lock()
		r.fired = append(r.fired, f)
		r.mu.Unlock()
	}
	e, err := NewEngine(o)
	if err != nil {
		t.Fatal(err)
	}
	r.e = e
	return r
}

// add parses and adds an alert.
func (r *rig) add(line string) Alert {
	r.t.Helper()
	a, err := Parse(strings.Fields(line), nil)
	if err != nil {
		r.t.Fatalf("parse %q: %v", line, err)
	}
	a, err = r.e.Add(a)
	if err != nil {
		r.t.Fatalf("add %q: %v", line, err)
	}
	return a
}

// take returns what fired since the last take.
func (r *rig) take() []Fired {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.fired
	r.fired = nil
	return out
}

// expect checks that exactly n alerts fired since the last call; msg
// checks that each message contains the given text.
func (r *rig) expect(what string, n int, msg string) []Fired {
	r.t.Helper()
	got := r.take()
	if len(got) != n {
		r.t.Fatalf("%s: %d alerts fired, want %d: %+v", what, len(got), n, got)
	}
	for _, f := range got {
		if !strings.Contains(f.Message, msg) {
			r.t.Fatalf("%s: message %q does not say %q", what, f.Message, msg)
		}
	}
	return got
}

var btc = feed.Scale{PriceDec: 2, QtyDec: 4}

// px is a price at btc's scale: px("100.5") = 10050.
func px(s string) int64 {
	return decimal.RequireFromString(s).Shift(int32(btc.PriceDec)).IntPart()
}

func (r *rig) trade(sym, price string) {
	r.e.ObserveTrade(sym, btc, feed.Trade{Price: px(price), Qty: 1, Side: feed.Buy})
}

// step is one move of a scripted price path: the clock moves on by wait,
// the symbol trades at each of prices (space-separated), and then
// exactly fires alerts have fired, each message saying says.
type step struct {
	what   string
	wait   time.Duration
	prices string
	fires  int
	says   string
}

// quote is one bbo of a scripted test and the alerts it must fire.
type quote struct {
	what, bid, ask string
	fires          int
	says           string
}

// quote sends sym's bbos in turn, checking each one's firings.
func (r *rig) quote(sym string, quotes []quote) {
	r.t.Helper()
	for _, q := range quotes {
		r.e.ObserveBBO(feed.BBO{Symbol: sym, Scale: btc, Bid: px(q.bid), Ask: px(q.ask), BidSize: 1, AskSize: 1})
		r.expect(q.what, q.fires, q.says)
	}
}

// play trades sym along the steps, checking each one's firings.
func (r *rig) play(sym string, steps []step) {
	r.t.Helper()
	for _, s := range steps {
		r.clk.Advance(s.wait)
		for _, p := range strings.Fields(s.prices) {
			r.trade(sym, p)
		}
		r.expect(s.what, s.fires, s.says)
	}
}

// A price that crosses the level and comes back before the next frame
// (three trades inside one 16 ms frame) fires exactly once: the engine
// sees every trade, not the frame's last price (which is back below).
func TestCrossInsideOneFrameFiresOnce(t *testing.T) {
	r := newRig(t, nil)
	r.add("SPOT_BTC_USDT above 100")
	r.add("SPOT_BTC_USDT below 90 every")
	// 100.50 crosses again in the same frame.
	r.play("SPOT_BTC_USDT", []step{{what: "cross up and back", prices: "99.99 100.00 99.50 100.50", fires: 1, says: "SPOT_BTC_USDT last 100.00 crossed above 100"}})
	if a := r.e.List()[0]; !a.Done || a.Count != 1 {
		t.Fatalf("once alert after firing: %+v", a)
	}
	// An `every` alert: down through 90 and back, twice in one frame,
	// fires once (its default cooldown holds the second).
	r.play("SPOT_BTC_USDT", []step{{what: "every alert, two crosses in one frame", prices: "89.90 91 89 92", fires: 1, says: "crossed below 90"}})
}

func TestCooldown(t *testing.T) {
	r := newRig(t, nil)
	r.add("SPOT_BTC_USDT above 100 every 1m")
	r.play("SPOT_BTC_USDT", []step{
		{what: "first cross", prices: "101", fires: 1, says: "crossed above 100"},
		{what: "cross again inside the cooldown", wait: 10 * time.Second, prices: "99 102"},
		// 61 s after the first firing
		{what: "still above when the cooldown ends (it was re-armed)", wait: 51 * time.Second, prices: "102.5", fires: 1, says: "102.50 crossed above"},
		{what: "above without coming back below", wait: 2 * time.Minute, prices: "103"},
		{what: "cross after the cooldown", prices: "99 100", fires: 1, says: "100.00 crossed above"},
	})
}

func TestPriceSources(t *testing.T) {
	r := newRig(t, nil)
	r.add("SPOT_BTC_USDT above 100 bid")
	r.add("SPOT_BTC_USDT ask below 95")
	r.add("PERP_BTC_USDT above 100.05 mark")
	r.add("SPOT_BTC_USDT below 90") // last: a bbo must not fire it
	r.quote("SPOT_BTC_USDT", []quote{
		{what: "bbo below the bid level", bid: "80", ask: "99"},
		{what: "bid reaches 100", bid: "100", ask: "100.01", fires: 1, says: "SPOT_BTC_USDT bid 100.00 crossed above 100"},
		{what: "ask under 95", bid: "94", ask: "94.99", fires: 1, says: "ask 94.99 crossed below 95"},
	})
	r.e.ObserveMark("PERP_BTC_USDT", decimal.RequireFromString("100.04"), 0)
	r.expect("mark under the level", 0, "")
	r.e.ObserveMark("PERP_BTC_USDT", decimal.RequireFromString("100.05"), 0)
	r.expect("mark at the level", 1, "PERP_BTC_USDT mark 100.05 crossed above 100.05")
	r.trade("OTHER", "1")
	r.expect("a symbol without alerts", 0, "")
}

// A level between two ticks: `above` needs the next tick up.
func TestLevelOffTick(t *testing.T) {
	r := newRig(t, nil)
	r.add("SPOT_BTC_USDT above 100.005")
	r.play("SPOT_BTC_USDT", []step{
		{what: "below an off-tick level", prices: "100.00"},
		{what: "first tick above", prices: "100.01", fires: 1, says: "crossed above 100.005"},
	})
}

func TestChangeAndSpread(t *testing.T) {
	r := newRig(t, nil)
	r.add("SPOT_ETH_USDT change above 5%")
	r.add("SPOT_ETH_USDT change below -3")
	r.add("SPOT_SOL_USDT change beyond 10")
	r.add("SPOT_BTC_USDT spread above 20bp")
	for _, tk := range []struct {
		what, sym, open, last string
		fires                 int
		says                  string
	}{
		{what: "+4.99%", sym: "SPOT_ETH_USDT", open: "100", last: "104.99"},
		{what: "+5%", sym: "SPOT_ETH_USDT", open: "100", last: "105", fires: 1, says: "SPOT_ETH_USDT 24h change 5.00% is above 5%"},
		{what: "-3%", sym: "SPOT_ETH_USDT", open: "100", last: "97", fires: 1, says: "change -3.00% is below -3%"},
		{what: "-11% beyond 10", sym: "SPOT_SOL_USDT", open: "10", last: "8.9", fires: 1, says: "SPOT_SOL_USDT 24h change -11.00% is beyond 10%"},
		{what: "no open price", sym: "SPOT_SOL_USDT", open: "0", last: "8.9"},
	} {
		r.e.ObserveTicker(feed.Ticker{Symbol: tk.sym, Open: decimal.RequireFromString(tk.open), Close: decimal.RequireFromString(tk.last)})
		r.expect(tk.what, tk.fires, tk.says)
	}

	r.quote("SPOT_BTC_USDT", []quote{
		{what: "19bp", bid: "100", ask: "100.19"},
		{what: "21bp", bid: "100", ask: "100.21", fires: 1, says: "SPOT_BTC_USDT spread 21.0bp is above 20bp (bid 100.00 ask 100.21)"},
	})
}

func TestOrderAlerts(t *testing.T) {
	r := newRig(t, nil)
	r.add("SPOT_BTC_USDT order filled,partial")
	r.add("* order cancelled,rejected")
	o := feed.Order{OrderID: 7, Symbol: "SPOT_BTC_USDT", Side: "BUY", Type: "LIMIT", Quantity: decimal.NewFromInt(2)}
	view := func(status, executed string) {
		o.Status, o.Executed = status, decimal.RequireFromString(executed)
		r.e.ObserveOrder(o)
	}
	view("NEW", "0")
	r.expect("ack", 0, "")
	view("PARTIAL_FILLED", "0.5")
	r.expect("partial fill", 1, "SPOT_BTC_USDT BUY LIMIT order #7 partial: 0.5 of 2")
	view("PARTIAL_FILLED", "0.5")
	r.expect("the same view again (a reconciliation)", 0, "")
	view("PARTIAL_FILLED", "1")
	r.expect("another partial fill", 1, "partial: 1 of 2")
	view("FILLED", "2")
	r.expect("filled", 1, "order #7 filled: 2 of 2")
	view("FILLED", "2")
	r.expect("filled again", 0, "")

	c := feed.Order{OrderID: 8, Symbol: "PERP_ETH_USDT", Side: "SELL", Type: "POST_ONLY", Status: "CANCELLED", Reason: "would take liquidity"}
	r.e.ObserveOrder(c)
	r.expect("cancel on any symbol", 1, "PERP_ETH_USDT SELL POST_ONLY order #8 cancelled: would take liquidity")
	c.OrderID, c.Status = 9, "REJECTED"
	r.e.ObserveOrder(c)
	f := r.expect("reject", 1, "order #9 rejected")
	if f[0].Symbol != "PERP_ETH_USDT" || f[0].Kind != KindOrder || f[0].Value != "rejected" {
		t.Fatalf("fired: %+v", f[0])
	}
}

func TestPositionAlerts(t *testing.T) {
	r := newRig(t, nil)
	r.add("PERP_BTC_USDT pnl above 500")
	r.add("PERP_BTC_USDT pnl below -200")
	r.add("PERP_BTC_USDT liq within 5%")
	d := decimal.RequireFromString
	r.e.ObservePosition(feed.Position{Symbol: "PERP_BTC_USDT", Holding: d("2"), AvgOpenPrice: d("1000"), MarkPrice: d("1100"), EstLiqPrice: d("800")})
	r.expect("uPnL 200, liq 27% away", 0, "")
	r.e.ObserveMark("PERP_BTC_USDT", d("1250"), 0)
	r.expect("uPnL 500", 1, "PERP_BTC_USDT unrealized PnL 500.00 is above 500 (position 2 at mark 1250)")
	r.e.ObserveMark("PERP_BTC_USDT", d("899"), 0)
	r.expect("uPnL -202", 1, "unrealized PnL -202.00 is below -200")
	r.e.ObserveMark("PERP_BTC_USDT", d("840"), 0) // 4.76 % from 800
	r.expect("liq near", 1, "PERP_BTC_USDT mark 840 is 4.76% from the liquidation price 800")
	// A stream position push carries no liquidation price: the one known
	// stays.
	r.e.ObservePosition(feed.Position{Symbol: "PERP_BTC_USDT", Holding: d("2"), AvgOpenPrice: d("1000"), MarkPrice: d("841")})
	r.expect("same position, same zone", 0, "")
	r.e.ObservePosition(feed.Position{Symbol: "PERP_BTC_USDT", Holding: d("0"), AvgOpenPrice: d("0"), MarkPrice: d("841")})
	r.expect("position closed", 0, "")
}

func TestStreamDown(t *testing.T) {
	r := newRig(t, nil)
	r.add("stream market down 30s")
	r.add("stream any down 5 once")
	r.e.ObserveHealth(feed.Health{Stream: "private", State: feed.Connected})
	r.e.ObserveHealth(feed.Health{Stream: "market", State: feed.Reconnecting})
	r.clk.Advance(4 * time.Second)
	r.e.Tick()
	r.expect("down 4s", 0, "")
	r.clk.Advance(time.Second)
	r.e.Tick()
	r.expect("down 5s", 1, "market stream down for 5s")
	r.clk.Advance(25 * time.Second)
	r.e.Tick()
	r.e.Tick()
	r.expect("down 30s", 1, "market stream down for 30s")
	r.e.ObserveHealth(feed.Health{Stream: "market", State: feed.Connected})
	r.e.ObserveHealth(feed.Health{Stream: "market", State: feed.StreamStale})
	r.clk.Advance(31 * time.Second)
	r.e.Tick()
	r.expect("a second outage (the once alert is done)", 1, "market stream down for 31s")
}

func TestPausedAndRemoved(t *testing.T) {
	r := newRig(t, nil)
	a := r.add("SPOT_BTC_USDT above 100")
	b := r.add("SPOT_BTC_USDT above 100 every")
	if err := r.e.SetPaused(a.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := r.e.Remove(b.ID); err != nil {
		t.Fatal(err)
	}
	r.trade("SPOT_BTC_USDT", "101")
	r.expect("paused and removed", 0, "")
	if err := r.e.SetPaused(a.ID, false); err != nil {
		t.Fatal(err)
	}
	r.trade("SPOT_BTC_USDT", "101")
	r.expect("resumed", 1, "crossed above 100")
	if err := r.e.Remove(99); err == nil {
		t.Fatal("removing an unknown alert: no error")
	}
	if got := r.e.Symbols(); len(got) != 1 || got[0] != "SPOT_BTC_USDT" {
		t.Fatalf("symbols: %v", got)
	}
}
