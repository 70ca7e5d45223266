package trade

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"tradedeck/venue"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// btcRule is the venue's published SPOT_BTC_USDT rule (v1_public_info_symbol).
func btcRule() Rule {
	return Rule{Symbol: "SPOT_BTC_USDT", QuoteMin: d("100"), QuoteMax: d("100000"), QuoteTick: d("0.01"),
		BaseMin: d("0.0001"), BaseMax: d("20"), BaseTick: d("0.0001"), MinNotional: d("10"), PriceRange: d("0.05")}
}

func btcEnv() Env {
	return Env{Rule: btcRule(), Book: Book{BestBid: d("27000.00"), BestAsk: d("27001.00")}}
}

func limit(side Side, price, qty string) Order {
	return Order{Symbol: "SPOT_BTC_USDT", Side: side, Type: Limit, Price: d(price), Quantity: d(qty)}
}

// withVisible is o showing only visible of its quantity (an iceberg).
func withVisible(o Order, visible string) Order {
	o.Visible, o.HasVisible = d(visible), true
	return o
}

func TestValidOrderHasNoProblems(t *testing.T) {
	if ps := Validate(limit(Buy, "27000.50", "0.01"), btcEnv()); !ps.OK() {
		t.Fatalf("valid order refused: %v", ps)
	}
}

