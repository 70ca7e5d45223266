package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/e2e/bintest"
	"tradedeck/venue"
)

// tradedeckBinary builds the real binary; go test -short leaves out the
// tests that run it.
func tradedeckBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	return bintest.Build(t, "../..") // the tradedeck command at the module root
}

type accountView struct {
	open     []int64
	balances map[string]string // token -> holding/frozen
	trades   []int64
}

func viewAccount(t *testing.T, c *venue.Client) accountView {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	v := accountView{balances: map[string]string{}}
	orders, _, err := c.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusIncomplete})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range orders {
		v.open = append(v.open, o.OrderID.Int64())
	}
	hs, err := c.HoldingV2(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		v.balances[h.Token] = h.Holding.String() + "/" + h.Frozen.String()
	}
	trades, _, err := c.ListTrades(ctx, venue.TradeFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trades {
		v.trades = append(v.trades, tr.ID.Int64())
	}
	slices.Sort(v.open)
	slices.Sort(v.trades)
	return v
}

// TestSimKill9KeepsAcknowledgedOrders is issue 12's point 6 with the real
// binary: orders acknowledged just before a kill -9 (no checkpoint since)
// are back after a restart with their fills, balances and frozen amounts,
// new ids are greater, and a record torn by the crash does not stop the
// restart.
func TestSimKill9KeepsAcknowledgedOrders(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	args := []string{"--state", state, "--rate", "off", "--no-history", "--seed", "3"}
	bin := tradedeckBinary(t)
	p := bintest.StartSim(t, bin, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var last int64
	for i, sym := range []string{"SPOT_BTC_USDT", "SPOT_ETH_USDT", "SPOT_BTC_USDT", "SPOT_ETH_USDT"} {
		book, err := p.Client.OrderBook(ctx, sym, 5)
		if err != nil {
			t.Fatal(err)
		}
		price := book.Bids[len(book.Bids)-1].Price.Sub(decimal.NewFromInt(int64(10 + i))) // rests below the book
		qty := decimal.RequireFromString("0.01")
		if sym == "SPOT_ETH_USDT" {
			qty = decimal.RequireFromString("0.1")
		}
		ack, err := p.Client.SendOrder(ctx, venue.OrderRequest{Symbol: sym, Type: venue.Limit, Side: venue.Buy, Price: price, Quantity: qty})
		if err != nil {
			t.Fatal(err)
		}
		last = max(last, ack.OrderID.Int64())
	}
	ack, err := p.Client.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_BTC_USDT", Type: venue.Market, Side: venue.Buy,
		Quantity: decimal.RequireFromString("0.002")}) // fills against the seeded book
	if err != nil {
		t.Fatal(err)
	}
	last = max(last, ack.OrderID.Int64())
	before := viewAccount(t, p.Client)
	p.Kill9(t)
	if len(before.open) != 4 || len(before.trades) == 0 {
		t.Fatalf("before the crash: %+v", before)
	}

	// a crash in the middle of a write leaves a partial record at the tail
	segs, _ := filepath.Glob(state + ".journal.*")
	if len(segs) == 0 {
		t.Fatal("no journal segment next to the state file")
	}
	f, err := os.OpenFile(segs[len(segs)-1], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{200, 0, 0, 0, 1, 2, 3, 4, 9, 9, 9, 9, 9, 9, 9, 9, '{', '"'})
	f.Close()

	p2 := bintest.StartSim(t, bin, args...)
	after := viewAccount(t, p2.Client)
	if !slices.Equal(before.open, after.open) || !slices.Equal(before.trades, after.trades) {
		t.Fatalf("orders or fills lost in the crash:\nbefore %+v\nafter  %+v", before, after)
	}
	for tok, b := range before.balances {
		if after.balances[tok] != b {
			t.Fatalf("%s holding/frozen %s before the crash, %s after", tok, b, after.balances[tok])
		}
	}
	next, err := p2.Client.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_BTC_USDT", Type: venue.Market, Side: venue.Buy,
		Quantity: decimal.RequireFromString("0.001")})
	if err != nil {
		t.Fatal(err)
	}
	if next.OrderID.Int64() <= last {
		t.Fatalf("order id %d handed out after the restart; %d was acknowledged before the crash", next.OrderID.Int64(), last)
	}
}
