package exchange

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/internal/testkit"
	"tradedeck/venue"
)

type fixture struct {
	t     *testing.T
	ex    *Exchange
	clock *testkit.Clock
	alice *Account
	sub   *Account
	bob   *Account
}

// newFixture starts a small venue at 2024-01-01 00:10 UTC with empty books.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	b, err := os.ReadFile("testdata/universe.json")
	if err != nil {
		t.Fatal(err)
	}
	u, err := ParseUniverse(b)
	if err != nil {
		t.Fatal(err)
	}
	clock := testkit.NewClock(time.Date(2024, 1, 1, 0, 10, 0, 0, time.UTC))
	ex, err := New(Options{Universe: u, Clock: clock.Now, NoSeedLiquidity: true, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ex: ex, clock: clock}
	f.alice, _ = ex.AccountByName("ALICE")
	f.sub, _ = ex.AccountByName("ALICE_SUB")
	f.bob, _ = ex.AccountByName("BOB")
	return f
}

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func limitReq(sym string, side Side, price, qty string) OrderRequest {
	return OrderRequest{Symbol: sym, Type: Limit, Side: side, Price: d(price), HasPrice: true, Quantity: d(qty), HasQuantity: true}
}

func (f *fixture) place(a *Account, req OrderRequest) Order {
	f.t.Helper()
	o, err := f.ex.PlaceOrder(a, req)
	if err != nil {
		f.t.Fatalf("place %+v: %v", req, err)
	}
	return o
}

// book puts BOB's bid at 100.00 and ask at 101.00 (1 BTC each) on the spot book.
func (f *fixture) book() (bid, ask Order) {
	bid = f.place(f.bob, limitReq("SPOT_BTC_USDT", Buy, "100.00", "1"))
	ask = f.place(f.bob, limitReq("SPOT_BTC_USDT", Sell, "101.00", "1"))
	return bid, ask
}

func (f *fixture) order(a *Account, id int64) Order {
	f.t.Helper()
	o, _, err := f.ex.OrderByID(a, id)
	if err != nil {
		f.t.Fatal(err)
	}
	return o
}

func (f *fixture) expectBalance(a *Account, token, holding, frozen string) {
	f.t.Helper()
	b := f.ex.Balance(a, token)
	if !b.Holding.Equal(d(holding)) || !b.Frozen.Equal(d(frozen)) {
		f.t.Fatalf("%s %s: holding %s frozen %s, want %s frozen %s", a.Name(), token, b.Holding, b.Frozen, holding, frozen)
	}
}

func TestAcceptanceFilters(t *testing.T) {
	const sym = "SPOT_BTC_USDT"
	cases := []struct {
		name string
		req  OrderRequest
		code venue.Code
	}{
		{"price off tick", limitReq(sym, Buy, "100.001", "0.5"), venue.CodePriceFilter},
		{"price below quote_min", limitReq(sym, Buy, "0.99", "20"), venue.CodePriceFilter},
		{"price above quote_max", limitReq(sym, Sell, "1000000.01", "0.5"), venue.CodePriceFilter},
		{"quantity off step", limitReq(sym, Buy, "100.00", "0.50005"), venue.CodeSizeFilter},
		{"quantity below base_min", limitReq(sym, Buy, "100.00", "0.00009"), venue.CodeSizeFilter},
		{"quantity above base_max", limitReq(sym, Sell, "101.00", "100.0001"), venue.CodeSizeFilter},
		{"notional below min", limitReq(sym, Buy, "100.00", "0.05"), venue.CodeMinNotional},
		{"notional equal to min", limitReq(sym, Buy, "100.00", "0.1"), venue.CodeMinNotional},
		{"buy above ask*(1+range)", limitReq(sym, Buy, "111.11", "0.5"), venue.CodePercentageFilter},
		{"sell below bid*(1-range)", limitReq(sym, Sell, "89.99", "0.5"), venue.CodePercentageFilter},
		{"spot buy beyond balance", limitReq(sym, Buy, "100.01", "100"), venue.CodeRiskTooHigh},
		{"spot sell beyond balance", limitReq(sym, Sell, "101.00", "2.0001"), venue.CodeRiskTooHigh},
		{"perp in PURE_SPOT mode", limitReq("PERP_BTC_USDT", Buy, "100.0", "1"), venue.CodeRiskTooHigh},
		{"unknown symbol", limitReq("SPOT_XYZ_USDT", Buy, "1", "1"), venue.CodeInvalidParam},
		{"bad side", OrderRequest{Symbol: sym, Type: Limit, Side: "UP", Price: d("100"), HasPrice: true, Quantity: d("1"), HasQuantity: true}, venue.CodeInvalidParam},
		{"limit without price", OrderRequest{Symbol: sym, Type: Limit, Side: Buy, Quantity: d("1"), HasQuantity: true}, venue.CodeInvalidParam},
		{"no size", OrderRequest{Symbol: sym, Type: Limit, Side: Buy, Price: d("100"), HasPrice: true}, venue.CodeInvalidParam},
		{"amount and quantity", OrderRequest{Symbol: sym, Type: Market, Side: Buy, Quantity: d("1"), HasQuantity: true, Amount: d("100"), HasAmount: true}, venue.CodeInvalidParam},
		{"amount on LIMIT", OrderRequest{Symbol: sym, Type: Limit, Side: Buy, Price: d("100"), HasPrice: true, Amount: d("100"), HasAmount: true}, venue.CodeInvalidParam},
		{"amount beyond 8 decimals", OrderRequest{Symbol: sym, Type: Market, Side: Buy, Amount: d("100.000000001"), HasAmount: true}, venue.CodeInvalidParam},
		{"negative price", limitReq(sym, Buy, "-100", "1"), venue.CodeInvalidParam},
		{"visible negative", func() OrderRequest {
			r := limitReq(sym, Buy, "100.00", "0.5")
			r.Visible, r.HasVisible = d("-0.1"), true
			return r
		}(), venue.CodeInvalidParam},
		{"visible above quantity", func() OrderRequest {
			r := limitReq(sym, Buy, "100.00", "0.5")
			r.Visible, r.HasVisible = d("0.6"), true
			return r
		}(), venue.CodeInvalidParam},
		{"market buy by amount beyond balance", OrderRequest{Symbol: sym, Type: Market, Side: Buy, Amount: d("10000.01"), HasAmount: true}, venue.CodeRiskTooHigh},
		{"market notional too small", OrderRequest{Symbol: sym, Type: Market, Side: Sell, Quantity: d("0.0001"), HasQuantity: true}, venue.CodeMinNotional},
	}
	f := newFixture(t)
	f.book()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.ex.PlaceOrder(f.alice, c.req)
			if err == nil || err.Code != c.code {
				t.Fatalf("got %v, want code %d", err, c.code)
			}
		})
	}
	// nothing was frozen by refused orders
	f.expectBalance(f.alice, "USDT", "10000", "0")
	f.expectBalance(f.alice, "BTC", "2", "0")
}

