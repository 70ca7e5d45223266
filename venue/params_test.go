package venue

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/internal/testkit"
)

// Every value the spec forbids is refused before sending, naming the
// parameter; the server must see nothing.
func TestParamValidation(t *testing.T) {
	lb := newLoopback(t)
	c := newTestClient(lb, newFakeClock(true), WithLimiter(nil))
	limit := func(m func(*OrderRequest)) OrderRequest {
		r := OrderRequest{Symbol: "SPOT_BTC_USDT", Type: Limit, Side: Buy, Price: dec("100"), Quantity: dec("1")}
		m(&r)
		return r
	}
	market := func(m func(*OrderRequest)) OrderRequest {
		r := OrderRequest{Symbol: "SPOT_BTC_USDT", Type: Market, Side: Buy}
		m(&r)
		return r
	}
	order := func(r OrderRequest) func(ctx context.Context) error {
		return func(ctx context.Context) error { _, err := c.SendOrder(ctx, r); return err }
	}
	cases := []struct {
		name  string
		call  func(ctx context.Context) error
		param string
	}{
		{"no symbol", order(limit(func(r *OrderRequest) { r.Symbol = "" })), "symbol"},
		{"no side", order(limit(func(r *OrderRequest) { r.Side = "" })), "side"},
		{"bad side", order(limit(func(r *OrderRequest) { r.Side = "LONG" })), "side"},
		{"no type", order(limit(func(r *OrderRequest) { r.Type = "" })), "order_type"},
		{"liquidate is not placeable", order(limit(func(r *OrderRequest) { r.Type = Liquidate })), "order_type"},
		{"limit without price", order(limit(func(r *OrderRequest) { r.Price = decimal.Zero })), "order_price"},
		{"ask without price", order(limit(func(r *OrderRequest) { r.Type = Ask; r.Price = decimal.Zero })), "order_price"},
		{"negative price", order(limit(func(r *OrderRequest) { r.Price = dec("-1") })), "order_price"},
		{"market with price", order(market(func(r *OrderRequest) { r.Price = dec("1"); r.Quantity = dec("1") })), "order_price"},
		{"limit without quantity", order(limit(func(r *OrderRequest) { r.Quantity = decimal.Zero })), "order_quantity"},
		{"market without size", order(market(func(r *OrderRequest) {})), "order_quantity"},
		{"both amount and quantity", order(market(func(r *OrderRequest) { r.Quantity = dec("1"); r.Amount = dec("10") })), "order_amount"},
		{"amount on limit", order(limit(func(r *OrderRequest) { r.Quantity = decimal.Zero; r.Amount = dec("10") })), "order_amount"},
		{"amount with 9 decimals", order(market(func(r *OrderRequest) { r.Amount = dec("10.123456789") })), "order_amount"},
		{"negative amount", order(market(func(r *OrderRequest) { r.Amount = dec("-5") })), "order_amount"},
		{"negative quantity", order(limit(func(r *OrderRequest) { r.Quantity = dec("-1") })), "order_quantity"},
		{"negative client id", order(limit(func(r *OrderRequest) { r.ClientOrderID = -1 })), "client_order_id"},
		{"visible above quantity", order(limit(func(r *OrderRequest) { r.VisibleQuantity = decimal.NewNullDecimal(dec("2")) })), "visible_quantity"},
		{"negative visible", order(limit(func(r *OrderRequest) { r.VisibleQuantity = decimal.NewNullDecimal(dec("-0.1")) })), "visible_quantity"},
		{"cancel without symbol", func(ctx context.Context) error { return c.CancelOrder(ctx, "", 1) }, "symbol"},
		{"cancel without id", func(ctx context.Context) error { return c.CancelOrder(ctx, "SPOT_BTC_USDT", 0) }, "order_id"},
		{"cancel by cid 0", func(ctx context.Context) error { return c.CancelOrderByClientID(ctx, "SPOT_BTC_USDT", 0) }, "client_order_id"},
		{"cancel all without symbol", func(ctx context.Context) error { return c.CancelAll(ctx, "") }, "symbol"},
		{"get order 0", func(ctx context.Context) error { _, err := c.GetOrder(ctx, 0); return err }, "oid"},
		{"get order by cid -5", func(ctx context.Context) error { _, err := c.GetOrderByClientID(ctx, -5); return err }, "client_order_id"},
		{"get trade 0", func(ctx context.Context) error { _, err := c.GetTrade(ctx, 0); return err }, "tid"},
		{"order trades 0", func(ctx context.Context) error { _, err := c.OrderTrades(ctx, 0); return err }, "oid"},
		{"list orders ASK filter", func(ctx context.Context) error { _, _, err := c.ListOrders(ctx, OrderFilter{Type: Ask}); return err }, "order_type"},
		{"list orders bad status", func(ctx context.Context) error {
			_, _, err := c.ListOrders(ctx, OrderFilter{Status: "OPEN"})
			return err
		}, "status"},
		{"list orders end before start", func(ctx context.Context) error {
			_, _, err := c.ListOrders(ctx, OrderFilter{Start: day, End: day.Add(-time.Second)})
			return err
		}, "end_t"},
		{"list trades negative page", func(ctx context.Context) error { _, _, err := c.ListTrades(ctx, TradeFilter{Page: -1}); return err }, "page"},
		{"symbol rule without symbol", func(ctx context.Context) error { _, err := c.SymbolRule(ctx, ""); return err }, "symbol"},
		{"market trades negative limit", func(ctx context.Context) error { _, err := c.MarketTrades(ctx, "SPOT_BTC_USDT", -1); return err }, "limit"},
		{"funding history without symbol", func(ctx context.Context) error {
			_, _, err := c.FundingRateHistory(ctx, FundingRateHistoryFilter{})
			return err
		}, "symbol"},
		{"order book negative levels", func(ctx context.Context) error { _, err := c.OrderBook(ctx, "SPOT_BTC_USDT", -1); return err }, "max_level"},
		{"kline bad type", func(ctx context.Context) error {
			_, err := c.Kline(ctx, KlineRequest{Symbol: "SPOT_BTC_USDT", Type: "2m"})
			return err
		}, "type"},
		{"kline limit 1001", func(ctx context.Context) error {
			_, err := c.Kline(ctx, KlineRequest{Symbol: "SPOT_BTC_USDT", Type: "1m", Limit: 1001})
			return err
		}, "limit"},
		{"hist kline 1m", func(ctx context.Context) error {
			_, _, err := c.HistKline(ctx, HistKlineRequest{Symbol: "SPOT_BTC_USDT", Type: "1m", StartTime: day})
			return err
		}, "type"},
		{"hist kline without start", func(ctx context.Context) error {
			_, _, err := c.HistKline(ctx, HistKlineRequest{Symbol: "SPOT_BTC_USDT", Type: "5m"})
			return err
		}, "start_time"},
		{"deposit without token", func(ctx context.Context) error { _, err := c.DepositAddress(ctx, ""); return err }, "token"},
		{"asset history bad side", func(ctx context.Context) error {
			_, _, err := c.AssetHistory(ctx, AssetHistoryFilter{TokenSide: "IN"})
			return err
		}, "token_side"},
		{"bad account mode", func(ctx context.Context) error { return c.SetAccountMode(ctx, "SPOT") }, "account_mode"},
		{"margin leverage 10", func(ctx context.Context) error {
			return c.SetLeverage(ctx, LeverageRequest{Leverage: 10, Mode: Margin})
		}, "leverage"},
		{"futures leverage 6", func(ctx context.Context) error {
			return c.SetLeverage(ctx, LeverageRequest{Leverage: 6, Mode: Futures})
		}, "leverage"},
		{"leverage 0 any mode", func(ctx context.Context) error { return c.SetLeverage(ctx, LeverageRequest{}) }, "leverage"},
		{"leverage in spot", func(ctx context.Context) error {
			return c.SetLeverage(ctx, LeverageRequest{Leverage: 3, Mode: PureSpot})
		}, "leverage"},
		{"interest rate without token", func(ctx context.Context) error { _, err := c.InterestRate(ctx, ""); return err }, "token"},
		{"interest history bad side", func(ctx context.Context) error {
			_, _, err := c.InterestHistory(ctx, InterestHistoryFilter{Side: "BORROW"})
			return err
		}, "side"},
		{"repay zero", func(ctx context.Context) error { return c.RepayInterest(ctx, "USDT", decimal.Zero) }, "amount"},
		{"repay without token", func(ctx context.Context) error { return c.RepayInterest(ctx, "", dec("1")) }, "token"},
		{"position without symbol", func(ctx context.Context) error { _, err := c.Position(ctx, ""); return err }, "symbol"},
		{"funding fee end before start", func(ctx context.Context) error {
			_, _, err := c.FundingFeeHistory(ctx, FundingFeeFilter{Start: day, End: day.Add(-time.Hour)})
			return err
		}, "end_t"},
		{"asset detail without id", func(ctx context.Context) error { _, err := c.SubAccountAssetDetail(ctx, ""); return err }, "application_id"},
		{"transfer history negative page", func(ctx context.Context) error {
			_, _, err := c.TransferHistory(ctx, TransferFilter{Page: -2})
			return err
		}, "page"},
		{"transfer without token", func(ctx context.Context) error {
			_, err := c.Transfer(ctx, TransferRequest{Amount: dec("1"), FromApplicationID: "a", ToApplicationID: "b"})
			return err
		}, "token"},
		{"transfer negative", func(ctx context.Context) error {
			_, err := c.Transfer(ctx, TransferRequest{Token: "USDT", Amount: dec("-1"), FromApplicationID: "a", ToApplicationID: "b"})
			return err
		}, "amount"},
		{"transfer to itself", func(ctx context.Context) error {
			_, err := c.Transfer(ctx, TransferRequest{Token: "USDT", Amount: dec("1"), FromApplicationID: "a", ToApplicationID: "a"})
			return err
		}, "to_application_id"},
		{"transfer without from", func(ctx context.Context) error {
			_, err := c.Transfer(ctx, TransferRequest{Token: "USDT", Amount: dec("1"), ToApplicationID: "a"})
			return err
		}, "from_application_id"},
	}
	lb.answer()
	for _, tc := range cases {
		err := tc.call(context.Background())
		var pe *ParamError
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %v is not a *ParamError", tc.name, err)
			continue
		}
		if pe.Param != tc.param || !strings.Contains(err.Error(), tc.param) {
			t.Errorf("%s: param %q (%v), want %q", tc.name, pe.Param, err, tc.param)
		}
	}
	if n := len(lb.requests()); n != 0 {
		t.Fatalf("%d invalid requests reached the server", n)
	}
}

