package exchange

import (
	"testing"

	"tradedeck/venue"
)

// A MARKET SELL by quote amount in a PURE_SPOT account reserves the base it
// could sell at its worst price (best bid 100.00 less the 10 % range:
// 90.00), rounded up to the base step: 180.00 USDT needs exactly the 2 BTC
// held, 180.01 USDT needs 2.0002.
func TestMarketSellByAmountReservesBase(t *testing.T) {
	f := newFixture(t)
	f.book()
	f.expectBalance(f.alice, "BTC", "2", "0")
	sell := func(amount string) *Error {
		_, err := f.ex.PlaceOrder(f.alice, OrderRequest{Symbol: "SPOT_BTC_USDT", Type: Market, Side: Sell, Amount: d(amount), HasAmount: true})
		return err
	}
	if err := sell("180.01"); err == nil || err.Code != venue.CodeRiskTooHigh {
		t.Fatalf("180.01 USDT beyond 2 BTC at 90.00: %v", err)
	}
	if err := sell("180.00"); err != nil {
		t.Fatalf("180.00 USDT within 2 BTC at 90.00 refused: %v", err)
	}
}