// The filters' boundaries are inclusive where the spec says <= / >=.
func TestFilterBoundariesAccepted(t *testing.T) {
	f := newFixture(t)
	f.book() // bid 100.00, ask 101.00, price_range 0.1
	for _, req := range []OrderRequest{
		limitReq("SPOT_BTC_USDT", Buy, "111.10", "0.1"),   // = ask * 1.1
		limitReq("SPOT_BTC_USDT", Sell, "90.00", "0.2"),   // = bid * 0.9
		limitReq("SPOT_BTC_USDT", Buy, "50.00", "0.2001"), // notional 10.005 > 10
		limitReq("SPOT_BTC_USDT", Buy, "1.00", "100"),     // quote_min, base_max
	} {
		if _, err := f.ex.PlaceOrder(f.alice, req); err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
	}
}

func TestASKBIDNeedBook(t *testing.T) {
	f := newFixture(t)
	_, err := f.ex.PlaceOrder(f.alice, OrderRequest{Symbol: "SPOT_BTC_USDT", Type: Ask, Side: Sell, Quantity: d("0.5"), HasQuantity: true})
	if err == nil || err.Code != venue.CodeResourceNotFound {
		t.Fatalf("ASK on an empty book: %v", err)
	}
}

func TestDuplicateClientOrderID(t *testing.T) {
	f := newFixture(t)
	req := limitReq("SPOT_BTC_USDT", Buy, "90.00", "0.5")
	req.ClientOrderID = 42
	first := f.place(f.alice, req)
	if _, err := f.ex.PlaceOrder(f.alice, req); err == nil || err.Code != venue.CodeDuplicateRequest {
		t.Fatalf("duplicate open client id: %v", err)
	}
	// another account may use the same id
	f.place(f.bob, req)
	if err := f.ex.CancelByClientID(f.alice, "SPOT_BTC_USDT", 42); err != nil {
		t.Fatal(err)
	}
	if err := f.ex.Cancel(f.alice, "SPOT_BTC_USDT", first.ID); err == nil || err.Code != venue.CodeResourceNotFound {
		t.Fatalf("cancel of a cancelled order: %v", err)
	}
	second := f.place(f.alice, req) // the previous one is complete: accepted
	o, _, err := f.ex.OrderByClientID(f.alice, 42)
	if err != nil || o.ID != second.ID {
		t.Fatalf("latest by client id = %d, %v; want %d", o.ID, err, second.ID)
	}
	if err := f.ex.Cancel(f.alice, "SPOT_BTC_USDT", 999); err == nil || err.Code != venue.CodeResourceNotFound {
		t.Fatalf("cancel unknown: %v", err)
	}
	if err := f.ex.Cancel(f.bob, "SPOT_BTC_USDT", second.ID); err == nil || err.Code != venue.CodeResourceNotFound {
		t.Fatalf("cancel of another account's order: %v", err)
	}
}

func TestOrderTypes(t *testing.T) {
	const sym = "SPOT_BTC_USDT"
	type step struct {
		req      OrderRequest
		status   Status
		executed string
		avg      string // "" = none
	}
	mkt := func(side Side, qty, amount string) OrderRequest {
		r := OrderRequest{Symbol: sym, Type: Market, Side: side}
		if qty != "" {
			r.Quantity, r.HasQuantity = d(qty), true
		}
		if amount != "" {
			r.Amount, r.HasAmount = d(amount), true
		}
		return r
	}
	typed := func(typ OrderType, side Side, price, qty string) OrderRequest {
		r := limitReq(sym, side, price, qty)
		r.Type = typ
		return r
	}
	cases := []struct {
		name string
		step step
	}{
		{"limit rests", step{limitReq(sym, Buy, "99.00", "0.5"), StatusNew, "0", ""}},
		{"limit crosses fully", step{limitReq(sym, Buy, "101.00", "0.5"), StatusFilled, "0.5", "101"}},
		{"limit crosses then rests", step{limitReq(sym, Buy, "101.50", "1.5"), StatusPartialFilled, "1", "101"}},
		{"market by quantity sweeps", step{mkt(Buy, "1.5", ""), StatusFilled, "1.5", "101.3333333333333333"}},
		{"market past price_range cancels the rest", step{mkt(Buy, "3", ""), StatusCancelled, "2", "101.5"}},
		{"market by amount", step{mkt(Buy, "", "152"), StatusFilled, "1.5", "101.3333333333333333"}},
		{"market by amount with change", step{mkt(Buy, "", "151.5"), StatusFilled, "1.495", "101.3311036789297659"}},
		{"market sell by quantity", step{mkt(Sell, "0.2", ""), StatusFilled, "0.2", "100"}},
		{"ioc keeps the executed part", step{typed(IOC, Buy, "101.00", "1.5"), StatusCancelled, "1", "101"}},
		{"fok all", step{typed(FOK, Buy, "102.00", "1.5"), StatusFilled, "1.5", "101.3333333333333333"}},
		{"fok nothing", step{typed(FOK, Buy, "101.00", "1.5"), StatusCancelled, "0", ""}},
		{"post only rests", step{typed(PostOnly, Buy, "100.50", "0.5"), StatusNew, "0", ""}},
		{"post only would take", step{typed(PostOnly, Buy, "101.00", "0.5"), StatusCancelled, "0", ""}},
		{"ask priced at best ask", step{OrderRequest{Symbol: sym, Type: Ask, Side: Sell, Quantity: d("0.5"), HasQuantity: true}, StatusNew, "0", ""}},
		{"bid priced at best bid", step{OrderRequest{Symbol: sym, Type: Bid, Side: Buy, Quantity: d("0.5"), HasQuantity: true}, StatusNew, "0", ""}},
		{"ask buying takes the best ask", step{OrderRequest{Symbol: sym, Type: Ask, Side: Buy, Quantity: d("0.5"), HasQuantity: true}, StatusFilled, "0.5", "101"}},
		{"bid by amount", step{OrderRequest{Symbol: sym, Type: Bid, Side: Buy, Amount: d("50"), HasAmount: true}, StatusNew, "0", ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.book()
			// a second ask level at 102, a third at 120 beyond price_range (101*1.1 = 111.1)
			f.place(f.bob, limitReq(sym, Sell, "102.00", "1"))
			f.place(f.bob, limitReq(sym, Sell, "120.00", "5"))
			ack := f.place(f.alice, c.step.req)
			if ack.Status != StatusNew {
				t.Fatalf("ack status %s", ack.Status)
			}
			o := f.order(f.alice, ack.ID)
			if o.Status != c.step.status || !o.Executed.Equal(d(c.step.executed)) {
				t.Fatalf("status %s executed %s, want %s %s", o.Status, o.Executed, c.step.status, c.step.executed)
			}
			avg, ok := o.AvgPrice()
			if c.step.avg == "" && ok || c.step.avg != "" && (!ok || !avg.Equal(d(c.step.avg))) {
				t.Fatalf("avg %s %v, want %q", avg, ok, c.step.avg)
			}
			switch c.step.req.Type {
			case Ask:
				if !o.Price.Equal(d("101")) {
					t.Fatalf("ASK price %s", o.Price)
				}
			case Bid:
				if !o.Price.Equal(d("100")) {
					t.Fatalf("BID price %s", o.Price)
				}
				if c.step.req.HasAmount && !o.Quantity.Equal(d("0.5")) {
					t.Fatalf("BID by amount 50 at 100: quantity %s", o.Quantity)
				}
			}
			// whatever happened, nothing stays frozen for a closed order
			if !o.Status.Open() {
				f.expectBalance(f.alice, "USDT", f.ex.Balance(f.alice, "USDT").Holding.String(), "0")
				f.expectBalance(f.alice, "BTC", f.ex.Balance(f.alice, "BTC").Holding.String(), "0")
			}
		})
	}
}