// Each acceptance rule: the field, the venue's matching code, the spec's
// words and the nearest valid value.
func TestValidateRules(t *testing.T) {
	spot := btcEnv()
	spot.Funds = Funds{Known: true, Mode: "PURE_SPOT", BaseAvail: d("0.5"), QuoteAvail: d("1000")}
	cases := []struct {
		name    string
		order   Order
		env     Env
		field   Field
		code    venue.Code
		text    string
		nearest string
	}{
		{"tick", limit(Buy, "27012.343", "0.01"), btcEnv(), FieldPrice, venue.CodePriceFilter,
			"price filter: price must be a multiple of tick 0.01 from 100: nearest 27012.34", "27012.34"},
		{"below quote_min", limit(Sell, "99", "0.01"), Env{Rule: btcRule()}, FieldPrice, venue.CodePriceFilter,
			"price must be at least quote_min 100", "100"},
		{"above quote_max", limit(Buy, "100000.01", "0.01"), Env{Rule: btcRule()}, FieldPrice, venue.CodePriceFilter,
			"price must be at most quote_max 100000", "100000"},
		{"buy too far above best ask", limit(Buy, "28400", "0.01"), btcEnv(), FieldPrice, venue.CodePercentageFilter,
			"percentage filter: BUY price must be at most best ask 27001 × (1 + price_range 0.05) = 28351.05", "28351.05"},
		{"sell too far below best bid", limit(Sell, "25000", "0.01"), btcEnv(), FieldPrice, venue.CodePercentageFilter,
			"SELL price must be at least best bid 27000 × (1 - price_range 0.05) = 25650", "25650"},
		{"below base_min", limit(Buy, "27000", "0.00005"), btcEnv(), FieldQuantity, venue.CodeSizeFilter,
			"size filter: quantity must be at least base_min 0.0001", "0.0004"}, // 0.0001 would fail min notional
		{"below base_min without a book", limit(Buy, "200000", "0.00005"), Env{Rule: Rule{BaseMin: d("0.0001"), BaseTick: d("0.0001")}}, FieldQuantity, venue.CodeSizeFilter,
			"quantity must be at least base_min 0.0001", "0.0001"},
		{"above base_max", limit(Buy, "27000", "21"), btcEnv(), FieldQuantity, venue.CodeSizeFilter,
			"quantity must be at most base_max 20", "20"},
		{"step", limit(Buy, "27000", "0.01234"), btcEnv(), FieldQuantity, venue.CodeSizeFilter,
			"quantity must be a multiple of step 0.0001 from 0.0001", "0.0123"},
		{"min notional", limit(Buy, "27000", "0.0003"), btcEnv(), FieldQuantity, venue.CodeMinNotional,
			"min notional filter: price × quantity = 8.1 must be greater than min_notional 10", "0.0004"},
		{"spot buy beyond holding", limit(Buy, "27000", "0.05"), spot, FieldQuantity, venue.CodeRiskTooHigh,
			"risk exposure filter: BUY needs 1350 USDT, available 1000", "0.037"},
		{"spot sell beyond holding", limit(Sell, "27000", "0.6"), spot, FieldQuantity, venue.CodeRiskTooHigh,
			"SELL needs 0.6 BTC, available 0.5", "0.5"},
		{"price missing", limit(Buy, "0", "0.01"), btcEnv(), FieldPrice, venue.CodeInvalidParam,
			"price is required for LIMIT orders", ""},
		{"amount on LIMIT", Order{Symbol: "SPOT_BTC_USDT", Side: Buy, Type: Limit, Price: d("27000"), Amount: d("100")}, btcEnv(),
			FieldAmount, venue.CodeInvalidParam, "amount (quote size) is only for MARKET, ASK and BID", ""},
		{"quantity and amount", Order{Symbol: "SPOT_BTC_USDT", Side: Buy, Type: Market, Quantity: d("0.01"), Amount: d("100")}, btcEnv(),
			FieldAmount, venue.CodeInvalidParam, "either quantity or amount, not both", ""},
		{"amount precision", Order{Symbol: "SPOT_BTC_USDT", Side: Buy, Type: Market, Amount: d("100.123456789")}, btcEnv(),
			FieldAmount, venue.CodeInvalidParam, "at most 8 digits", "100.12345678"},
		{"amount min notional", Order{Symbol: "SPOT_BTC_USDT", Side: Buy, Type: Market, Amount: d("10")}, btcEnv(),
			FieldAmount, venue.CodeMinNotional, "amount 10 must be greater than min_notional 10", "10.01"},
		{"spot market buy amount beyond holding", Order{Symbol: "SPOT_BTC_USDT", Side: Buy, Type: Market, Amount: d("1500")}, spot,
			FieldAmount, venue.CodeRiskTooHigh, "BUY needs 1500 USDT, available 1000", "1000"},
		{"visible above quantity", withVisible(limit(Buy, "27000", "0.01"), "0.02"), btcEnv(), FieldVisible, venue.CodeInvalidParam, "must not exceed the order quantity 0.01", "0.01"},
		{"visible off the step", withVisible(limit(Buy, "27000", "0.01"), "0.00555"), btcEnv(), FieldVisible, venue.CodeSizeFilter, "visible quantity must be a multiple of step 0.0001", "0.0055"},
		{"perp needs futures mode", Order{Symbol: "PERP_BTC_USDT", Side: Buy, Type: Limit, Price: d("27000"), Quantity: d("0.01")},
			func() Env { e := btcEnv(); e.Funds = Funds{Known: true, Mode: "MARGIN"}; return e }(),
			FieldOrder, venue.CodeRiskTooHigh, "perpetual futures need account mode FUTURES (now MARGIN)", ""},
		{"spot market buy reserves at the worst price", Order{Symbol: "SPOT_BTC_USDT", Side: Buy, Type: Market, Quantity: d("0.036")}, spot,
			FieldQuantity, venue.CodeRiskTooHigh, "BUY needs 1020.6378 USDT, available 1000", "0.0352"},
		{"reduce only on spot", func() Order { o := limit(Sell, "27000", "0.01"); o.ReduceOnly = true; return o }(), btcEnv(),
			FieldOrder, venue.CodeInvalidParam, "reduce only is for perpetual symbols", ""},
		{"reduce only without a position", Order{Symbol: "PERP_BTC_USDT", Side: Sell, Type: Limit, Price: d("27000"), Quantity: d("0.01"), ReduceOnly: true},
			func() Env { e := btcEnv(); e.PositionKnown = true; return e }(),
			FieldOrder, venue.CodeRiskTooHigh, "reduce-only SELL would increase the position 0", ""},
		{"reduce only larger than the short", Order{Symbol: "PERP_BTC_USDT", Side: Buy, Type: Limit, Price: d("27000"), Quantity: d("0.5"), ReduceOnly: true},
			func() Env { e := btcEnv(); e.Position, e.PositionKnown = d("-0.2"), true; return e }(),
			FieldQuantity, venue.CodeRiskTooHigh, "reduce-only BUY of 0.5 is larger than the position -0.2", "0.2"},
		{"visible negative", withVisible(limit(Buy, "27000", "0.01"), "-1"), btcEnv(), FieldVisible, venue.CodeInvalidParam, "must not be negative", "0"},
		{"client id in use", func() Order {
			o := limit(Buy, "27000", "0.01")
			o.ClientOrderID = 7
			return o
		}(), func() Env { e := btcEnv(); e.OpenClientIDs = map[int64]bool{7: true, 8: true}; return e }(),
			FieldClientOrderID, venue.CodeDuplicateRequest, "client order id 7 is used by an open order", "9"},
		{"tag", func() Order { o := limit(Buy, "27000", "0.01"); o.Tag = "a b"; return o }(), btcEnv(),
			FieldTag, venue.CodeInvalidParam, `not ' '`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := Validate(c.order, c.env)
			if ps.OK() {
				t.Fatalf("accepted")
			}
			p, ok := ps.For(c.field)
			if !ok {
				t.Fatalf("no problem on %v: %v", c.field, ps)
			}
			if p.Code != c.code {
				t.Errorf("code %d, want %d (%v)", p.Code, c.code, p)
			}
			if !strings.Contains(p.Error(), c.text) {
				t.Errorf("message %q does not contain %q", p.Error(), c.text)
			}
			if c.nearest == "" {
				if p.HasNearest {
					t.Errorf("unexpected nearest %s", p.Nearest)
				}
				return
			}
			if !p.HasNearest || !p.Nearest.Equal(d(c.nearest)) {
				t.Errorf("nearest %s (has %v), want %s", p.Nearest, p.HasNearest, c.nearest)
			}
			// The nearest value itself passes the rule.
			fixedOrder := c.order
			switch c.field {
			case FieldPrice:
				fixedOrder.Price = p.Nearest
			case FieldQuantity:
				fixedOrder.Quantity = p.Nearest
			case FieldAmount:
				fixedOrder.Amount = p.Nearest
			case FieldVisible:
				fixedOrder.Visible = p.Nearest
			case FieldClientOrderID:
				fixedOrder.ClientOrderID = p.Nearest.IntPart()
			}
			if q, bad := Validate(fixedOrder, c.env).For(c.field); bad {
				t.Errorf("nearest value %s still refused: %v", p.Nearest, q)
			}
		})
	}
}

