package trade

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/venue"
)

// simVenue starts the simulated venue on loopback for one test.
func simVenue(t *testing.T) *sim.Instance {
	t.Helper()
	return simtest.Start(t, sim.Options{Seed: 7, NoRateLimits: true, Living: sim.LivingOptions{NoMarket: true}})
}

// newClient talks to the simulator without the client-side rate limiter
// (the simulator runs with NoRateLimits): the tests send many orders fast.
func newClient(inst *sim.Instance, creds venue.Credentials) *venue.Client {
	return venue.NewClient(inst.Endpoints, creds, venue.WithLimiter(nil))
}

// envFor reads what the form validates against from the venue itself:
// the symbol rule, the book's best prices, and for a PURE_SPOT account
// its holding.
func envFor(t *testing.T, c *venue.Client, symbol string) Env {
	t.Helper()
	ctx := context.Background()
	rule, err := c.SymbolRule(ctx, symbol)
	if err != nil {
		t.Fatal(err)
	}
	book, err := c.OrderBook(ctx, symbol, 1)
	if err != nil || len(book.Bids) == 0 || len(book.Asks) == 0 {
		t.Fatalf("book of %s: %v %+v", symbol, err, book)
	}
	env := Env{Rule: RuleOf(rule), Book: Book{BestBid: book.Bids[0].Price, BestAsk: book.Asks[0].Price}, OpenClientIDs: map[int64]bool{}}
	info, err := c.AccountInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	env.Funds.Mode = string(info.Application.AccountMode)
	hold, err := c.HoldingV2(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	env.Funds.Known = true
	for _, h := range hold {
		switch h.Token {
		case Base(symbol):
			env.Funds.BaseAvail = h.Holding.Sub(h.Frozen)
		case Quote(symbol):
			env.Funds.QuoteAvail = h.Holding.Sub(h.Frozen)
		}
	}
	return env
}

// Every order acceptance rule: the client refuses the order with the code
// the venue answers for it, and the venue (sent the same order anyway)
// answers exactly that code.
func TestValidationMatchesTheVenue(t *testing.T) {
	inst := simVenue(t)
	main := newClient(inst, inst.Credentials)
	sub := newClient(inst, inst.SubCredentials)
	const sym = "SPOT_BTC_USDT"
	env := envFor(t, main, sym)
	subEnv := envFor(t, sub, sym)
	perp := envFor(t, main, "PERP_BTC_USDT")
	perp.PositionKnown = true // none yet
	bid, ask := env.Book.BestBid, env.Book.BestAsk
	lim := func(side Side, price, qty decimal.Decimal) Order {
		return Order{Symbol: sym, Side: side, Type: Limit, Price: price, Quantity: qty}
	}
	q := d("0.001")
	cases := []struct {
		name   string
		client *venue.Client
		env    Env
		order  Order
		code   venue.Code
	}{
		{"price tick", main, env, lim(Buy, bid.Sub(d("0.005")), q), venue.CodePriceFilter},
		{"price above quote_max", main, env, lim(Buy, d("500000.01"), q), venue.CodePriceFilter},
		{"price below quote_min", main, env, lim(Sell, d("0.99"), q), venue.CodePriceFilter},
		{"BUY above best ask × (1 + price_range)", main, env, lim(Buy, env.Rule.AlignPrice(ask.Mul(d("1.2")), Down), q), venue.CodePercentageFilter},
		{"SELL below best bid × (1 - price_range)", main, env, lim(Sell, env.Rule.AlignPrice(bid.Mul(d("0.8")), Up), q), venue.CodePercentageFilter},
		{"quantity step", main, env, lim(Buy, bid, d("0.000015")), venue.CodeSizeFilter},
		{"quantity above base_max", main, env, lim(Buy, bid, d("51")), venue.CodeSizeFilter},
		{"visible quantity step", main, env, withVisible(lim(Buy, bid, q), "0.0000015"), venue.CodeSizeFilter},
		{"min notional", main, env, lim(Buy, d("1.01"), d("0.00001")), venue.CodeMinNotional},
		{"MARKET min notional at the best ask", main, env, Order{Symbol: sym, Side: Buy, Type: Market, Quantity: d("0.00001")}, venue.CodeMinNotional},
		{"MARKET amount min notional", main, env, Order{Symbol: sym, Side: Buy, Type: Market, Amount: d("1")}, venue.CodeMinNotional},
		{"spot BUY beyond the holding", sub, subEnv, lim(Buy, bid, env.Rule.AlignQty(subEnv.Funds.QuoteAvail.Div(bid).Add(d("0.01")), Down)), venue.CodeRiskTooHigh},
		{"spot SELL beyond the holding", sub, subEnv, lim(Sell, ask, subEnv.Funds.BaseAvail.Add(d("0.001"))), venue.CodeRiskTooHigh},
		{"spot MARKET BUY reserves at its worst price", sub, subEnv, Order{Symbol: sym, Side: Buy, Type: Market,
			Quantity: env.Rule.AlignQty(subEnv.Funds.QuoteAvail.Div(ask.Mul(d("1.05"))), Down)}, venue.CodeRiskTooHigh},
		{"reduce only without a position", main, perp, Order{Symbol: "PERP_BTC_USDT", Side: Sell, Type: Limit,
			Price: perp.Book.BestAsk, Quantity: d("0.001"), ReduceOnly: true}, venue.CodeRiskTooHigh},
		{"perpetual on a spot account", sub, func() Env { e := subEnv; e.Rule.Symbol = "PERP_BTC_USDT"; return e }(),
			Order{Symbol: "PERP_BTC_USDT", Side: Buy, Type: Limit, Price: d("97000.0"), Quantity: d("0.001")}, venue.CodeRiskTooHigh},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := Validate(c.order, c.env)
			if ps.OK() {
				t.Fatalf("client accepted %+v", c.order)
			}
			if ps[0].Code != c.code {
				t.Errorf("client: code %d (%v), want %d", ps[0].Code, ps, c.code)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := c.client.SendOrder(ctx, Request(c.order))
			var ae *venue.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("venue: %v, want code %d", err, c.code)
			}
			if ae.Code != c.code {
				t.Errorf("venue: code %d (%s), want %d", ae.Code, ae.Message, c.code)
			}
			if Explain(err) == "" {
				t.Error("no explanation")
			}
		})
	}
}

