package feed_test

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/sim"
	simws "tradedeck/sim/ws"
	"tradedeck/venue"
)

// The private stream's position pushes carry no liquidation price: a
// position opened or resized between two reconciliations shows REST's
// price for its new size within a read, never none and never the old
// size's. The periodic reconciliation is an hour away here: only the
// refresh the push asks for can bring the price.
func TestLiquidationPriceFollowsThePositionsSize(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const sym = "PERP_BTC_USDT"
	h := startHarnessSim(t, ctx, sym, sim.Options{Seed: 4, NoRateLimits: true,
		Living: sim.LivingOptions{NoMarket: true, Streams: simws.Options{UpdateInterval: 20 * time.Millisecond}}},
		func(c *feed.Config) { c.ReconcileEvery = time.Hour })
	h.waitFor("a reconciled account", 10*time.Second, func() bool { return h.st.Account != nil && !h.st.Account.Reconciled.IsZero() })

	var prev decimal.Decimal
	for _, holding := range []string{"-0.01", "-0.02"} {
		if _, err := h.rest.SendOrder(ctx, venue.OrderRequest{Symbol: sym, Type: venue.Market, Side: venue.Sell,
			Quantity: decimal.RequireFromString("0.01")}); err != nil {
			t.Fatal(err)
		}
		want := decimal.RequireFromString(holding)
		liq := waitLiquidation(t, h, sym, want)
		if liq.IsZero() || liq.Equal(prev) {
			t.Fatalf("short %s: liquidation price %v (before: %v): want the venue's new one", holding, liq, prev)
		}
		prev = liq
	}
}

// waitLiquidation waits until the feed's position of sym holds want and
// shows the venue's liquidation price for it, and returns that price.
func waitLiquidation(t *testing.T, h *harness, sym string, want decimal.Decimal) decimal.Decimal {
	t.Helper()
	var shown, venueLiq decimal.Decimal
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ps, err := h.rest.Positions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		venueLiq = decimal.Zero
		for _, p := range ps.Positions {
			if p.Symbol == sym && p.Holding.Equal(want) {
				venueLiq = p.EstLiqPrice
			}
		}
		h.mu.Lock()
		var p feed.Position
		if h.st.Account != nil {
			for _, q := range h.st.Account.Positions {
				if q.Symbol == sym {
					p = q
				}
			}
		}
		h.mu.Unlock()
		shown = p.EstLiqPrice
		if p.Holding.Equal(want) && !venueLiq.IsZero() && shown.Equal(venueLiq) {
			return shown
		}
	}
	t.Fatalf("position %s %v: liquidation price shown %v, the venue's %v", sym, want, shown, venueLiq)
	return decimal.Zero
}