func TestFundsOnlyCheckedForPureSpot(t *testing.T) {
	env := btcEnv()
	env.Funds = Funds{Known: true, Mode: "MARGIN", QuoteAvail: d("1")}
	if ps := Validate(limit(Buy, "27000", "1"), env); !ps.OK() {
		t.Fatalf("margin account refused client-side: %v", ps)
	}
}

func TestVenuePricedTypes(t *testing.T) {
	env := btcEnv()
	for _, typ := range []Type{Market, Ask, Bid} {
		o := Order{Symbol: "SPOT_BTC_USDT", Side: Sell, Type: typ, Quantity: d("0.01")}
		if ps := Validate(o, env); !ps.OK() {
			t.Errorf("%s by quantity refused: %v", typ, ps)
		}
		o.Quantity, o.Amount = decimal.Zero, d("50")
		if ps := Validate(o, env); !ps.OK() {
			t.Errorf("%s by amount refused: %v", typ, ps)
		}
	}
	// MARKET BUY 0.0003 at best ask 27001 = 8.1003: under min notional.
	o := Order{Symbol: "SPOT_BTC_USDT", Side: Buy, Type: Market, Quantity: d("0.0003")}
	if p, bad := Validate(o, env).For(FieldQuantity); !bad || p.Code != venue.CodeMinNotional {
		t.Errorf("market min notional not checked at best ask: %v", p)
	}
}