// A client order id in use by an open order: -1007 on both sides; the
// nearest free id is accepted.
func TestDuplicateClientIDMatchesTheVenue(t *testing.T) {
	inst := simVenue(t)
	c := newClient(inst, inst.Credentials)
	const sym = "SPOT_ETH_USDT"
	env := envFor(t, c, sym)
	ctx := context.Background()
	o := Order{Symbol: sym, Side: Buy, Type: Limit, Price: env.Rule.AlignPrice(env.Book.BestBid.Mul(d("0.95")), Down),
		Quantity: d("0.01"), ClientOrderID: 777}
	if ps := Validate(o, env); !ps.OK() {
		t.Fatalf("first order refused: %v", ps)
	}
	if _, err := c.SendOrder(ctx, Request(o)); err != nil {
		t.Fatal(err)
	}
	env.OpenClientIDs[777] = true
	p, bad := Validate(o, env).For(FieldClientOrderID)
	if !bad || p.Code != venue.CodeDuplicateRequest {
		t.Fatalf("client: %v", p)
	}
	_, err := c.SendOrder(ctx, Request(o))
	var ae *venue.APIError
	if !errors.As(err, &ae) || ae.Code != venue.CodeDuplicateRequest {
		t.Fatalf("venue: %v", err)
	}
	o.ClientOrderID = p.Nearest.IntPart()
	if _, err := c.SendOrder(ctx, Request(o)); err != nil {
		t.Fatalf("nearest free id %d refused: %v", o.ClientOrderID, err)
	}
}

// Orders the client accepts, the venue accepts: every type, by quantity
// and by amount, with visible quantity and tag.
func TestValidOrdersAccepted(t *testing.T) {
	inst := simVenue(t)
	c := newClient(inst, inst.Credentials)
	const sym = "SPOT_SOL_USDT"
	env := envFor(t, c, sym)
	far := env.Rule.AlignPrice(env.Book.BestBid.Mul(d("0.95")), Down)
	orders := []Order{
		{Symbol: sym, Side: Buy, Type: Limit, Price: far, Quantity: d("0.1"), Visible: d("0.05"), HasVisible: true, Tag: "t1", ClientOrderID: 1},
		{Symbol: sym, Side: Buy, Type: PostOnly, Price: far, Quantity: d("0.1")},
		{Symbol: sym, Side: Buy, Type: IOC, Price: far, Quantity: d("0.1")},
		{Symbol: sym, Side: Buy, Type: FOK, Price: far, Quantity: d("0.1")},
		{Symbol: sym, Side: Buy, Type: Market, Quantity: d("0.1")},
		{Symbol: sym, Side: Sell, Type: Market, Amount: d("20")},
		{Symbol: sym, Side: Sell, Type: Ask, Price: env.Book.BestAsk, Quantity: d("0.1")},
		{Symbol: sym, Side: Buy, Type: Bid, Price: env.Book.BestBid, Amount: d("30")},
	}
	for _, o := range orders {
		if ps := Validate(o, env); !ps.OK() {
			t.Errorf("%s %s refused by the client: %v", o.Side, o.Type, ps)
			continue
		}
		if _, err := c.SendOrder(context.Background(), Request(o)); err != nil {
			t.Errorf("%s %s refused by the venue: %v", o.Side, o.Type, err)
		}
	}
}