// Values the spec allows pass validation, including the edges.
func TestParamValidationAccepts(t *testing.T) {
	ok := []OrderRequest{
		{Symbol: "S", Type: Market, Side: Buy, Amount: dec("10.12345678")},
		{Symbol: "S", Type: Market, Side: Buy, Amount: dec("10.123456780000")}, // trailing zeros are not precision
		{Symbol: "S", Type: Bid, Side: Buy, Price: dec("1"), Amount: dec("5")},
		{Symbol: "S", Type: Ask, Side: Sell, Price: dec("1"), Quantity: dec("5")},
		{Symbol: "S", Type: FOK, Side: Sell, Price: dec("1"), Quantity: dec("5"), ClientOrderID: 9223372036854775807},
		{Symbol: "S", Type: IOC, Side: Sell, Price: dec("1"), Quantity: dec("5"), VisibleQuantity: decimal.NewNullDecimal(dec("5"))},
	}
	for _, r := range ok {
		if err := r.Validate(); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
	for _, lev := range []int{3, 4, 5} {
		if err := (LeverageRequest{Leverage: lev, Mode: Margin}).Validate(); err != nil {
			t.Error(err)
		}
	}
	for _, lev := range []int{1, 2, 3, 4, 5, 10, 15, 20} {
		if err := (LeverageRequest{Leverage: lev, Mode: Futures}).Validate(); err != nil {
			t.Error(err)
		}
		if err := (LeverageRequest{Leverage: lev}).Validate(); err != nil {
			t.Error(err)
		}
	}
}

// ccxt's recorded request tests for this venue: where they exercise a v1
// endpoint of the spec, the client must put the same parameters on the
// wire (ccxt adds its broker_id, which we do not send).
func TestCCXTStaticRequests(t *testing.T) {
	var file struct {
		Methods map[string][]struct {
			Description string `json:"description"`
			URL         string `json:"url"`
			Output      any    `json:"output"`
		} `json:"methods"`
	}
	if err := json.Unmarshal(testkit.ReadTestdata(t, "ccxt-static-request-woo.json"), &file); err != nil {
		t.Fatal(err)
	}
	type call func(ctx context.Context, c *Client) error
	calls := map[string]call{
		"spot limit buy": func(ctx context.Context, c *Client) error {
			_, err := c.SendOrder(ctx, OrderRequest{Symbol: "SPOT_LTC_USDT", Type: Limit, Side: Buy, Quantity: dec("0.1"), Price: dec("50")})
			return err
		},
		"spot market sell": func(ctx context.Context, c *Client) error {
			_, err := c.SendOrder(ctx, OrderRequest{Symbol: "SPOT_LTC_USDT", Type: Market, Side: Sell, Quantity: dec("0.1")})
			return err
		},
		"swap market buy": func(ctx context.Context, c *Client) error {
			_, err := c.SendOrder(ctx, OrderRequest{Symbol: "PERP_LTC_USDT", Type: Market, Side: Buy, Quantity: dec("0.1")})
			return err
		},
		"Swap market sell with reduceOnly": func(ctx context.Context, c *Client) error {
			_, err := c.SendOrder(ctx, OrderRequest{Symbol: "PERP_LTC_USDT", Type: Market, Side: Sell, Quantity: dec("0.1"), ReduceOnly: true})
			return err
		},
		"spot market buy with cost": func(ctx context.Context, c *Client) error {
			_, err := c.SendOrder(ctx, OrderRequest{Symbol: "SPOT_LTC_USDT", Type: Market, Side: Buy, Amount: dec("5")})
			return err
		},
		"Spot orders": func(ctx context.Context, c *Client) error {
			_, _, err := c.ListOrders(ctx, OrderFilter{Symbol: "SPOT_LTC_USDT"})
			return err
		},
		"Spot private trades": func(ctx context.Context, c *Client) error {
			_, _, err := c.ListTrades(ctx, TradeFilter{Symbol: "SPOT_LTC_USDT", Start: time.UnixMilli(1699457638000)})
			return err
		},
		"Cancel spot orders":  func(ctx context.Context, c *Client) error { return c.CancelAll(ctx, "SPOT_LTC_USDT") },
		"Set linear leverage": func(ctx context.Context, c *Client) error { return c.SetLeverage(ctx, LeverageRequest{Leverage: 5}) },
		"fetch usdt address":  func(ctx context.Context, c *Client) error { _, err := c.DepositAddress(ctx, "ETH_USDT"); return err },
		"fetch USDT transfers": func(ctx context.Context, c *Client) error {
			_, _, err := c.TransferHistory(ctx, TransferFilter{})
			return err
		},
		"Fetch deposits": func(ctx context.Context, c *Client) error {
			_, _, err := c.AssetHistory(ctx, AssetHistoryFilter{TokenSide: "DEPOSIT", Type: "BALANCE"})
			return err
		},
		"fetch USDT ledger": func(ctx context.Context, c *Client) error {
			_, _, err := c.AssetHistory(ctx, AssetHistoryFilter{BalanceToken: "USDT"})
			return err
		},
		"fetchOHLCV with limit": func(ctx context.Context, c *Client) error {
			_, _, err := c.HistKline(ctx, HistKlineRequest{Symbol: "SPOT_BTC_USDT", Type: "5m", StartTime: time.UnixMilli(1704067200000)})
			return err
		},
		"Fetch Trades": func(ctx context.Context, c *Client) error {
			_, err := c.MarketTrades(ctx, "SPOT_BTC_USDT", 0)
			return err
		},
		"cancelOrder": func(ctx context.Context, c *Client) error { return c.CancelOrder(ctx, "PERP_LTC_USDT", 1111779) },
		"fetchOrderTrades": func(ctx context.Context, c *Client) error {
			_, err := c.OrderTrades(ctx, 1034475822)
			return err
		},
		"fetchAccounts": func(ctx context.Context, c *Client) error { _, err := c.SubAccountAssets(ctx); return err },
		"transfer": func(ctx context.Context, c *Client) error {
			_, err := c.Transfer(ctx, TransferRequest{Token: "USDT", Amount: dec("1000"),
				FromApplicationID: "0f1bd3cd-dba2-4563-b8bb-0adb1bfb83a3", ToApplicationID: "c01e6940-a735-4022-9b6c-9d3971cdfdfa"})
			return err
		},
		"fetchMarkets": func(ctx context.Context, c *Client) error { _, err := c.SymbolRules(ctx); return err },
	}
	lb := newLoopback(t)
	clk := newFakeClock(true)
	c := newTestClient(lb, clk, WithLimiter(nil))
	used := 0
	for _, tests := range file.Methods {
		for _, tc := range tests {
			call, ok := calls[tc.Description]
			if !ok {
				continue
			}
			used++
			u, err := url.Parse(tc.URL)
			if err != nil {
				t.Fatal(err)
			}
			path, query := u.Path, u.RawQuery
			if tc.Description == "fetchOHLCV with limit" {
				query = strings.Replace(query, "type=1m", "type=5m", 1) // 1m is not a historical interval in the spec
			}
			body, _ := tc.Output.(string)
			body = strings.TrimPrefix(strings.TrimPrefix(body, "broker_id=bc830de7-50f3-460b-9ee0-f430f83f9dad"), "&")
			lb.answer()
			if err := call(context.Background(), c); err != nil {
				t.Errorf("%s: %v", tc.Description, err)
				continue
			}
			r := lb.requests()[0]
			prefix := "/base"
			if strings.HasPrefix(tc.URL, "https://api-pub.") {
				prefix = "/hist"
			}
			params := query
			if r.Method != "GET" {
				params = body
			}
			checkSigned(t, r, r.Method, prefix+path, params, clk.Now())
		}
	}
	if used != len(calls) {
		t.Errorf("used %d of %d ccxt cases: descriptions changed?", used, len(calls))
	}
}

// ccxt's recorded responses for this venue (2024, numbers as strings):
// each v1 reply decodes through the matching client method, to the values
// ccxt parsed from it. fetchPositions is the v3 API (not in the spec).
func TestCCXTStaticResponses(t *testing.T) {
	var file struct {
		Methods map[string][]struct {
			HTTPResponse json.RawMessage `json:"httpResponse"`
			Parsed       json.RawMessage `json:"parsedResponse"`
		} `json:"methods"`
	}
	if err := json.Unmarshal(testkit.ReadTestdata(t, "ccxt-static-response-woo.json"), &file); err != nil {
		t.Fatal(err)
	}
	calls := map[string]func(ctx context.Context, c *Client) (string, error){
		"fetchMyTrades": func(ctx context.Context, c *Client) (string, error) {
			rows, _, err := c.ListTrades(ctx, TradeFilter{Symbol: "SPOT_LTC_USDT"})
			if err != nil {
				return "", err
			}
			return rows[0].ExecutedPrice.String() + " " + rows[0].Fee.String(), nil
		},
		"fetchClosedOrders": func(ctx context.Context, c *Client) (string, error) {
			rows, _, err := c.ListOrders(ctx, OrderFilter{Status: StatusCompleted})
			if err != nil {
				return "", err
			}
			return rows[0].AverageExecutedPrice.Decimal.String() + " " + rows[0].TotalFee.String(), nil
		},
		"fetchOpenOrders": func(ctx context.Context, c *Client) (string, error) {
			rows, _, err := c.ListOrders(ctx, OrderFilter{Status: StatusIncomplete})
			if err != nil {
				return "", err
			}
			return rows[0].Price.Decimal.String() + " " + rows[0].Quantity.Decimal.String(), nil
		},
		"createOrder": func(ctx context.Context, c *Client) (string, error) {
			a, err := c.SendOrder(ctx, OrderRequest{Symbol: "PERP_LTC_USDT", Type: Market, Side: Buy, Quantity: dec("0.1")})
			return a.OrderID.String() + " " + a.OrderQuantity.Decimal.String(), err
		},
		"fetchTrades": func(ctx context.Context, c *Client) (string, error) {
			rows, err := c.MarketTrades(ctx, "SPOT_BTC_USDT", 1)
			if err != nil {
				return "", err
			}
			return rows[0].ExecutedPrice.String() + " " + rows[0].ExecutedQuantity.String(), nil
		},
		"fetchOHLCV": func(ctx context.Context, c *Client) (string, error) {
			rows, err := c.Kline(ctx, KlineRequest{Symbol: "SPOT_BTC_USDT", Type: "1h", Limit: 1})
			if err != nil {
				return "", err
			}
			return rows[0].Open.String() + " " + rows[0].Volume.String(), nil
		},
	}
	// What ccxt parsed from the same replies, in the form each call renders.
	want := map[string]string{
		"fetchMyTrades":     "68.81 0.00354069",
		"fetchClosedOrders": "68.81 0.00354069",
		"fetchOpenOrders":   "60 0.1",
		"createOrder":       "5973852953 0.1",
		"fetchTrades":       "73249.19 0.010144",
		"fetchOHLCV":        "73250.67 53.104898",
	}
	lb := newLoopback(t)
	c := newTestClient(lb, newFakeClock(true), WithLimiter(nil))
	for method, tests := range file.Methods {
		call, ok := calls[method]
		if !ok {
			if method != "fetchPositions" {
				t.Errorf("no client call for ccxt method %s", method)
			}
			continue
		}
		for _, tc := range tests {
			lb.answer(reply{status: 200, body: tc.HTTPResponse})
			got, err := call(context.Background(), c)
			if err != nil {
				t.Errorf("%s: %v", method, err)
				continue
			}
			if got != want[method] {
				t.Errorf("%s: decoded %q, want %q", method, got, want[method])
			}
			for _, part := range strings.Fields(want[method]) {
				if !strings.Contains(string(tc.Parsed), part) {
					t.Errorf("%s: ccxt's parse does not hold %s", method, part)
				}
			}
		}
	}
}
