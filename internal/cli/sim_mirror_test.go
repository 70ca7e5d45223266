package cli

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/e2e/bintest"
	"tradedeck/venue"
)

// TestSimMirrorBinary: `tradedeck sim --mirror --upstream URL` follows
// another `tradedeck sim` and fills a market order from its book.
func TestSimMirrorBinary(t *testing.T) {
	bin := tradedeckBinary(t)
	up := bintest.StartSim(t, bin, "--rate", "busy", "--seed", "4")
	paper := bintest.StartSim(t, bin, "--mirror", "--upstream", up.Banner.BaseURL, "--symbols", "SPOT_ETH_USDT,SPOT_BTC_USDT", "--latency", "20ms")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rules, err := paper.Client.SymbolRules(ctx)
	if err != nil || len(rules) != 2 {
		t.Fatalf("paper venue lists %d symbols (%v), want the 2 followed", len(rules), err)
	}
	var ob venue.OrderBook
	for deadline := time.Now().Add(30 * time.Second); len(ob.Asks) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the paper venue's book stayed empty")
		}
		if ob, err = paper.Client.OrderBook(ctx, "SPOT_ETH_USDT", 5); err != nil {
			t.Fatal(err)
		}
	}
	ack, err := paper.Client.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_ETH_USDT", Type: venue.Market, Side: venue.Buy,
		Quantity: decimal.RequireFromString("0.01")})
	if err != nil {
		t.Fatal(err)
	}
	fills, err := paper.Client.OrderTrades(ctx, ack.OrderID.Int64())
	if err != nil || len(fills) == 0 {
		t.Fatalf("no fill of a market order on the paper venue: %v", err)
	}
}
