package accountpane

import (
	"strings"

	"context"
	"github.com/charmbracelet/x/ansi"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/feed/ws"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
	"tradedeck/sim"
	"tradedeck/venue"
)

// simAccount runs a feed against the simulated venue on loopback and
// returns the client that trades and a function that waits for an
// account snapshot satisfying cond (the deadline only bounds a hang).
func simAccount(t *testing.T) (*venue.Client, *feed.Feed, func(string, func(*feed.Account) bool) *feed.Account) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inst, err := sim.Start(ctx, sim.Options{Seed: 5, NoRateLimits: true, Living: sim.LivingOptions{NoMarket: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); inst.Close() })
	rest := venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil))
	f := feed.New(feed.Config{Endpoints: inst.Endpoints, Credentials: inst.Credentials, REST: rest,
		Symbol: "PERP_ETH_USDT", Backoff: ws.Backoff{Min: 5 * time.Millisecond, Max: 100 * time.Millisecond}})
	go func() { _ = f.Run(ctx) }() // ends with ctx's error when the test ends
	var last *feed.Account
	wait := func(what string, cond func(*feed.Account) bool) *feed.Account {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for last == nil || !cond(last) {
			select {
			case u := <-f.Updates():
				if u.Account != nil {
					last = u.Account
				}
			case <-deadline:
				t.Fatalf("timed out waiting for %s; last account %+v", what, last)
			}
		}
		return last
	}
	return rest, f, wait
}

func market(t *testing.T, c *venue.Client, symbol string, side venue.Side, qty string) {
	t.Helper()
	_, err := c.SendOrder(context.Background(), venue.OrderRequest{Symbol: symbol, Type: venue.Market, Side: side,
		Quantity: decimal.RequireFromString(qty)})
	if err != nil {
		t.Fatalf("%s %s %s: %v", side, qty, symbol, err)
	}
}