// On the grid a step moves by ticks within the rule's bounds. Off the
// grid a zero step snaps to the nearest tick; a step snaps in its own
// direction first, then moves the rest.
func TestStepPrice(t *testing.T) {
	r := btcRule()
	for _, c := range []struct {
		p    string
		n    int
		want string
	}{
		{"27000.00", 1, "27000.01"},
		{"27000.00", -3, "26999.97"},
		{"100.00", -1, "100"},   // quote_min holds
		{"100000", 1, "100000"}, // quote_max holds
		{"27000.005", 1, "27000.01"},
		{"27000.005", -1, "27000.00"},
		{"27000.004", 0, "27000.00"},
		{"27000.006", 0, "27000.01"},
		{"27000.004", 1, "27000.01"},
		{"27000.006", -1, "27000.00"},
		{"27000.004", -1, "27000.00"},
		{"27000.006", 2, "27000.02"},
		{"27000.004", -2, "26999.99"},
	} {
		if got := r.StepPrice(d(c.p), c.n); !got.Equal(d(c.want)) {
			t.Errorf("StepPrice(%s, %d) = %s, want %s", c.p, c.n, got, c.want)
		}
	}
	if got := r.StepQty(d("0.0001"), -1); !got.Equal(d("0.0001")) {
		t.Errorf("StepQty below min = %s", got)
	}
	// A perpetual's quote_min of 0 never yields a zero price.
	perp := Rule{QuoteTick: d("0.1")}
	if got := perp.StepPrice(d("0.1"), -1); !got.Equal(d("0.1")) {
		t.Errorf("perp price stepped to %s", got)
	}
}

func TestPreview(t *testing.T) {
	fees := Fees{MakerBps: d("2"), TakerBps: d("5")}
	b := Book{BestBid: d("27000"), BestAsk: d("27002")}
	// Resting BUY: maker, fee in base.
	pv := MakePreview(limit(Buy, "26730.99", "0.1"), b, fees)
	if !pv.Notional.Equal(d("2673.099")) || pv.Taker || !pv.Fee.Equal(d("0.00002")) || pv.FeeAsset != "BTC" {
		t.Fatalf("maker buy preview: %+v", pv)
	}
	if got := pv.String(); got != "notional 2673.10 USDT · fee ≈ 0.00002 BTC (maker 2 bps) · -1.00% from mid" {
		t.Errorf("line %q", got)
	}
	// Crossing SELL: taker, fee in quote.
	pv = MakePreview(limit(Sell, "26990", "0.1"), b, fees)
	if !pv.Taker || !pv.Fee.Equal(d("1.3495")) || pv.FeeAsset != "USDT" {
		t.Errorf("taker sell preview: %+v", pv)
	}
	// A perpetual BUY pays its fee in the quote token (no base balance).
	perp := limit(Buy, "26730.99", "0.1")
	perp.Symbol = "PERP_BTC_USDT"
	if pv := MakePreview(perp, b, fees); !pv.Fee.Equal(d("0.5346198")) || pv.FeeAsset != "USDT" {
		t.Errorf("perp buy fee: %+v", pv)
	}
	// MARKET BUY by amount: notional is the amount, price the best ask.
	pv = MakePreview(Order{Symbol: "SPOT_BTC_USDT", Side: Buy, Type: Market, Amount: d("270.02")}, b, fees)
	if !pv.Notional.Equal(d("270.02")) || !pv.Price.Equal(d("27002")) || !pv.Taker || !pv.Fee.Equal(d("0.000005")) {
		t.Errorf("market amount preview: %+v", pv)
	}
	if !pv.Large(d("100")) || pv.Large(d("1000")) || pv.Large(decimal.Zero) {
		t.Errorf("threshold")
	}
	// POST_ONLY is maker even when it would cross.
	o := limit(Buy, "27010", "0.1")
	o.Type = PostOnly
	if MakePreview(o, b, fees).Taker {
		t.Errorf("post only as taker")
	}
	// ASK buys take, ASK sells make.
	if !MakePreview(Order{Symbol: "SPOT_BTC_USDT", Side: Buy, Type: Ask, Quantity: d("1")}, b, fees).Taker ||
		MakePreview(Order{Symbol: "SPOT_BTC_USDT", Side: Sell, Type: Ask, Quantity: d("1")}, b, fees).Taker {
		t.Errorf("ASK roles")
	}
}

