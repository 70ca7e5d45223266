package trade

import (
	"errors"
	"testing"

	"tradedeck/venue"
)

// Which types can only take, and the side's opposite.
func TestTypeAndSideBasics(t *testing.T) {
	want := map[Type]bool{Limit: false, Market: true, IOC: true, FOK: true, PostOnly: false, Ask: false, Bid: false}
	for _, ty := range Types {
		if got := ty.AlwaysTaker(); got != want[ty] {
			t.Errorf("%s.AlwaysTaker() = %v", ty, got)
		}
	}
	if Buy.Opposite() != Sell || Sell.Opposite() != Buy {
		t.Fatal("Opposite")
	}
}

// The price each type trades at: its own, or the best price it takes.
func TestRefPriceEveryType(t *testing.T) {
	b := Book{BestBid: d("27000"), BestAsk: d("27001")}
	for _, c := range []struct {
		typ  Type
		side Side
		want string
	}{
		{Market, Buy, "27001"}, {Market, Sell, "27000"}, {Ask, Buy, "27001"}, {Ask, Sell, "27001"},
		{Bid, Buy, "27000"}, {Bid, Sell, "27000"}, {Limit, Buy, "26500"}, {IOC, Sell, "26500"},
	} {
		o := Order{Symbol: "SPOT_BTC_USDT", Side: c.side, Type: c.typ, Price: d("26500"), Quantity: d("1")}
		if got := RefPrice(o, b); !got.Equal(d(c.want)) {
			t.Errorf("RefPrice(%s %s) = %s, want %s", c.side, c.typ, got, c.want)
		}
	}
	// BID sells cross the bid at once (taker); BID buys join it (maker).
	fees := Fees{MakerBps: d("2"), TakerBps: d("5")}
	if !MakePreview(Order{Symbol: "SPOT_BTC_USDT", Side: Sell, Type: Bid, Quantity: d("1")}, b, fees).Taker ||
		MakePreview(Order{Symbol: "SPOT_BTC_USDT", Side: Buy, Type: Bid, Quantity: d("1")}, b, fees).Taker {
		t.Error("BID roles")
	}
}

// Explain's whole line for each kind of failure, exactly.
func TestExplainExactly(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&venue.APIError{HTTPStatus: 502}, "HTTP 502; retry possible in a few seconds"},
		{&venue.APIError{HTTPStatus: 404, Message: "not found"}, "HTTP 404: not found"},
		{&venue.APIError{HTTPStatus: 400, Code: venue.CodePriceFilter, Name: "PRICE_FILTER"},
			"-1103 PRICE_FILTER: price violates the tick size rule"},
		{&venue.APIError{HTTPStatus: 400, Code: venue.CodeRPCNotConnect},
			"-1011 RPC_NOT_CONNECT: cannot place or cancel orders, internal network error; retry after a few seconds"},
		{&venue.APIError{HTTPStatus: 500, Code: venue.CodeUnknown, Name: "UNKNOWN"},
			"-1000 UNKNOWN: unknown error while processing; a retry may help"},
		{errors.New("dial tcp: connection refused"),
			"request failed: dial tcp: connection refused; the request may or may not have reached the venue"},
	} {
		if got := Explain(c.err); got != c.want {
			t.Errorf("Explain(%v):\n got %q\nwant %q", c.err, got, c.want)
		}
	}
	if Explain(nil) != "" {
		t.Error("Explain(nil)")
	}
}