func TestHiddenAndIcebergDepth(t *testing.T) {
	f := newFixture(t)
	hidden := limitReq("SPOT_BTC_USDT", Sell, "105.00", "1")
	hidden.Visible, hidden.HasVisible = d("0"), true
	f.place(f.bob, hidden)
	ice := limitReq("SPOT_BTC_USDT", Sell, "106.00", "2")
	ice.Visible, ice.HasVisible = d("0.5"), true
	f.place(f.bob, ice)
	b, err := f.ex.Depth("SPOT_BTC_USDT", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Asks) != 1 || !b.Asks[0].Price.Equal(d("106")) || !b.Asks[0].Quantity.Equal(d("0.5")) {
		t.Fatalf("asks %+v", b.Asks)
	}
	// the hidden order still trades first
	o := f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "105.00", "0.5"))
	if got := f.order(f.alice, o.ID); got.Status != StatusFilled {
		t.Fatalf("hidden liquidity not taken: %s", got.Status)
	}
}

// Exact balance and fee arithmetic: taker pays 5 bps, maker 2 bps; fee in
// base for BUY, quote for SELL.
func TestBalancesAndFeesExact(t *testing.T) {
	f := newFixture(t)
	const sym = "SPOT_BTC_USDT"
	// BOB rests an ask of 1 BTC at 101.00: frozen 1 BTC
	ask := f.place(f.bob, limitReq(sym, Sell, "101.00", "1"))
	f.expectBalance(f.bob, "BTC", "50", "1")
	// ALICE rests a bid of 0.3 at 100.00: frozen 30 USDT
	bid := f.place(f.alice, limitReq(sym, Buy, "100.00", "0.3"))
	f.expectBalance(f.alice, "USDT", "10000", "30")

	// ALICE buys 0.4 at up to 101.50: fills 0.4 at 101.00 as taker
	f.place(f.alice, limitReq(sym, Buy, "101.50", "0.4"))
	// ALICE: BTC 2 + 0.4 - 0.4*0.0005 = 2.3998; USDT 10000 - 40.4 = 9959.6; frozen back to the resting bid's 30
	f.expectBalance(f.alice, "BTC", "2.3998", "0")
	f.expectBalance(f.alice, "USDT", "9959.6", "30")
	// BOB as maker SELL: USDT 100000 + 40.4 - 40.4*0.0002 = 100040.39192; BTC 49.6, 0.6 still frozen
	f.expectBalance(f.bob, "USDT", "100040.39192", "0")
	f.expectBalance(f.bob, "BTC", "49.6", "0.6")

	// BOB sells 0.5 at 100.00 into ALICE's bid of 0.3 (maker BUY fee in BTC), 0.2 rests
	f.place(f.bob, limitReq(sym, Sell, "100.00", "0.5"))
	// ALICE maker BUY 0.3: BTC + 0.3 - 0.3*0.0002 = 2.69974; USDT - 30; frozen released
	f.expectBalance(f.alice, "BTC", "2.69974", "0")
	f.expectBalance(f.alice, "USDT", "9929.6", "0")
	// BOB taker SELL 0.3 at 100: USDT + 30 - 30*0.0005 = 100070.37692; BTC 49.3, frozen 0.6 + 0.2
	f.expectBalance(f.bob, "USDT", "100070.37692", "0")
	f.expectBalance(f.bob, "BTC", "49.3", "0.8")

	o := f.order(f.alice, bid.ID)
	if o.Status != StatusFilled || !o.TotalFee.Equal(d("0.00006")) || o.FeeAsset != "BTC" {
		t.Fatalf("bid %+v", o)
	}
	trades, _ := f.ex.OrderTrades(f.bob, ask.ID)
	if len(trades) != 1 || !trades[0].Maker || !trades[0].Fee.Equal(d("0.00808")) || trades[0].FeeAsset != "USDT" {
		t.Fatalf("ask trades %+v", trades)
	}
	// cancelling releases the rest exactly
	if _, err := f.ex.CancelAll(f.bob, sym); err != nil {
		t.Fatal(err)
	}
	f.expectBalance(f.bob, "BTC", "49.3", "0")
}