// The realised PnL and the fees the pane sums per day and per symbol are
// exactly the venue's own trade fields; the liquidation price shown is the
// venue's position field.
func TestLedgerAndLiquidationEqualTheVenue(t *testing.T) {
	c, f, wait := simAccount(t)
	ctx := context.Background()
	wait("the first reconciliation", func(a *feed.Account) bool { return !a.Reconciled.IsZero() })
	market(t, c, "PERP_ETH_USDT", venue.Buy, "2")
	market(t, c, "PERP_ETH_USDT", venue.Sell, "0.5")
	market(t, c, "PERP_BTC_USDT", venue.Sell, "0.01")
	market(t, c, "PERP_BTC_USDT", venue.Buy, "0.004")
	trades, _, err := c.ListTrades(ctx, venue.TradeFilter{})
	if err != nil || len(trades) < 4 {
		t.Fatalf("venue trades %d %v", len(trades), err)
	}
	wantPnL, wantFees, wantFills, closing := map[string]decimal.Decimal{}, map[string]Fees{}, map[string]int{}, 0
	for _, tr := range trades {
		wantFills[tr.Symbol]++
		if !tr.RealizedPnL.IsZero() {
			closing++
		}
		wantPnL[tr.Symbol] = wantPnL[tr.Symbol].Add(tr.RealizedPnL)
		wantFees[tr.Symbol] = wantFees[tr.Symbol].Add(tr.FeeAsset, tr.Fee)
	}
	if wantPnL["PERP_ETH_USDT"].IsZero() || wantPnL["PERP_BTC_USDT"].IsZero() {
		t.Fatalf("the closing fills should realise a PnL: %v", wantPnL)
	}
	f.Reconcile() // the stream's fills carry no realised PnL; REST completes them
	var ps venue.Positions
	a := wait("four fills with the venue's realised PnL, positions with its liquidation prices", func(a *feed.Account) bool {
		n := 0
		for _, fl := range a.Fills {
			if !fl.RealizedPnL.IsZero() {
				n++
			}
		}
		if len(a.Fills) != len(trades) || n != closing || !a.Collateral.Known {
			return false
		}
		var err error
		if ps, err = c.Positions(ctx); err != nil {
			t.Fatal(err)
		}
		for _, vp := range ps.Positions {
			for _, p := range a.Positions {
				if p.Symbol == vp.Symbol && !p.EstLiqPrice.Equal(vp.EstLiqPrice) {
					return false
				}
			}
		}
		return true
	})
	rows := Ledger(a.Fills)
	today := Today(rows, time.Now())
	total := decimal.Zero
	for sym, pnl := range wantPnL {
		total = total.Add(pnl)
		r := ledgerRowOf(rows, sym)
		if !r.Realised.Equal(pnl) || r.Fees.String() != wantFees[sym].String() || r.Fills != wantFills[sym] {
			t.Errorf("%s: ledger %v %s %d, venue %v %s", sym, r.Realised, r.Fees, r.Fills, pnl, wantFees[sym])
		}
	}
	if !today.Realised.Equal(total) || today.Fills != len(trades) {
		t.Errorf("today %v (%d fills), venue %v", today.Realised, today.Fills, total)
	}

	if !a.Collateral.FreeCollateral.Equal(ps.FreeCollateral) || !a.Collateral.TotalAccountValue.Equal(ps.TotalAccountValue) {
		t.Errorf("collateral %+v, venue free %v equity %v", a.Collateral, ps.FreeCollateral, ps.TotalAccountValue)
	}
	shown, liqs := 0, 0
	for _, vp := range ps.Positions {
		for _, p := range a.Positions {
			if p.Symbol != vp.Symbol || vp.Holding.IsZero() {
				continue
			}
			shown++
			if !vp.EstLiqPrice.IsZero() {
				liqs++ // a long with ample collateral has none (0)
			}
			if !p.EstLiqPrice.Equal(vp.EstLiqPrice) || !p.PnL24h.Equal(vp.PnL24h) || !p.Fee24h.Equal(vp.Fee24h) {
				t.Errorf("%s: liq %v pnl24 %v fee24 %v; venue %v %v %v", p.Symbol, p.EstLiqPrice, p.PnL24h, p.Fee24h, vp.EstLiqPrice, vp.PnL24h, vp.Fee24h)
			}
		}
	}
	if shown != 2 || liqs == 0 {
		t.Fatalf("positions compared %d, want 2: %+v", shown, a.Positions)
	}
	checkPaneShows(t, a, ps)
}

// checkPaneShows: the pane prints the venue's liquidation prices and the
// account's equity and free collateral.
func checkPaneShows(t *testing.T, a *feed.Account, ps venue.Positions) {
	t.Helper()
	store := common.NewStore()
	store.Apply(&feed.Update{Account: a})
	m := New(panetest.Common(store, panetest.Keys(), false))
	m.SetSize(200, 8)
	m.Update(common.FeedMsg{Update: &feed.Update{Account: a}})
	v := m.View()
	for _, want := range []string{"Equity " + ps.TotalAccountValue.StringFixed(2), "Free " + ps.FreeCollateral.StringFixed(2)} {
		if !containsPlain(v, want) {
			t.Errorf("pane lacks %q:\n%s", want, v)
		}
	}
	for _, p := range ps.Positions {
		if !p.EstLiqPrice.IsZero() && !containsPlain(v, store.Price(p.Symbol, p.EstLiqPrice)) {
			t.Errorf("pane lacks the liquidation price %v of %s:\n%s", p.EstLiqPrice, p.Symbol, v)
		}
	}
}

func ledgerRowOf(rows []LedgerRow, symbol string) LedgerRow {
	for _, r := range rows {
		if r.Symbol == symbol {
			return r
		}
	}
	return LedgerRow{}
}

func containsPlain(view, s string) bool { return strings.Contains(ansi.Strip(view), s) }