func TestClientIDs(t *testing.T) {
	g := NewClientIDs()
	open := map[int64]bool{}
	first := g.Next(open)
	if first < 1e9 || first >= 1e10 {
		t.Fatalf("id %d is not 10 digits", first)
	}
	if other := NewClientIDs().Next(open); other == first {
		t.Fatalf("two sessions start at the same id %d", other)
	}
	open[first+1], open[first+2] = true, true
	if got := g.Next(open); got != first+3 {
		t.Fatalf("next %d, want %d (skipping open ids)", got, first+3)
	}
	if got := FreeClientID(MaxClientOrderID, map[int64]bool{MaxClientOrderID: true, 1: true}); got != 2 {
		t.Errorf("wrap: %d", got)
	}
}

func TestSymbolParts(t *testing.T) {
	if Base("PERP_BTC_USDT") != "BTC" || Quote("SPOT_ETH_USDC") != "USDC" || Base("bad") != "" || !IsPerp("PERP_X_Y") {
		t.Fatal("symbol parts")
	}
}

func TestExplain(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&venue.APIError{HTTPStatus: 429, Code: venue.CodeTooManyRequest, Name: "TOO_MANY_REQUEST"},
			"-1003 TOO_MANY_REQUEST: rate limit exceeded; retry possible in the next rate-limit window"},
		{&venue.APIError{HTTPStatus: 400, Code: venue.CodeRPCNotConnect, Name: "RPC_NOT_CONNECT"},
			"-1011 RPC_NOT_CONNECT: cannot place or cancel orders, internal network error; retry after a few seconds"},
		{&venue.APIError{HTTPStatus: 400, Code: venue.CodeRPCReject, Name: "RPC_REJECT", Message: "account in liquidation"},
			"-1012 RPC_REJECT: request rejected by an internal module; retry after a few seconds (account in liquidation)"},
		{&venue.APIError{HTTPStatus: 400, Code: venue.CodePriceFilter, Name: "PRICE_FILTER", Message: "bad tick"},
			"-1103 PRICE_FILTER: price violates the tick size rule (bad tick)"},
		{&venue.ParamError{Param: "order_price", Reason: "required"}, "not sent: order_price required"},
		{fmt.Errorf("%w: account info needs 40s", venue.ErrRateLimitWait), "not sent: "},
		{context.DeadlineExceeded, "no reply from the venue in time"},
	} {
		if got := Explain(c.err); !strings.HasPrefix(got, c.want) {
			t.Errorf("Explain:\n got %q\nwant %q", got, c.want)
		}
	}
}

func TestRequest(t *testing.T) {
	o := Order{Symbol: "SPOT_BTC_USDT", Side: Buy, Type: Market, Price: d("1"), Amount: d("10"), Visible: d("1"), HasVisible: true}
	r := Request(o)
	if !r.Price.IsZero() || r.VisibleQuantity.Valid || !r.Amount.Equal(d("10")) {
		t.Fatalf("market request %+v", r)
	}
	o = limit(Sell, "27000", "0.5")
	o.Visible, o.HasVisible, o.ClientOrderID, o.Tag = d("0.1"), true, 9, "x"
	r = Request(o)
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	if v := r.Values(); v.Get("visible_quantity") != "0.1" || v.Get("client_order_id") != "9" || v.Get("order_price") != "27000" {
		t.Fatalf("values %v", v)
	}
}