func TestMarketBuyByAmountFreezesAndReleases(t *testing.T) {
	f := newFixture(t)
	f.book()
	o := f.place(f.alice, OrderRequest{Symbol: "SPOT_BTC_USDT", Type: Market, Side: Buy, Amount: d("50.5"), HasAmount: true})
	got := f.order(f.alice, o.ID)
	if got.Status != StatusFilled || !got.Executed.Equal(d("0.5")) {
		t.Fatalf("%+v", got)
	}
	// 0.5 - 0.5*0.0005 = 0.49975 BTC bought for 50.5 USDT
	f.expectBalance(f.alice, "BTC", "2.49975", "0")
	f.expectBalance(f.alice, "USDT", "9949.5", "0")
}

func TestEventsOfAnOrder(t *testing.T) {
	f := newFixture(t)
	f.place(f.bob, limitReq("SPOT_BTC_USDT", Sell, "101.00", "0.2"))
	ch, cancel := f.ex.Subscribe()
	defer cancel()
	o := f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "101.00", "0.5"))
	var mine []OrderEvent
	var trades, books int
	for len(ch) > 0 {
		switch ev := (<-ch).(type) {
		case OrderEvent:
			if ev.OrderID == o.ID {
				mine = append(mine, ev)
			}
		case TradeEvent:
			trades++
			if ev.Side != Buy || !ev.Size.Equal(d("0.2")) {
				t.Fatalf("trade %+v", ev)
			}
		case BookChanged:
			books++
		}
	}
	if len(mine) != 2 || mine[0].Status != StatusNew || mine[1].Status != StatusPartialFilled ||
		!mine[1].ExecutedQuantity.Equal(d("0.2")) || mine[1].TradeID == 0 || mine[1].Maker ||
		!mine[1].Fee.Equal(d("0.0001")) || mine[1].FeeAsset != "BTC" || !mine[1].AvgPrice.Equal(d("101")) {
		t.Fatalf("events %+v", mine)
	}
	if trades != 1 || books != 1 {
		t.Fatalf("trades %d books %d", trades, books)
	}
	if err := f.ex.Cancel(f.alice, "SPOT_BTC_USDT", o.ID); err != nil {
		t.Fatal(err)
	}
	var last OrderEvent
	for len(ch) > 0 {
		if ev, ok := (<-ch).(OrderEvent); ok {
			last = ev
		}
	}
	if last.Status != StatusCancelled || last.Reason == "" || !last.TotalExecutedQuantity.Equal(d("0.2")) {
		t.Fatalf("cancel event %+v", last)
	}
}

func TestRefusedOrderIsAnnouncedRejected(t *testing.T) {
	f := newFixture(t)
	ch, cancel := f.ex.Subscribe()
	defer cancel()
	req := limitReq("SPOT_BTC_USDT", Buy, "100.001", "0.5")
	req.ClientOrderID = 31
	if _, err := f.ex.PlaceOrder(f.alice, req); err == nil || err.Code != venue.CodePriceFilter {
		t.Fatalf("%v", err)
	}
	ev, ok := (<-ch).(OrderEvent)
	if !ok || ev.Status != StatusRejected || ev.OrderID != 0 || ev.ClientOrderID != 31 || ev.Reason == "" || ev.ApplicationID != "app-alice" {
		t.Fatalf("event %+v", ev)
	}
	// a malformed request is answered on REST only
	if _, err := f.ex.PlaceOrder(f.alice, OrderRequest{Symbol: "SPOT_BTC_USDT", Type: Limit, Side: Buy}); err == nil {
		t.Fatal("a limit order without price or quantity accepted")
	}
	if len(ch) != 0 {
		t.Fatalf("event for a malformed request: %+v", <-ch)
	}
}

func TestSlowSubscriberIsDropped(t *testing.T) {
	f := newFixture(t)
	ch, cancel := f.ex.Subscribe()
	defer cancel()
	for i := 0; i < SubscriberBuffer; i++ {
		f.ex.mu.Lock()
		f.ex.publish(BookChanged{Symbol: "X"})
		f.ex.mu.Unlock()
	}
	f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "90.00", "0.5")) // does not block
	n := 0
	for range ch {
		n++
	}
	if n != SubscriberBuffer || f.ex.DroppedSubscribers() != 1 {
		t.Fatalf("got %d events, dropped %d", n, f.ex.DroppedSubscribers())
	}
}

