package moves

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/trade"
	"tradedeck/venue"
)

// desk is the simulated venue on loopback with every order body the
// client put on the wire.
type desk struct {
	c    *venue.Client
	inst *sim.Instance
	mu   sync.Mutex
	ids  *trade.ClientIDs
	// orders are the bodies of POST /v1/order as they reached the venue.
	orders []string
}

func newDesk(t *testing.T) *desk {
	t.Helper()
	d := &desk{ids: trade.NewClientIDsFrom(1000)}
	record := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && r.URL.Path == "/v1/order" {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				d.mu.Lock()
				d.orders = append(d.orders, string(body))
				d.mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	}
	inst := simtest.Start(t, sim.Options{Seed: 3, NoRateLimits: true, Living: sim.LivingOptions{NoMarket: true},
		Middleware: []func(http.Handler) http.Handler{record}})
	d.c, d.inst = venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil)), inst
	return d
}

func (d *desk) wire() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.orders...)
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func (d *desk) market(t *testing.T, symbol string, side venue.Side, qty string) {
	t.Helper()
	if _, err := d.c.SendOrder(context.Background(), venue.OrderRequest{Symbol: symbol, Type: venue.Market, Side: side, Quantity: dec(qty)}); err != nil {
		t.Fatalf("%s %s %s: %v", side, qty, symbol, err)
	}
}

func (d *desk) rule(t *testing.T, symbol string) trade.Rule {
	t.Helper()
	r, err := d.c.SymbolRule(context.Background(), symbol)
	if err != nil {
		t.Fatal(err)
	}
	return trade.RuleOf(r)
}

func (d *desk) book(t *testing.T, symbol string) trade.Book {
	t.Helper()
	b, err := d.c.OrderBook(context.Background(), symbol, 1)
	if err != nil || len(b.Bids) == 0 || len(b.Asks) == 0 {
		t.Fatalf("book %s: %v", symbol, err)
	}
	return trade.Book{BestBid: b.Bids[0].Price, BestAsk: b.Asks[0].Price}
}

func (d *desk) holding(t *testing.T, symbol string) decimal.Decimal {
	t.Helper()
	p, err := d.c.Position(context.Background(), symbol)
	if err != nil {
		t.Fatal(err)
	}
	return p.Holding
}

func (d *desk) open(t *testing.T, symbol string) []venue.Order {
	t.Helper()
	os, _, err := d.c.ListOrders(context.Background(), venue.OrderFilter{Symbol: symbol, Status: venue.StatusIncomplete})
	if err != nil {
		t.Fatal(err)
	}
	return os
}

func (d *desk) send(t *testing.T, o trade.Order) Sent {
	t.Helper()
	s := SendAll(context.Background(), d.c, d.ids, []trade.Order{o})[0]
	if s.Err != nil {
		t.Fatalf("%+v: %v", o, s.Err)
	}
	return s
}

// A long and a short perpetual position close to zero with a MARKET
// reduce-only order; reduce_only=true is what reached the venue.
func TestCloseLongAndShortPerp(t *testing.T) {
	d := newDesk(t)
	d.market(t, "PERP_ETH_USDT", venue.Buy, "1.5")
	d.market(t, "PERP_BTC_USDT", venue.Sell, "0.02")
	for _, sym := range []string{"PERP_ETH_USDT", "PERP_BTC_USDT"} {
		h := d.holding(t, sym)
		if h.IsZero() {
			t.Fatalf("%s: no position to close", sym)
		}
		o, err := CloseOrder(Close{Symbol: sym, Holding: h, Type: trade.Market, Rule: d.rule(t, sym)})
		if err != nil {
			t.Fatal(err)
		}
		if (h.IsPositive() && o.Side != trade.Sell) || (h.IsNegative() && o.Side != trade.Buy) || !o.Quantity.Equal(h.Abs()) {
			t.Fatalf("%s holding %s: close %+v", sym, h, o)
		}
		before := len(d.wire())
		d.send(t, o)
		if w := d.wire(); len(w) != before+1 || !strings.Contains(w[before], "reduce_only=true") || !strings.Contains(w[before], "order_type=MARKET") {
			t.Fatalf("%s: on the wire %q", sym, w[before:])
		}
		if h := d.holding(t, sym); !h.IsZero() {
			t.Fatalf("%s: holding %s after the close", sym, h)
		}
	}
}

