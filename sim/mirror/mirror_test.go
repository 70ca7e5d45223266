package mirror_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/internal/testkit"
	"tradedeck/sim"
	"tradedeck/sim/exchange"
	"tradedeck/sim/market"
	"tradedeck/venue"
)

const sym = "SPOT_BTC_USDT"

// upstreamCounter counts on the upstream what reaches it: every request,
// signed ones, and private stream connections.
type upstreamCounter struct {
	requests, signed, private atomic.Int64
}

func (c *upstreamCounter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.requests.Add(1)
		if r.Header.Get(venue.HeaderKey) != "" || r.Header.Get(venue.HeaderSignature) != "" {
			c.signed.Add(1)
		}
		if strings.HasPrefix(r.URL.Path, "/v2/ws/private") {
			c.private.Add(1)
		}
		next.ServeHTTP(w, r)
	})
}

type venues struct {
	up, paper *sim.Instance
	count     *upstreamCounter
	client    *venue.Client // the paper venue's demo account
	upClient  *venue.Client // public reads of the upstream (counted too, harmless)
}

// startPair runs a busy upstream venue and a mirror of it, both on loopback.
func startPair(t *testing.T) *venues {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cnt := &upstreamCounter{}
	up, err := sim.Start(ctx, sim.Options{Seed: 11, Living: sim.LivingOptions{Rate: market.RateBusy},
		Middleware: []func(http.Handler) http.Handler{cnt.wrap}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	logs := &testkit.SyncBuffer{}
	t.Cleanup(func() { // after the paper venue closed: its log is complete
		if t.Failed() {
			t.Logf("paper venue's log:\n%s", logs.String())
		}
	})
	paper, err := sim.Start(ctx, sim.Options{Seed: 2, Mirror: &sim.MirrorOptions{Upstream: up.Endpoints,
		Symbols: []string{sym, "PERP_BTC_USDT"}}, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { paper.Close() })
	return &venues{up: up, paper: paper, count: cnt,
		client: venue.NewClient(paper.Endpoints, paper.Credentials), upClient: venue.NewClient(up.Endpoints, venue.Credentials{})}
}

// waitFor polls cond until it holds; the deadline only bounds a hang.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// quiet stops the upstream's synthetic traders and waits until the paper
// venue's book is the upstream's, level for level.
func (v *venues) quiet(t *testing.T) venue.OrderBook {
	t.Helper()
	v.up.Market.SetRate(0)
	// a participant may be in the middle of a batch: quiet means no action
	// for longer than the market's idle tick (100 ms)
	for n := v.up.Market.Actions(); ; {
		time.Sleep(300 * time.Millisecond)
		m := v.up.Market.Actions()
		if m == n {
			break
		}
		n = m
	}
	var ob venue.OrderBook
	var last string
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("books last compared:\n%s\nmirror counters %+v", last, v.paper.Mirror.Counters())
		}
	})
	waitFor(t, "the paper book to equal the upstream's", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		u, err1 := v.up.Exchange.Depth(sym, 20)
		p, err2 := v.paper.Exchange.Depth(sym, 20)
		if err1 != nil || err2 != nil || !sameBook(u, p) {
			last = fmt.Sprintf("upstream %v %v\npaper    %v %v", u, err1, p, err2)
			return false
		}
		var err error
		ob, err = v.upClient.OrderBook(ctx, sym, 20)
		return err == nil
	})
	return ob
}

func sameBook(a, b exchange.Book) bool {
	if len(a.Asks) != len(b.Asks) || len(a.Bids) != len(b.Bids) || len(a.Asks) == 0 || len(a.Bids) == 0 {
		return false
	}
	for i := range a.Asks {
		if !a.Asks[i].Price.Equal(b.Asks[i].Price) || !a.Asks[i].Quantity.Equal(b.Asks[i].Quantity) {
			return false
		}
	}
	for i := range a.Bids {
		if !a.Bids[i].Price.Equal(b.Bids[i].Price) || !a.Bids[i].Quantity.Equal(b.Bids[i].Quantity) {
			return false
		}
	}
	return true
}