func TestPerpetualPositionPnLAndFunding(t *testing.T) {
	f := newFixture(t)
	const sym = "PERP_BTC_USDT"
	if err := f.ex.SetAccountMode(f.alice, ModeFutures); err != nil {
		t.Fatal(err)
	}
	f.place(f.bob, limitReq(sym, Sell, "100.0", "2"))
	f.place(f.alice, limitReq(sym, Buy, "100.0", "1"))
	// taker fee 4 bps of 100 = 0.04 USDT
	f.expectBalance(f.alice, "USDT", "9999.96", "0")
	p, err := f.ex.Position(f.alice, sym)
	if err != nil || !p.Holding.Equal(d("1")) || !p.AverageOpen.Equal(d("100")) {
		t.Fatalf("position %+v %v", p, err)
	}
	ro := limitReq(sym, Buy, "90.0", "0.5")
	ro.ReduceOnly = true
	if _, err := f.ex.PlaceOrder(f.alice, ro); err == nil || err.Code != venue.CodeRiskTooHigh {
		t.Fatalf("reduce-only buy on a long: %v", err)
	}
	ro.Side, ro.Price, ro.Quantity = Sell, d("130.0"), d("1.5")
	if _, err := f.ex.PlaceOrder(f.alice, ro); err == nil || err.Code != venue.CodeRiskTooHigh {
		t.Fatalf("reduce-only sell beyond the long: %v", err)
	}
	ro.Quantity = d("1")
	if o := f.place(f.alice, ro); !o.ReduceOnly {
		t.Fatal("reduce-only flag lost")
	} else if err := f.ex.Cancel(f.alice, sym, o.ID); err != nil {
		t.Fatal(err)
	}
	f.place(f.alice, limitReq(sym, Buy, "100.0", "1")) // the rest of BOB's 2
	f.place(f.bob, limitReq(sym, Sell, "110.0", "1"))
	o := f.place(f.alice, limitReq(sym, Sell, "105.0", "0.5")) // rests (no bid)
	p, _ = f.ex.Position(f.alice, sym)
	if !p.Holding.Equal(d("2")) || !p.PendingShortQty.Equal(d("0.5")) {
		t.Fatalf("position %+v", p)
	}
	if err := f.ex.Cancel(f.alice, sym, o.ID); err != nil {
		t.Fatal(err)
	}
	// BOB buys 1 from ALICE at 104.0: ALICE realises (104-100)*1 = 4, pays maker 1 bp of 104 = 0.0104
	f.place(f.alice, limitReq(sym, Sell, "104.0", "1"))
	f.place(f.bob, limitReq(sym, Buy, "104.0", "1"))
	// 10000 - 0.04 - 0.04 + 4 - 0.0104 = 10003.9096
	f.expectBalance(f.alice, "USDT", "10003.9096", "0")
	p, _ = f.ex.Position(f.alice, sym)
	if !p.Holding.Equal(d("1")) || !p.AverageOpen.Equal(d("100")) || !p.MarkPrice.Equal(d("104")) {
		t.Fatalf("position %+v", p)
	}

	// funding at 08:00 UTC: mark 104.5 over index 104 -> rate (0.5/104 + 0.0001) rounded to 8 places
	if err := f.ex.SetMarkPrice(sym, d("104.1")); err != nil {
		t.Fatal(err)
	}
	if err := f.ex.SetIndexPrice(sym, d("104")); err != nil {
		t.Fatal(err)
	}
	rate := d("0.00106154") // 0.1/104 + 0.0001, 8 places
	f.clock.Advance(8 * time.Hour)
	f.ex.Tick()
	fees := f.ex.FundingFees(f.alice, sym, 0, 0)
	want := d("104.1").Mul(rate) // long 1 pays
	if len(fees) != 1 || fees[0].PaymentType != "Pay" || !fees[0].Fee.Equal(want) || !fees[0].Rate.Equal(rate) {
		t.Fatalf("funding %+v want fee %s rate %s", fees, want, rate)
	}
	f.expectBalance(f.alice, "USDT", d("10003.9096").Sub(want).String(), "0")
	bobFees := f.ex.FundingFees(f.bob, sym, 0, 0)
	if len(bobFees) != 1 || bobFees[0].PaymentType != "Receive" || !bobFees[0].Fee.Equal(want) {
		t.Fatalf("bob funding %+v", bobFees)
	}
	hist, _ := f.ex.FundingRateHistory(sym, 0, 0)
	if len(hist) != 1 || !hist[0].Rate.Equal(rate) || hist[0].TimestampMs != time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC).UnixMilli() {
		t.Fatalf("history %+v", hist)
	}
	all, _ := f.ex.FundingRateHistory(sym, 1, 0)
	if len(all) != fundingBackfill+1 || all[1].TimestampMs != hist[0].TimestampMs-8*3600_000 {
		t.Fatalf("history with the backfill: %d rows", len(all))
	}
	for _, r := range all[1:] {
		if r.Rate.LessThan(d("-0.0001")) || r.Rate.GreaterThan(d("0.0003")) {
			t.Fatalf("backfilled rate %s", r.Rate)
		}
	}
	if err := f.ex.SetAccountMode(f.alice, ModePureSpot); err == nil || err.Code != venue.CodeRiskTooHigh {
		t.Fatalf("leaving futures with a position: %v", err)
	}
}

func TestLeverageChoices(t *testing.T) {
	f := newFixture(t)
	if err := f.ex.SetLeverage(f.alice, 3); err == nil || err.Code != venue.CodeInvalidParam {
		t.Fatalf("leverage in PURE_SPOT: %v", err)
	}
	if err := f.ex.SetAccountMode(f.alice, ModeMargin); err != nil {
		t.Fatal(err)
	}
	for lev, ok := range map[int]bool{3: true, 4: true, 5: true, 2: false, 10: false} {
		err := f.ex.SetLeverage(f.alice, lev)
		if (err == nil) != ok {
			t.Fatalf("margin leverage %d: %v", lev, err)
		}
	}
	if err := f.ex.SetLeverage(f.alice, 5); err != nil {
		t.Fatal(err)
	}
	if err := f.ex.SetAccountMode(f.alice, ModeFutures); err != nil {
		t.Fatal(err)
	}
	for lev, ok := range map[int]bool{1: true, 2: true, 15: true, 20: true, 6: false, 25: false} {
		err := f.ex.SetLeverage(f.alice, lev)
		if (err == nil) != ok {
			t.Fatalf("futures leverage %d: %v", lev, err)
		}
	}
	if err := f.ex.SetLeverage(f.alice, 20); err != nil {
		t.Fatal(err)
	}
	if err := f.ex.SetAccountMode(f.alice, "CROSS"); err == nil || err.Code != venue.CodeInvalidParam {
		t.Fatalf("bad mode: %v", err)
	}
	if info := f.ex.Info(f.alice); info.Mode != ModeFutures || info.FuturesLeverage != 20 || info.Leverage != 5 {
		t.Fatalf("info %+v", info)
	}
}