// A partial close halves the position; a LIMIT close rests at the top of
// the book on its own side, reduce-only.
func TestClosePercentAndLimit(t *testing.T) {
	d := newDesk(t)
	sym := "PERP_ETH_USDT"
	d.market(t, sym, venue.Buy, "2")
	r := d.rule(t, sym)
	o, err := CloseOrder(Close{Symbol: sym, Holding: d.holding(t, sym), Percent: dec("50"), Type: trade.Market, Rule: r})
	if err != nil {
		t.Fatal(err)
	}
	d.send(t, o)
	if h := d.holding(t, sym); !h.Equal(dec("1")) {
		t.Fatalf("after closing 50%% of 2: %s", h)
	}
	book := d.book(t, sym)
	o, err = CloseOrder(Close{Symbol: sym, Holding: dec("1"), Type: trade.Limit, Book: book, Rule: r})
	if err != nil {
		t.Fatal(err)
	}
	s := d.send(t, o)
	got, err := d.c.GetOrder(context.Background(), int64(s.Ack.OrderID))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Status.Open() || !bool(got.ReduceOnly) || !got.Price.Decimal.Equal(book.BestAsk) || got.Side != venue.Sell {
		t.Fatalf("LIMIT close %+v, best ask %s", got, book.BestAsk)
	}
	if _, err := CloseOrder(Close{Symbol: sym, Holding: dec("1"), Percent: dec("0.0001"), Type: trade.Market, Rule: r}); err == nil {
		t.Fatal("a close below the lot size was built")
	}
}

// Flatten closes every perpetual position; spot holdings are left alone.
func TestFlattenSeveral(t *testing.T) {
	d := newDesk(t)
	d.market(t, "PERP_ETH_USDT", venue.Buy, "1")
	d.market(t, "PERP_BTC_USDT", venue.Sell, "0.01")
	d.market(t, "PERP_SOL_USDT", venue.Buy, "3")
	ps, err := d.c.Positions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var open []Position
	rules := map[string]trade.Rule{}
	for _, p := range ps.Positions {
		open = append(open, Position{Symbol: p.Symbol, Holding: p.Holding})
		rules[p.Symbol] = d.rule(t, p.Symbol)
	}
	open = append(open, Position{Symbol: "SPOT_ETH_USDT", Holding: dec("1")})
	orders, errs := FlattenOrders(open, rules)
	if len(errs) != 0 || len(orders) != 3 {
		t.Fatalf("flatten orders %+v %v", orders, errs)
	}
	for _, s := range SendAll(context.Background(), d.c, d.ids, orders) {
		if s.Err != nil || !s.Order.ReduceOnly {
			t.Fatalf("%+v", s)
		}
	}
	for _, sym := range []string{"PERP_ETH_USDT", "PERP_BTC_USDT", "PERP_SOL_USDT"} {
		if h := d.holding(t, sym); !h.IsZero() {
			t.Errorf("%s: %s after flatten", sym, h)
		}
	}
}

// A spot close sells the free balance of the base token: a plain sell,
// not reduce-only, and the frozen part stays.
func TestSpotClose(t *testing.T) {
	d := newDesk(t)
	ctx := context.Background()
	sym := "SPOT_ETH_USDT"
	free := func() decimal.Decimal {
		hs, err := d.c.HoldingV2(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			if h.Token == "ETH" {
				return h.Holding.Sub(h.Frozen)
			}
		}
		return decimal.Zero
	}
	d.market(t, sym, venue.Buy, "2")
	r := d.rule(t, sym)
	has := free()
	o, err := CloseOrder(Close{Symbol: sym, Holding: has, Type: trade.Market, Rule: r})
	if err != nil {
		t.Fatal(err)
	}
	before := len(d.wire())
	d.send(t, o)
	if w := d.wire()[before]; strings.Contains(w, "reduce_only") || !strings.Contains(w, "side=SELL") {
		t.Fatalf("spot close on the wire %q", w)
	}
	if left := free(); left.GreaterThanOrEqual(r.BaseMin) && !r.BaseMin.IsZero() || !left.Equal(has.Sub(o.Quantity)) {
		t.Fatalf("free ETH %s after selling %s of %s", left, o.Quantity, has)
	}
}

// resting places a LIMIT buy well below the best bid (it rests) and
// returns its id.
func (d *desk) resting(t *testing.T, sym string, qty string) (int64, trade.Order, trade.Book) {
	t.Helper()
	r, book := d.rule(t, sym), d.book(t, sym)
	o := trade.Order{Symbol: sym, Side: trade.Buy, Type: trade.Limit, Quantity: dec(qty),
		Price: r.AlignPrice(book.BestBid.Mul(dec("0.98")), trade.Down)}
	return int64(d.send(t, o).Ack.OrderID), o, book
}

func amend(d *desk, v Venue, sym string, id int64, n trade.Order) AmendResult {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return AmendOrder(ctx, v, Amend{Symbol: sym, OrderID: id, New: n}, d.ids, 5*time.Millisecond)
}

// Amending price, then quantity: the old order is cancelled, one new
// order rests with the new values, never two.
func TestAmendPriceAndQuantity(t *testing.T) {
	d := newDesk(t)
	sym := "PERP_ETH_USDT"
	id, o, _ := d.resting(t, sym, "1")
	r := d.rule(t, sym)
	o.Price = r.StepPrice(o.Price, -5)
	res := amend(d, d.c, sym, id, o)
	if !res.Placed() || res.Final != "CANCELLED" {
		t.Fatalf("amend price: %+v", res)
	}
	open := d.open(t, sym)
	if len(open) != 1 || !open[0].Price.Decimal.Equal(o.Price) || int64(open[0].OrderID) != int64(res.Ack.OrderID) {
		t.Fatalf("after amending the price: %+v", open)
	}
	o.Quantity = dec("2.5")
	res = amend(d, d.c, sym, int64(res.Ack.OrderID), o)
	open = d.open(t, sym)
	if !res.Placed() || len(open) != 1 || !open[0].Quantity.Decimal.Equal(dec("2.5")) {
		t.Fatalf("amend quantity: %+v; open %+v", res, open)
	}
	if s := res.String(); !strings.Contains(s, "CANCELLED") || !strings.Contains(s, "placed") {
		t.Fatalf("the report names both halves: %q", s)
	}
}