func (v *venues) holding(t *testing.T, token string) decimal.Decimal {
	t.Helper()
	hs, err := v.client.HoldingV2(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		if h.Token == token {
			return h.Holding
		}
	}
	return decimal.Zero
}

var (
	takerRate = decimal.RequireFromString("0.0005") // DEMO_MAIN taker_fee_bps 5
	makerRate = decimal.RequireFromString("0.0002") // maker_fee_bps 2
)

// TestCrossingBuyWalksTheUpstreamBook: a buy crossing the spread fills at
// the upstream's ask levels as they stood at arrival, takes nothing twice,
// and moves balances by exactly its fills and taker fees; the upstream saw
// public reads only.
func TestCrossingBuyWalksTheUpstreamBook(t *testing.T) {
	v := startPair(t)
	waitFor(t, "upstream trades to reach the paper venue", func() bool { return v.paper.Mirror.Counters().Trades > 20 })
	ob := v.quiet(t)
	ctx := context.Background()
	qty := ob.Asks[0].Quantity.Add(ob.Asks[1].Quantity.Div(decimal.NewFromInt(2)).Truncate(5))
	wantValue, left := decimal.Zero, qty
	for _, l := range ob.Asks {
		take := decimal.Min(left, l.Quantity)
		wantValue, left = wantValue.Add(take.Mul(l.Price)), left.Sub(take)
		if left.IsZero() {
			break
		}
	}
	btc0, usdt0 := v.holding(t, "BTC"), v.holding(t, "USDT")
	ack, err := v.client.SendOrder(ctx, venue.OrderRequest{Symbol: sym, Type: venue.Market, Side: venue.Buy, Quantity: qty})
	if err != nil {
		t.Fatal(err)
	}
	fills, err := v.client.OrderTrades(ctx, ack.OrderID.Int64())
	if err != nil {
		t.Fatal(err)
	}
	gotQty, gotValue, fees := decimal.Zero, decimal.Zero, decimal.Zero
	for _, f := range fills {
		gotQty, gotValue = gotQty.Add(f.ExecutedQuantity), gotValue.Add(f.ExecutedQuantity.Mul(f.ExecutedPrice))
		if fee := f.ExecutedQuantity.Mul(takerRate); !f.Fee.Equal(fee) || f.FeeAsset != "BTC" {
			t.Fatalf("fill %+v: fee want %s BTC", f, fee)
		}
		fees = fees.Add(f.Fee)
	}
	if !gotQty.Equal(qty) || !gotValue.Equal(wantValue) {
		t.Fatalf("filled %s for %s, want %s for %s (walking the upstream asks %v)", gotQty, gotValue, qty, wantValue, ob.Asks[:3])
	}
	if d := v.holding(t, "BTC").Sub(btc0); !d.Equal(qty.Sub(fees)) {
		t.Fatalf("BTC moved by %s, want %s", d, qty.Sub(fees))
	}
	if d := usdt0.Sub(v.holding(t, "USDT")); !d.Equal(wantValue) {
		t.Fatalf("USDT moved by %s, want %s", d, wantValue)
	}
	// the level taken stays taken: the paper book's best ask is now the upstream's second
	pb, _ := v.paper.Exchange.Depth(sym, 5)
	ub, _ := v.up.Exchange.Depth(sym, 5)
	if !ub.Asks[0].Price.Equal(ob.Asks[0].Price) || !pb.Asks[0].Price.Equal(ob.Asks[1].Price) {
		t.Fatalf("after the buy: paper best ask %v, upstream %v (before %v)", pb.Asks[0], ub.Asks[0], ob.Asks[0])
	}
	// mark and the funding estimate of the perpetual are the upstream's
	waitFor(t, "the upstream's mark and funding estimate", func() bool {
		um, _, err1 := v.up.Exchange.MarkIndex("PERP_BTC_USDT")
		pm, _, err2 := v.paper.Exchange.MarkIndex("PERP_BTC_USDT")
		uf, err3 := v.up.Exchange.FundingRateOf("PERP_BTC_USDT")
		pf, err4 := v.paper.Exchange.FundingRateOf("PERP_BTC_USDT")
		return err1 == nil && err2 == nil && err3 == nil && err4 == nil && um.Equal(pm) && uf.EstRate.Equal(pf.EstRate)
	})
	if n, s, p := v.count.requests.Load(), v.count.signed.Load(), v.count.private.Load(); s != 0 || p != 0 || n == 0 {
		t.Fatalf("upstream saw %d requests, %d signed, %d private stream connections", n, s, p)
	}
}

