package venue_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/venue"
)

// The auditor hears of every account-changing request, before it is sent
// and with its outcome, and of no read; the copy shares the original's
// limiter.
func TestAuditorSeesEveryAccountChange(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inst := simtest.Start(t, sim.Options{Seed: 7})
	base := venue.NewClient(inst.Endpoints, inst.Credentials)
	var (
		mu      sync.Mutex
		entries []string
	)
	c := base.With(venue.WithAudit(func(e venue.AuditEntry) func(error) {
		mu.Lock()
		entries = append(entries, "begin "+string(e.Action)+" "+e.Method+" "+e.Path+" "+e.Params)
		mu.Unlock()
		return func(err error) {
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				entries = append(entries, "end "+string(e.Action)+" error")
			} else {
				entries = append(entries, "end "+string(e.Action)+" ok")
			}
		}
	}))
	if c.Limiter() != base.Limiter() {
		t.Fatal("the audited copy has its own rate limiter")
	}
	if _, err := c.SymbolRules(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AccountInfo(ctx); err != nil {
		t.Fatal(err)
	}
	ack, err := c.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_BTC_USDT", Type: venue.Limit, Side: venue.Buy,
		Price: decimal.NewFromInt(10000), Quantity: decimal.RequireFromString("0.01"), ClientOrderID: 77})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CancelOrder(ctx, "SPOT_BTC_USDT", int64(ack.OrderID)); err != nil {
		t.Fatal(err)
	}
	_ = c.CancelOrder(ctx, "SPOT_BTC_USDT", int64(ack.OrderID)) // already gone: refused
	if err := c.SetLeverage(ctx, venue.LeverageRequest{Leverage: 5}); err != nil {
		t.Logf("leverage: %v", err)
	}
	// The original client stays unaudited.
	if err := base.CancelAll(ctx, "SPOT_BTC_USDT"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	got := strings.Join(entries, "\n")
	for _, want := range []string{
		"begin send_order POST /v1/order ", "client_order_id=77", "symbol=SPOT_BTC_USDT",
		"end send_order ok", "begin cancel_order DELETE /v1/order ", "end cancel_order ok", "end cancel_order error",
		"begin leverage POST /v1/client/leverage leverage=5",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("audit lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "GET") || strings.Contains(got, "cancel_all") || strings.Contains(got, inst.Credentials.APISecret) {
		t.Fatalf("audit holds a read, the other client's request or the secret:\n%s", got)
	}
}