// The cancel half failing (the order is already gone): nothing new is
// sent, nothing rests.
func TestAmendCancelFails(t *testing.T) {
	d := newDesk(t)
	sym := "PERP_ETH_USDT"
	id, o, _ := d.resting(t, sym, "1")
	if err := d.c.CancelOrder(context.Background(), sym, id); err != nil {
		t.Fatal(err)
	}
	before := len(d.wire())
	res := amend(d, d.c, sym, id, o)
	if res.CancelErr == nil || res.Placed() || len(d.wire()) != before || len(d.open(t, sym)) != 0 {
		t.Fatalf("amend of a cancelled order: %+v; orders sent %d", res, len(d.wire())-before)
	}
	if !strings.Contains(res.String(), "cancel failed") {
		t.Fatal(res.String())
	}
}

// unconfirmed is a venue whose cancel is accepted but whose order reads
// keep saying NEW (a slow venue): the amend must not send a new order.
type unconfirmed struct{ *venue.Client }

func (u unconfirmed) CancelOrder(context.Context, string, int64) error { return nil }

// The cancel accepted but never confirmed: no new order, the old one
// untouched.
func TestAmendCancelNotConfirmed(t *testing.T) {
	d := newDesk(t)
	sym := "PERP_ETH_USDT"
	id, o, _ := d.resting(t, sym, "1")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	before := len(d.wire())
	o.Price = d.rule(t, sym).StepPrice(o.Price, -1)
	res := AmendOrder(ctx, unconfirmed{d.c}, Amend{Symbol: sym, OrderID: id, New: o}, d.ids, 5*time.Millisecond)
	open := d.open(t, sym)
	if res.CancelErr == nil || len(d.wire()) != before || len(open) != 1 || int64(open[0].OrderID) != id {
		t.Fatalf("%+v; sent %d; open %+v", res, len(d.wire())-before, open)
	}
}

// The new half failing (a price the venue refuses): the old order is
// cancelled, nothing rests, and the report says so.
func TestAmendNewOrderFails(t *testing.T) {
	d := newDesk(t)
	sym := "PERP_ETH_USDT"
	id, o, book := d.resting(t, sym, "1")
	o.Price = d.rule(t, sym).AlignPrice(book.BestAsk.Mul(dec("3")), trade.Down) // far outside the price range
	res := amend(d, d.c, sym, id, o)
	if !res.Cancelled || res.PlaceErr == nil || res.Placed() || len(d.open(t, sym)) != 0 {
		t.Fatalf("%+v; open %+v", res, d.open(t, sym))
	}
	if s := res.String(); !strings.Contains(s, "CANCELLED") || !strings.Contains(s, "refused") {
		t.Fatal(s)
	}
}

// After a partial fill, the amended order carries the total the user
// asked less what the old order filled: fills of both never exceed it.
func TestAmendAfterPartialFill(t *testing.T) {
	d := newDesk(t)
	sym := "PERP_ETH_USDT"
	r, book := d.rule(t, sym), d.book(t, sym)
	price := r.StepPrice(book.BestBid, 1) // the best bid, alone at its level
	if !price.LessThan(book.BestAsk) {
		t.Fatalf("no room in the spread: %+v", book)
	}
	id := int64(d.send(t, trade.Order{Symbol: sym, Side: trade.Buy, Type: trade.Limit, Price: price, Quantity: dec("2")}).Ack.OrderID)
	other := venue.NewClient(d.inst.Endpoints, d.inst.SubCredentials, venue.WithLimiter(nil))
	if err := other.SetAccountMode(context.Background(), venue.Futures); err != nil {
		t.Fatal(err)
	}
	if _, err := other.SendOrder(context.Background(), venue.OrderRequest{Symbol: sym, Type: venue.Limit, Side: venue.Sell,
		Price: price, Quantity: dec("0.5")}); err != nil {
		t.Fatal(err)
	}
	res := amend(d, d.c, sym, id, trade.Order{Symbol: sym, Side: trade.Buy, Type: trade.Limit, Price: r.StepPrice(price, -1), Quantity: dec("3")})
	if !res.Placed() || !res.Filled.Equal(dec("0.5")) || !res.Sent.Quantity.Equal(dec("2.5")) {
		t.Fatalf("%+v", res)
	}
	if open := d.open(t, sym); len(open) != 1 || !open[0].Quantity.Decimal.Equal(dec("2.5")) {
		t.Fatalf("open after the amend %+v", open)
	}
	if !strings.Contains(res.String(), "0.5 filled") {
		t.Fatal(res.String())
	}
}