func TestMarginBorrowInterestRepay(t *testing.T) {
	f := newFixture(t)
	if err := f.ex.SetAccountMode(f.alice, ModeMargin); err != nil {
		t.Fatal(err)
	}
	f.place(f.bob, limitReq("SPOT_BTC_USDT", Buy, "100.00", "10"))
	// ALICE sells 3 BTC with 2 held: borrows 1 (margin mode allows it)
	f.place(f.alice, limitReq("SPOT_BTC_USDT", Sell, "100.00", "3"))
	f.expectBalance(f.alice, "BTC", "-1", "0")
	// too much borrowing for leverage 3 is refused
	if _, err := f.ex.TransferAsset(f.alice, "USDT", d("9000"), "app-alice", "app-sub"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ex.PlaceOrder(f.alice, limitReq("SPOT_BTC_USDT", Sell, "100.00", "90")); err == nil || err.Code != venue.CodeRiskTooHigh {
		t.Fatalf("over-borrow: %v", err)
	}
	f.clock.Advance(time.Hour)
	f.ex.Tick()
	// 1 BTC * 0.0002 per hour
	b := f.ex.Balance(f.alice, "BTC")
	if !b.Interest.Equal(d("0.0002")) {
		t.Fatalf("interest %s", b.Interest)
	}
	if err := f.ex.Repay(f.alice, "BTC", d("0.0003")); err == nil || err.Code != venue.CodeQuantityTooHigh {
		t.Fatalf("repay too much: %v", err)
	}
	if err := f.ex.Repay(f.alice, "BTC", d("0.0002")); err != nil {
		t.Fatal(err)
	}
	f.expectBalance(f.alice, "BTC", "-1.0002", "0")
	hist := f.ex.InterestHistory(f.alice, "BTC", "", 0, 0)
	if len(hist) != 2 || hist[0].Side != "REPAY" || hist[1].Side != "LOAN" || !hist[1].Interest.Equal(d("0.0002")) {
		t.Fatalf("history %+v", hist)
	}
}

func TestSubaccountsAndTransfers(t *testing.T) {
	f := newFixture(t)
	if subs := f.ex.Subaccounts(f.alice); len(subs) != 1 || subs[0] != f.sub {
		t.Fatalf("subs %v", subs)
	}
	id, err := f.ex.TransferAsset(f.alice, "USDT", d("250.5"), "app-alice", "app-sub")
	if err != nil || id == 0 {
		t.Fatal(err)
	}
	f.expectBalance(f.alice, "USDT", "9749.5", "0")
	f.expectBalance(f.sub, "USDT", "750.5", "0")
	if _, err := f.ex.TransferAsset(f.sub, "USDT", d("1"), "app-alice", "app-sub"); err == nil || err.Code != venue.CodeUnauthorized {
		t.Fatalf("sub moving main's funds: %v", err)
	}
	if _, err := f.ex.TransferAsset(f.sub, "USDT", d("1000"), "app-sub", "app-alice"); err == nil || err.Code != venue.CodeQuantityTooHigh {
		t.Fatalf("too much: %v", err)
	}
	if _, err := f.ex.TransferAsset(f.alice, "USDT", d("1"), "app-alice", "app-bob"); err == nil || err.Code != venue.CodeResourceNotFound {
		t.Fatalf("outside the family: %v", err)
	}
	if _, err := f.ex.TransferAsset(f.sub, "USDT", d("0.5"), "app-sub", "app-alice"); err != nil {
		t.Fatal(err)
	}
	if got := f.ex.Transfers(f.alice, 0, 0); len(got) != 2 || got[0].From != "app-sub" {
		t.Fatalf("main's history %+v", got)
	}
	if got := f.ex.Transfers(f.bob, 0, 0); len(got) != 0 {
		t.Fatalf("bob sees %+v", got)
	}
	if _, _, err := f.ex.AssetDetail(f.sub, "app-alice"); err == nil || err.Code != venue.CodeUnauthorized {
		t.Fatalf("sub reading main: %v", err)
	}
	if a, h, err := f.ex.AssetDetail(f.alice, "app-sub"); err != nil || a != f.sub || len(h) != 1 || !h[0].Holding.Equal(d("750")) {
		t.Fatalf("detail %v %+v %v", a, h, err)
	}
}

func TestDepositsAndAssetHistory(t *testing.T) {
	f := newFixture(t)
	addr, _, err := f.ex.DepositAddress(f.alice, "ETH_USDT")
	if err != nil || len(addr) != 42 || addr[:2] != "0x" {
		t.Fatalf("address %q %v", addr, err)
	}
	again, _, _ := f.ex.DepositAddress(f.alice, "ETH_USDT")
	if again != addr {
		t.Fatal("deposit address not stable")
	}
	if _, _, err := f.ex.DepositAddress(f.alice, "NOPE"); err == nil {
		t.Fatal("unknown token accepted")
	}
	f.clock.Advance(time.Minute)
	if _, err := f.ex.Deposit(f.alice, "ETH_USDT", d("12.5")); err != nil {
		t.Fatal(err)
	}
	f.expectBalance(f.alice, "USDT", "10012.5", "0")
	h := f.ex.AssetHistory(f.alice, AssetFilter{BalanceToken: "USDT"})
	if len(h) != 2 || !h[0].Amount.Equal(d("12.5")) || h[0].Token != "ETH_USDT" || h[0].Side != "DEPOSIT" || h[0].Status != "COMPLETED" {
		t.Fatalf("history %+v", h)
	}
	if h := f.ex.AssetHistory(f.alice, AssetFilter{Side: "WITHDRAW"}); len(h) != 0 {
		t.Fatalf("withdrawals %+v", h)
	}
}

func TestSnapshotRestore(t *testing.T) {
	f := newFixture(t)
	f.book()
	f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "101.00", "0.4"))
	rest := f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "99.50", "0.5"))
	state, err := f.ex.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := ParseUniverse(must(os.ReadFile("testdata/universe.json")))
	ex2, err := NewFromState(Options{Universe: u, Clock: f.clock.Now}, state)
	if err != nil {
		t.Fatal(err)
	}
	alice2, _ := ex2.AccountByName("ALICE")
	for _, tok := range []string{"USDT", "BTC"} {
		a, b := f.ex.Balance(f.alice, tok), ex2.Balance(alice2, tok)
		if !a.Holding.Equal(b.Holding) || !a.Frozen.Equal(b.Frozen) {
			t.Fatalf("%s: %+v vs %+v", tok, a, b)
		}
	}
	if got := ex2.OpenOrders(alice2); len(got) != 1 || got[0].ID != rest.ID {
		t.Fatalf("open orders %+v", got)
	}
	b1, _ := f.ex.Depth("SPOT_BTC_USDT", 10)
	b2, _ := ex2.Depth("SPOT_BTC_USDT", 10)
	if len(b1.Bids) != len(b2.Bids) || len(b1.Asks) != len(b2.Asks) || !b1.Bids[0].Price.Equal(b2.Bids[0].Price) {
		t.Fatalf("books differ: %+v vs %+v", b1, b2)
	}
	if len(ex2.Trades(alice2, "", "", 0, 0)) != 1 {
		t.Fatal("trades not restored")
	}
	// ids continue
	o, perr := ex2.PlaceOrder(alice2, limitReq("SPOT_BTC_USDT", Buy, "99.00", "0.5"))
	if perr != nil || o.ID <= rest.ID {
		t.Fatalf("new id %d after %d: %v", o.ID, rest.ID, perr)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestKlinesFromTrades(t *testing.T) {
	f := newFixture(t)
	const sym = "SPOT_BTC_USDT"
	trade := func(price, qty string) {
		f.place(f.bob, limitReq(sym, Sell, price, qty))
		f.place(f.alice, limitReq(sym, Buy, price, qty))
	}
	trade("100.00", "0.2")
	trade("102.00", "0.1")
	f.clock.Advance(2 * time.Minute)
	trade("99.00", "0.3")
	ks, err := f.ex.Klines(sym, "1m", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != 3 {
		t.Fatalf("klines %+v", ks)
	}
	// newest first; the empty minute is carried flat at the close
	if !ks[0].Open.Equal(d("99")) || !ks[0].Volume.Equal(d("0.3")) || !ks[1].Volume.IsZero() || !ks[1].Close.Equal(d("102")) {
		t.Fatalf("klines %+v", ks)
	}
	k := ks[2]
	if !k.Open.Equal(d("100")) || !k.High.Equal(d("102")) || !k.Low.Equal(d("100")) || !k.Close.Equal(d("102")) ||
		!k.Volume.Equal(d("0.3")) || !k.Amount.Equal(d("30.2")) || k.EndMs-k.StartMs != 60_000 {
		t.Fatalf("first kline %+v", k)
	}
	day, _ := f.ex.Klines(sym, "1d", 5)
	if len(day) != 1 || !day[0].Volume.Equal(d("0.6")) || !day[0].Amount.Equal(d("59.9")) {
		t.Fatalf("day %+v", day)
	}
	for _, typ := range KlineTypes {
		if ks, err := f.ex.Klines(sym, typ, 1000); err != nil || len(ks) == 0 {
			t.Fatalf("%s: %v %v", typ, ks, err)
		}
	}
	w, _ := f.ex.Klines(sym, "1w", 1)
	// 2024-01-01 is a Monday
	if w[0].StartMs != time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() || w[0].EndMs != time.Date(2024, 1, 8, 0, 0, 0, 0, time.UTC).UnixMilli() {
		t.Fatalf("week %+v", w[0])
	}
	if _, err := f.ex.Klines(sym, "2m", 1); err == nil {
		t.Fatal("bad type accepted")
	}
	trades, _ := f.ex.MarketTrades(sym, 2)
	if len(trades) != 2 || !trades[0].Price.Equal(d("99")) {
		t.Fatalf("market trades %+v", trades)
	}
}

func TestDefaultUniverseSeedsDeterministically(t *testing.T) {
	clock := func() time.Time { return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) }
	a, err := New(Options{Seed: 7, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New(Options{Seed: 7, Clock: clock})
	c, _ := New(Options{Seed: 8, Clock: clock})
	for _, sym := range a.Symbols() {
		ba, _ := a.Depth(sym, 0)
		bb, _ := b.Depth(sym, 0)
		if len(ba.Asks) == 0 || len(ba.Bids) == 0 {
			t.Fatalf("%s empty", sym)
		}
		for i := range ba.Asks {
			if !ba.Asks[i].Quantity.Equal(bb.Asks[i].Quantity) {
				t.Fatalf("%s not deterministic", sym)
			}
		}
	}
	x, _ := a.Depth("SPOT_BTC_USDT", 0)
	y, _ := c.Depth("SPOT_BTC_USDT", 0)
	same := true
	for i := range x.Asks {
		same = same && x.Asks[i].Quantity.Equal(y.Asks[i].Quantity)
	}
	if same {
		t.Fatal("different seeds gave the same book")
	}
	if len(a.Rules()) < 12 {
		t.Fatal("default universe too small")
	}
}

func TestHistoryIsBounded(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < MaxHistory+MaxHistory/10+5; i++ {
		f.alice.orders = append(f.alice.orders, &orderState{Order: Order{ID: int64(-i - 1), Status: StatusCancelled}})
		f.alice.trades = append(f.alice.trades, &Trade{ID: int64(i)})
	}
	open := f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "90.00", "0.5"))
	o := f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "90.00", "0.5"))
	if err := f.ex.Cancel(f.alice, "SPOT_BTC_USDT", o.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(f.alice.orders); n > MaxHistory+2 || n < MaxHistory {
		t.Fatalf("%d orders kept", n)
	}
	if got := f.order(f.alice, open.ID); got.Status != StatusNew {
		t.Fatal("open order dropped")
	}
	if n := len(f.alice.trades); n != MaxHistory || f.alice.trades[n-1].ID != int64(MaxHistory+MaxHistory/10+4) {
		t.Fatalf("%d trades kept", n)
	}
}

