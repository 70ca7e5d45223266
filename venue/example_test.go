package venue_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/shopspring/decimal"

	"tradedeck/venue"
)

// A client reads a symbol's rule, places an order, and tells a filter
// refusal from other errors. The server here is a stand-in on loopback.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/public/info/SPOT_BTC_USDT":
			fmt.Fprint(w, `{"success":true,"info":{"symbol":"SPOT_BTC_USDT","quote_tick":"0.01","base_tick":0.0001,"min_notional":"1"}}`)
		case "/v1/order":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"success":false,"code":"-1103","message":"price violates tick size"}`)
		}
	}))
	defer srv.Close()

	c := venue.NewClient(venue.Endpoints{BaseURL: srv.URL}, venue.Credentials{APIKey: "key", APISecret: "secret"})
	ctx := context.Background()
	rule, err := c.SymbolRule(ctx, "SPOT_BTC_USDT")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rule.Symbol, "tick", rule.QuoteTick, "step", rule.BaseTick)

	_, err = c.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_BTC_USDT", Type: venue.Limit, Side: venue.Buy,
		Price: decimal.RequireFromString("97000.005"), Quantity: decimal.RequireFromString("0.01")})
	var apiErr *venue.APIError
	if venue.IsFilterReject(err) && errors.As(err, &apiErr) {
		fmt.Println("refused:", apiErr.Name)
	}

	_, err = c.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_BTC_USDT", Type: venue.Market, Side: venue.Buy,
		Quantity: decimal.RequireFromString("0.01"), Amount: decimal.RequireFromString("100")})
	var paramErr *venue.ParamError
	if errors.As(err, &paramErr) {
		fmt.Println("not sent:", paramErr.Param)
	}
	// Output:
	// SPOT_BTC_USDT tick 0.01 step 0.0001
	// refused: PRICE_FILTER
	// not sent: order_amount
}