// TestRestingBidWaitsForItsQueue: a bid resting at the upstream's best bid
// fills only after the upstream trades at that price exceed the size queued
// ahead of it when it came to rest (later arrivals upstream queue behind
// it), partially first, at its price with maker fees.
func TestRestingBidWaitsForItsQueue(t *testing.T) {
	v := startPair(t)
	ob := v.quiet(t)
	ctx := context.Background()
	bid, ahead := ob.Bids[0].Price, ob.Bids[0].Quantity
	qty := decimal.RequireFromString("0.002")
	btc0, usdt0 := v.holding(t, "BTC"), v.holding(t, "USDT")
	ack, err := v.client.SendOrder(ctx, venue.OrderRequest{Symbol: sym, Type: venue.Limit, Side: venue.Buy, Price: bid, Quantity: qty})
	if err != nil {
		t.Fatal(err)
	}
	id := ack.OrderID.Int64()
	waitFor(t, "the paper venue to queue the bid", func() bool {
		a, ok := v.paper.Mirror.QueueAhead(ctx, id)
		return ok && a.Equal(ahead)
	})
	// others join upstream behind it; then the upstream trades at the bid
	upX := v.up.Exchange.InternalAccount("test-upstream")
	if _, err := v.up.Exchange.PlaceOrder(upX, limit(exchange.Buy, bid, decimal.RequireFromString("0.5"))); err != nil {
		t.Fatal(err)
	}
	sell := func(q decimal.Decimal) {
		t.Helper()
		trades := v.paper.Mirror.Counters().Trades
		if _, err := v.up.Exchange.PlaceOrder(upX, ioc(exchange.Sell, bid, q)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the upstream trade to reach the paper venue", func() bool { return v.paper.Mirror.Counters().Trades > trades })
	}
	executed := func() decimal.Decimal {
		o, err := v.client.GetOrder(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return o.Executed
	}
	half := ahead.Div(decimal.NewFromInt(2)).Truncate(5)
	sell(half)
	waitFor(t, "the queue ahead to shrink by the trade", func() bool {
		a, ok := v.paper.Mirror.QueueAhead(ctx, id)
		return ok && a.Equal(ahead.Sub(half))
	})
	if e := executed(); !e.IsZero() {
		t.Fatalf("filled %s with %s still queued ahead", e, ahead.Sub(half))
	}
	sell(ahead.Sub(half).Add(decimal.RequireFromString("0.001"))) // passes the queue by 0.001
	waitFor(t, "the partial fill", func() bool { return executed().Equal(decimal.RequireFromString("0.001")) })
	sell(decimal.RequireFromString("0.004")) // more than the rest
	waitFor(t, "the fill", func() bool { return executed().Equal(qty) })
	fee := qty.Mul(makerRate)
	if d := v.holding(t, "BTC").Sub(btc0); !d.Equal(qty.Sub(fee)) {
		t.Fatalf("BTC moved by %s, want %s", d, qty.Sub(fee))
	}
	if d := usdt0.Sub(v.holding(t, "USDT")); !d.Equal(qty.Mul(bid)) {
		t.Fatalf("USDT moved by %s, want %s", d, qty.Mul(bid))
	}
	if s, p := v.count.signed.Load(), v.count.private.Load(); s != 0 || p != 0 {
		t.Fatalf("upstream saw %d signed requests, %d private stream connections", s, p)
	}
}

func limit(side exchange.Side, price, qty decimal.Decimal) exchange.OrderRequest {
	return exchange.OrderRequest{Symbol: sym, Type: exchange.Limit, Side: side, Price: price, HasPrice: true, Quantity: qty, HasQuantity: true}
}

func ioc(side exchange.Side, price, qty decimal.Decimal) exchange.OrderRequest {
	r := limit(side, price, qty)
	r.Type = exchange.IOC
	return r
}