func TestKlinePagingOverLongHistory(t *testing.T) {
	f := newFixture(t)
	m := f.ex.markets["SPOT_BTC_USDT"]
	start := time.Date(2023, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	// a trade every other minute for a month, priced by minute index
	for i := int64(0); i < 31*1440; i += 2 {
		ts := start + i*60_000
		m.recordTrade(PublicTrade{Symbol: "SPOT_BTC_USDT", Price: m.price(10000 + i%500), Size: m.qty(1000), Timestamp: ts}, 10000+i%500, 1000)
	}
	f.clock.Advance(-10 * time.Minute) // now = 2024-01-01 00:00
	ks, err := f.ex.Klines("SPOT_BTC_USDT", "1m", 1000)
	if err != nil || len(ks) != 1000 {
		t.Fatalf("%d klines %v", len(ks), err)
	}
	for i := 1; i < len(ks); i++ {
		if ks[i].EndMs != ks[i-1].StartMs {
			t.Fatalf("gap at %d: %+v %+v", i, ks[i-1], ks[i])
		}
	}
	if ks[0].StartMs != time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() {
		t.Fatalf("newest %+v", ks[0])
	}
	// minutes without trades are flat at the previous close
	for _, k := range ks[:4] {
		if k.Volume.IsZero() && !k.Open.Equal(k.Close) {
			t.Fatalf("flat kline %+v", k)
		}
	}
	rows, total, err := f.ex.HistKlines("SPOT_BTC_USDT", "1h", start+1, 2, 100)
	if err != nil || total != 31*24 || len(rows) != 100 || rows[0].StartMs != start+101*3_600_000 {
		t.Fatalf("hist page 2: %d rows of %d, first %+v, %v", len(rows), total, rows[0], err)
	}
	if rows, total, _ := f.ex.HistKlines("SPOT_BTC_USDT", "1h", start, 8, 100); len(rows) != 45 || total != 745 { // December and the current hour
		t.Fatalf("last page: %d rows of %d", len(rows), total)
	}
	mon, _ := f.ex.Klines("SPOT_BTC_USDT", "1mon", 5)
	if len(mon) != 2 || !mon[1].Volume.Equal(d("0.1").Mul(decimal.NewFromInt(31*720))) || !mon[0].Volume.IsZero() {
		t.Fatalf("months %+v", mon)
	}
	yr, _ := f.ex.Klines("SPOT_BTC_USDT", "1y", 5)
	if len(yr) != 2 || yr[1].StartMs != time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() {
		t.Fatalf("years %+v", yr)
	}
}

func TestLiquidationBelowMaintenance(t *testing.T) {
	f := newFixture(t)
	const sym = "PERP_BTC_USDT"
	if err := f.ex.SetAccountMode(f.alice, ModeFutures); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ex.TransferAsset(f.alice, "USDT", d("9900"), "app-alice", "app-sub"); err != nil {
		t.Fatal(err)
	}
	// equity: 100 USDT + 2 BTC at 100.50 = 301; 20 long at 100.0 needs 200 at leverage 10
	f.place(f.bob, limitReq(sym, Sell, "100.0", "20"))
	f.place(f.alice, limitReq(sym, Buy, "100.0", "20"))
	resting := f.place(f.alice, limitReq(sym, Buy, "80.0", "0.5"))
	f.place(f.bob, limitReq(sym, Buy, "87.0", "30"))
	if err := f.ex.SetMarkPrice(sym, d("88")); err != nil {
		t.Fatal(err)
	}
	f.ex.Tick() // equity 301 - 0.8 fee - 240 = 60.2 >= 3% of 1760: safe
	if p, _ := f.ex.Position(f.alice, sym); !p.Holding.Equal(d("20")) {
		t.Fatalf("liquidated too early: %+v", p)
	}
	ch, cancel := f.ex.Subscribe()
	defer cancel()
	if err := f.ex.SetMarkPrice(sym, d("87")); err != nil {
		t.Fatal(err)
	}
	f.ex.Tick() // equity 40.2 < 52.2
	p, _ := f.ex.Position(f.alice, sym)
	if !p.Holding.IsZero() {
		t.Fatalf("position after liquidation %+v", p)
	}
	if o := f.order(f.alice, resting.ID); o.Status != StatusCancelled {
		t.Fatalf("open order not cancelled: %+v", o)
	}
	liq := f.ex.Orders(f.alice, OrderFilter{Type: Liquidate})
	if len(liq) != 1 || liq[0].Status != StatusFilled || liq[0].Side != Sell || !liq[0].Executed.Equal(d("20")) {
		t.Fatalf("liquidation orders %+v", liq)
	}
	// 100 - 0.8 (open fee) - 260 (loss at 87) - 0.696 (taker fee on 1740)
	f.expectBalance(f.alice, "USDT", "-161.496", "0")
	var sawLiq bool
	for len(ch) > 0 {
		if ev, ok := (<-ch).(OrderEvent); ok && ev.Type == Liquidate && ev.Status == StatusFilled {
			sawLiq = true
		}
	}
	if !sawLiq {
		t.Fatal("no execution report for the liquidation")
	}
	f.ex.Tick() // nothing left to liquidate: no new orders
	if n := len(f.ex.Orders(f.alice, OrderFilter{Type: Liquidate})); n != 1 {
		t.Fatalf("%d liquidation orders", n)
	}
}

func TestDirtyStateSeparatesUsersFromMarketData(t *testing.T) {
	f := newFixture(t)
	if u, m := f.ex.DirtyState(); u || m {
		t.Fatalf("fresh venue dirty: %v %v", u, m)
	}
	mm, taker := f.ex.InternalAccount("MM"), f.ex.InternalAccount("T")
	f.place(mm, limitReq("SPOT_BTC_USDT", Sell, "101.00", "1"))
	f.place(taker, limitReq("SPOT_BTC_USDT", Buy, "101.00", "0.5"))
	if u, m := f.ex.DirtyState(); u || !m {
		t.Fatalf("internal trading: user %v market %v", u, m)
	}
	f.place(f.alice, limitReq("SPOT_BTC_USDT", Buy, "101.00", "0.2"))
	if u, _ := f.ex.DirtyState(); !u {
		t.Fatal("a user trade is not user state")
	}
	// a long minute history is saved trimmed to persistMinutes
	m := f.ex.markets["SPOT_BTC_USDT"]
	for i := int64(0); i < persistMinutes+100; i++ {
		m.recordTrade(PublicTrade{Timestamp: 1_600_000_000_000 + i*60_000, Price: m.price(10000), Size: m.qty(1)}, 10000, 1)
	}
	b, err := f.ex.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if u, m := f.ex.DirtyState(); u || m {
		t.Fatal("still dirty after a snapshot")
	}
	var st stateFile
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	for _, ms := range st.Markets {
		if ms.Symbol == "SPOT_BTC_USDT" && len(ms.Minutes) != persistMinutes {
			t.Fatalf("%d minute candles saved", len(ms.Minutes))
		}
	}
}

func TestWithdrawals(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		token, amount string
		code          venue.Code
	}{
		{"NOPE", "1", venue.CodeInvalidParam},
		{"ETH_USDT", "5", venue.CodeInvalidParam},       // below the 10 minimum
		{"ETH_USDT", "9999", venue.CodeQuantityTooHigh}, // + 2 fee > 10000
	}
	for _, c := range cases {
		if _, err := f.ex.Withdraw(f.alice, c.token, "0xabc", "", d(c.amount)); err == nil || err.Code != c.code {
			t.Fatalf("%+v: %v", c, err)
		}
	}
	rec, err := f.ex.Withdraw(f.alice, "ETH_USDT", "0xabc", "", d("100"))
	if err != nil || rec.Side != "WITHDRAW" || !rec.FeeAmount.Equal(d("2")) || rec.FeeToken != "USDT" {
		t.Fatalf("%+v %v", rec, err)
	}
	f.expectBalance(f.alice, "USDT", "9898", "0")
	// with a debt: -1009
	if err := f.ex.SetAccountMode(f.alice, ModeMargin); err != nil {
		t.Fatal(err)
	}
	f.place(f.bob, limitReq("SPOT_BTC_USDT", Buy, "100.00", "3"))
	f.place(f.alice, limitReq("SPOT_BTC_USDT", Sell, "100.00", "3"))
	if _, err := f.ex.Withdraw(f.alice, "ETH_USDT", "0xabc", "", d("100")); err == nil || err.Code != venue.CodeCanNotWithdrawal {
		t.Fatalf("withdrawal with a debt: %v", err)
	}
	if h := f.ex.AssetHistory(f.alice, AssetFilter{Side: "WITHDRAW"}); len(h) != 1 {
		t.Fatalf("%+v", h)
	}
}
