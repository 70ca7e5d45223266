package exchange

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/shopspring/decimal"
)

// TestConcurrentTradingConservesMoney has users and an internal account
// trade and cancel from several goroutines while a subscriber drains
// events, then checks that no token was created or lost (holdings plus
// fees charged equal the deposits; internal accounts keep no balances,
// so only user-to-user fills are counted) and that frozen amounts match
// the open orders exactly.
func TestConcurrentTradingConservesMoney(t *testing.T) {
	f := newFixture(t)
	users := []*Account{f.alice, f.bob, f.sub}
	ch, cancel := f.ex.Subscribe()
	done := make(chan struct{})
	go func() {
		for range ch {
		}
		close(done)
	}()
	var wg sync.WaitGroup
	for g, a := range users {
		wg.Add(1)
		go func(a *Account, seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 1))
			for i := 0; i < 300; i++ {
				side := Buy
				if rng.IntN(2) == 0 {
					side = Sell
				}
				price := decimal.New(int64(9900+rng.IntN(200)), -2)
				qty := decimal.New(int64(1000+rng.IntN(4000)), -4)
				typ := []OrderType{Limit, Limit, IOC, PostOnly, FOK}[rng.IntN(5)]
				req := OrderRequest{Symbol: "SPOT_BTC_USDT", Type: typ, Side: side, Price: price, HasPrice: true,
					Quantity: qty, HasQuantity: true, ClientOrderID: int64(rng.IntN(50))}
				if o, err := f.ex.PlaceOrder(a, req); err == nil && rng.IntN(3) == 0 {
					_ = f.ex.Cancel(a, "SPOT_BTC_USDT", o.ID) // may find it filled already: a race this test makes on purpose
				}
				f.ex.Holdings(a, true)
				if _, err := f.ex.Depth("SPOT_BTC_USDT", 5); err != nil {
					t.Error(err)
					return
				}
			}
		}(a, uint64(g))
	}
	wg.Wait()
	cancel()
	<-done

	for _, tok := range []string{"BTC", "USDT"} {
		total, fees := decimal.Zero, decimal.Zero
		for _, a := range users {
			total = total.Add(f.ex.Balance(a, tok).Holding)
			for _, tr := range f.ex.Trades(a, "", "", 0, 0) {
				if tr.FeeAsset == tok {
					fees = fees.Add(tr.Fee)
				}
			}
		}
		want := map[string]string{"BTC": "52", "USDT": "110500"}[tok]
		if !total.Add(fees).Equal(d(want)) {
			t.Fatalf("%s: holdings %s + fees %s != %s", tok, total, fees, want)
		}
	}
	for _, a := range users {
		frozen := map[string]decimal.Decimal{}
		for _, o := range f.ex.OpenOrders(a) {
			if o.Side == Buy {
				frozen["USDT"] = frozen["USDT"].Add(o.Price.Mul(o.Quantity.Sub(o.Executed)))
			} else {
				frozen["BTC"] = frozen["BTC"].Add(o.Quantity.Sub(o.Executed))
			}
		}
		for _, tok := range []string{"BTC", "USDT"} {
			if got := f.ex.Balance(a, tok).Frozen; !got.Equal(frozen[tok]) {
				t.Fatalf("%s %s frozen %s, open orders need %s", a.Name(), tok, got, frozen[tok])
			}
			if f.ex.Balance(a, tok).Holding.IsNegative() && a.mode == ModePureSpot {
				t.Fatalf("%s %s negative in PURE_SPOT", a.Name(), tok)
			}
		}
	}
	if n := len(f.ex.Trades(f.alice, "", "", 0, 0)); n == 0 {
		t.Fatal("no trades happened: the test proves nothing")
	} else {
		t.Log("alice trades: " + strconv.Itoa(n))
	}
}
