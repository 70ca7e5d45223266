package venue

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"tradedeck/internal/testkit"
)

// sentAt is the x-api-timestamp of each request the server saw.
func sentAt(t *testing.T, lb *loopback) []time.Time {
	t.Helper()
	var out []time.Time
	for _, r := range lb.requests() {
		ms, err := strconv.ParseInt(r.TS, 10, 64)
		if err != nil {
			t.Fatalf("timestamp %q", r.TS)
		}
		out = append(out, time.UnixMilli(ms))
	}
	return out
}

// maxInWindow is the largest number of requests in any window of length w.
func maxInWindow(times []time.Time, w time.Duration) int {
	best := 0
	for i := range times {
		n := 0
		for j := i; j < len(times) && times[j].Sub(times[i]) < w; j++ {
			n++
		}
		best = max(best, n)
	}
	return best
}

// Cancel and cancel by client id share one budget of 10 per second; cancel
// all has its own.
func TestSharedCancelBudget(t *testing.T) {
	lb := newLoopback(t)
	clk := newFakeClock(true)
	c := newTestClient(lb, clk)
	ctx := context.Background()
	for i := range 10 {
		var err error
		if i%2 == 0 {
			err = c.CancelOrder(ctx, "SPOT_BTC_USDT", int64(i+1))
		} else {
			err = c.CancelOrderByClientID(ctx, "SPOT_BTC_USDT", int64(i+1))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if clk.totalSlept() != 0 {
		t.Fatalf("waited %v within the budget", clk.totalSlept())
	}
	if b := c.Limiter().Budget(GroupCancelOrder, ""); b.Remaining != 0 || b.Limit != 10 {
		t.Fatalf("budget after 10 cancels: %+v", b)
	}
	if err := c.CancelAll(ctx, "SPOT_BTC_USDT"); err != nil {
		t.Fatal(err)
	}
	if clk.totalSlept() != 0 {
		t.Fatal("cancel all waited on the cancel budget")
	}
	// The 11th cancel of either kind waits for the window.
	if err := c.CancelOrderByClientID(ctx, "SPOT_BTC_USDT", 99); err != nil {
		t.Fatal(err)
	}
	if clk.totalSlept() < time.Second {
		t.Fatalf("11th cancel waited only %v", clk.totalSlept())
	}
	times := sentAt(t, lb)
	var cancels []time.Time
	for i, r := range lb.requests() {
		if r.Path != "/base/v1/orders" {
			cancels = append(cancels, times[i])
		}
	}
	if n := maxInWindow(cancels, time.Second); n > 10 {
		t.Fatalf("%d cancels within one second", n)
	}
}

// Get order and get order by client id share one budget too.
func TestSharedGetOrderBudget(t *testing.T) {
	lb := newLoopback(t)
	clk := newFakeClock(true)
	c := newTestClient(lb, clk)
	lb.answer(reply{status: 200, body: testkit.ReadTestdata(t, "rest/v1_order_oid.json")})
	ctx := context.Background()
	for i := range 12 {
		var err error
		if i%3 == 0 {
			_, err = c.GetOrderByClientID(ctx, 123)
		} else {
			_, err = c.GetOrder(ctx, 1)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := maxInWindow(sentAt(t, lb), time.Second); n != 10 {
		t.Fatalf("max %d gets in a second, want exactly 10", n)
	}
	if clk.totalSlept() < time.Second {
		t.Fatalf("waited %v", clk.totalSlept())
	}
}

// Send order is 2 per second per symbol: other symbols are not held up.
func TestSendOrderPerSymbol(t *testing.T) {
	lb := newLoopback(t)
	clk := newFakeClock(true)
	c := newTestClient(lb, clk)
	lb.answer(reply{status: 200, body: testkit.ReadTestdata(t, "rest/v1_order_post.json")})
	ctx := context.Background()
	send := func(sym string) {
		t.Helper()
		if _, err := c.SendOrder(ctx, OrderRequest{Symbol: sym, Type: Limit, Side: Buy, Price: dec("1"), Quantity: dec("1")}); err != nil {
			t.Fatal(err)
		}
	}
	send("SPOT_BTC_USDT")
	send("SPOT_BTC_USDT")
	send("SPOT_ETH_USDT")
	send("SPOT_ETH_USDT")
	send("PERP_BTC_USDT")
	if clk.totalSlept() != 0 {
		t.Fatalf("waited %v for orders on distinct symbols", clk.totalSlept())
	}
	b := c.Limiter().Budget(GroupSendOrder, "SPOT_ETH_USDT")
	if b.Remaining != 0 || b.Symbol != "SPOT_ETH_USDT" {
		t.Fatalf("ETH budget %+v", b)
	}
	if b := c.Limiter().Budget(GroupSendOrder, "PERP_BTC_USDT"); b.Remaining != 1 {
		t.Fatalf("PERP budget %+v", b)
	}
	// The status bar sees one row per symbol, the tightest first.
	budgets := c.Budgets()
	if len(budgets) != 3 || budgets[0].Remaining != 0 || budgets[1].Remaining != 0 || budgets[2].Symbol != "PERP_BTC_USDT" {
		t.Fatalf("budgets %+v", budgets)
	}
	send("SPOT_BTC_USDT") // third on BTC: waits
	if clk.totalSlept() < time.Second {
		t.Fatalf("third BTC order waited %v", clk.totalSlept())
	}
}

// All public endpoints share one per-IP budget.
func TestPublicBudgetShared(t *testing.T) {
	lb := newLoopback(t)
	clk := newFakeClock(true)
	c := newTestClient(lb, clk)
	ctx := context.Background()
	calls := []func() error{
		func() error { _, err := c.SymbolRules(ctx); return err },
		func() error { _, err := c.Tokens(ctx); return err },
		func() error { _, err := c.FuturesInfos(ctx); return err },
		func() error { _, err := c.FundingRates(ctx); return err },
		func() error { _, err := c.TokenNetworks(ctx); return err },
	}
	for i := range 10 {
		if err := calls[i%len(calls)](); err != nil {
			t.Fatal(err)
		}
	}
	if clk.totalSlept() != 0 {
		t.Fatal("waited within the public budget")
	}
	if _, err := c.OrderBook(ctx, "SPOT_BTC_USDT", 0); err != nil { // its own group
		t.Fatal(err)
	}
	if clk.totalSlept() != 0 {
		t.Fatal("order book waited on the public budget")
	}
	if _, err := c.Tokens(ctx); err != nil {
		t.Fatal(err)
	}
	if clk.totalSlept() < time.Second {
		t.Fatalf("11th public call waited %v", clk.totalSlept())
	}
}

// A request over budget is not sent until time moves; then it goes.
func TestWaitsForBudget(t *testing.T) {
	lb := newLoopback(t)
	clk := newFakeClock(false)
	c := newTestClient(lb, clk)
	ctx := context.Background()
	for range 5 {
		if err := c.SetLeverage(ctx, LeverageRequest{Leverage: 5}); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- c.SetLeverage(ctx, LeverageRequest{Leverage: 3}) }()
	clk.waitSleepers(t, 1)
	if n := len(lb.requests()); n != 5 {
		t.Fatalf("%d requests before the window passed", n)
	}
	if b := c.Limiter().Budget(GroupLeverage, ""); b.Remaining != 0 || b.ResetIn <= 0 {
		t.Fatalf("budget while waiting %+v", b)
	}
	clk.Advance(30 * time.Second)
	select {
	case err := <-done:
		t.Fatalf("sent after half the window: %v", err)
	default:
	}
	clk.Advance(40 * time.Second)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still waiting after the window")
	}
	reqs := lb.requests()
	if len(reqs) != 6 || reqs[5].Body != "leverage=3" {
		t.Fatalf("requests %+v", reqs)
	}
}

// The caller's context ends a wait, and the request is never sent.
func TestWaitCancelled(t *testing.T) {
	lb := newLoopback(t)
	clk := newFakeClock(false)
	c := newTestClient(lb, clk)
	for range 5 {
		if _, err := c.DepositAddress(context.Background(), "BTC"); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := c.DepositAddress(ctx, "BTC"); done <- err }()
	clk.waitSleepers(t, 1)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not end the wait")
	}
	if n := len(lb.requests()); n != 5 {
		t.Fatalf("%d requests, the cancelled one went out", n)
	}
	// A cancelled wait took no budget.
	if b := c.Limiter().Budget(GroupDepositAddress, ""); b.Remaining != 0 {
		t.Fatalf("budget %+v", b)
	}
}

// When the wait would outlast the deadline the client says so at once
// rather than sleeping into a sure failure.
func TestWaitBeyondDeadline(t *testing.T) {
	lb := newLoopback(t)
	clk := newFakeClock(false)
	c := newTestClient(lb, clk)
	for range 10 {
		if _, err := c.AccountInfo(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := c.AccountInfo(ctx)
	if !errors.Is(err, ErrRateLimitWait) {
		t.Fatalf("err = %v", err)
	}
	if len(lb.requests()) != 10 {
		t.Fatal("sent over budget")
	}
}

// On a 429 the client waits for the next window and retries once.
func TestRetryOnce429(t *testing.T) {
	lb := newLoopback(t)
	clk := newFakeClock(true)
	c := newTestClient(lb, clk)
	tooMany := reply{status: 429, body: []byte(`{"success":false,"code":-1003,"message":"too many"}`)}
	lb.answer(tooMany, reply{status: 200, body: testkit.ReadTestdata(t, "rest/v1_client_holding.json")})
	h, err := c.Holding(context.Background())
	if err != nil || h["BTC"].String() != "1.014" {
		t.Fatalf("after retry: %v %v", h, err)
	}
	times := sentAt(t, lb)
	if len(times) != 2 || times[1].Sub(times[0]) < time.Second {
		t.Fatalf("retry timing %v", times)
	}
	reqs := lb.requests()
	if reqs[0].Sig == reqs[1].Sig {
		t.Error("the retry reused the old timestamp and signature")
	}
	checkSigned(t, reqs[1], "GET", "/base/v1/client/holding", "", times[1])

	// Twice refused: the error comes back, after exactly one retry.
	lb.answer(tooMany)
	_, err = c.Holding(context.Background())
	if !IsRateLimited(err) || !IsRetryable(err) {
		t.Fatalf("err = %v", err)
	}
	if n := len(lb.requests()); n != 2 {
		t.Fatalf("%d attempts, want 2", n)
	}

	// Retry-After from the server wins over the window length.
	before := clk.totalSlept()
	lb.answer(reply{status: 429, body: []byte("rate limited"), header: http.Header{"Retry-After": {"3"}}},
		reply{status: 200, body: []byte(`{"success":true,"rows":[]}`)})
	if _, err := c.SubAccounts(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := clk.totalSlept() - before; d < 3*time.Second || d > 4*time.Second {
		t.Fatalf("waited %v after Retry-After: 3", d)
	}
}

// A 429 while another goroutine waits: the block applies to everyone on
// that budget, not only the refused call.
func TestBlockAppliesToBudget(t *testing.T) {
	clk := newFakeClock(true)
	l := NewLimiter(clk, nil)
	ctx := context.Background()
	if err := l.Wait(ctx, GroupTrades, ""); err != nil {
		t.Fatal(err)
	}
	l.Block(GroupTrades, "", clk.Now().Add(2*time.Second))
	if b := l.Budget(GroupTrades, ""); b.Remaining != 0 || b.ResetIn != 2*time.Second {
		t.Fatalf("blocked budget %+v", b)
	}
	if err := l.Wait(ctx, GroupTrades, ""); err != nil {
		t.Fatal(err)
	}
	if clk.totalSlept() < 2*time.Second {
		t.Fatalf("slept %v", clk.totalSlept())
	}
	// Unknown groups are not limited.
	if err := l.Wait(ctx, "nope", ""); err != nil {
		t.Fatal(err)
	}
}

// The limiter under concurrent use never lets more than N through in any
// window (run with -race).
func TestLimiterConcurrent(t *testing.T) {
	clk := newFakeClock(true)
	l := NewLimiter(clk, map[Group]RateLimit{"g": {N: 4, Window: time.Second}})
	l.SetMargin(0)
	ctx := context.Background()
	times := make(chan time.Time, 40)
	done := make(chan struct{})
	for range 8 {
		go func() {
			for range 5 {
				if err := l.Wait(ctx, "g", ""); err != nil {
					t.Error(err)
				}
				times <- clk.Now()
			}
			done <- struct{}{}
		}()
	}
	for range 8 {
		<-done
	}
	close(times)
	if n := len(times); n != 40 {
		t.Fatalf("%d passes", n)
	}
	b := l.Budget("g", "")
	if b.Remaining < 0 || b.Remaining > 4 {
		t.Fatalf("budget %+v", b)
	}
}

// Clients of one key at one venue share a limiter (the venue counts per
// key); another key or another venue has its own.
func TestDefaultLimiterSharedPerKey(t *testing.T) {
	ep := Endpoints{BaseURL: "http://127.0.0.1:9/"}
	a := NewClient(ep, Credentials{APIKey: "k1", APISecret: "s"})
	b := NewClient(Endpoints{BaseURL: "http://127.0.0.1:9"}, Credentials{APIKey: "k1", APISecret: "other"})
	other := NewClient(ep, Credentials{APIKey: "k2", APISecret: "s"})
	elsewhere := NewClient(Endpoints{BaseURL: "http://127.0.0.1:10"}, Credentials{APIKey: "k1", APISecret: "s"})
	faked := NewClient(ep, Credentials{APIKey: "k1", APISecret: "s"}, WithClock(newFakeClock(true)))
	if a.Limiter() != b.Limiter() {
		t.Fatal("two clients of one key do not share a limiter")
	}
	for _, c := range []*Client{other, elsewhere, faked} {
		if c.Limiter() == a.Limiter() {
			t.Fatalf("%v shares the limiter of another key, venue or clock", c.Endpoints())
		}
	}
	if err := a.Limiter().Wait(context.Background(), GroupSendOrder, "SPOT_BTC_USDT"); err != nil {
		t.Fatal(err)
	}
	if r := b.Limiter().Budget(GroupSendOrder, "SPOT_BTC_USDT").Remaining; r != 1 {
		t.Fatalf("the other client sees %d remaining, want 1", r)
	}
}

// When the retry after a 429 cannot happen before the deadline, the caller
// still sees the 429 (and why the retry was abandoned).
func TestRetryAbandonedKeeps429(t *testing.T) {
	lb := newLoopback(t)
	c := newTestClient(lb, newFakeClock(false))
	lb.answer(reply{status: 429, body: []byte(`{"success":false,"code":-1003,"message":"too many"}`), header: http.Header{"Retry-After": {"30"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := c.Tokens(ctx)
	if !IsRateLimited(err) || !errors.Is(err, ErrRateLimitWait) {
		t.Fatalf("err = %v", err)
	}
	if n := len(lb.requests()); n != 1 {
		t.Fatalf("%d requests", n)
	}
}

// TestProtectiveGoesFirst: with the budget spent, an ordinary request and
// then a protective one wait for it; when a slot frees, the protective
// one takes it, and the ordinary one only the slot after (a stop or a
// cancel is never queued behind order entry).
func TestProtectiveGoesFirst(t *testing.T) {
	const g = Group("test")
	l := NewLimiter(SystemClock{}, map[Group]RateLimit{g: {N: 1, Window: 150 * time.Millisecond}})
	l.SetMargin(0)
	ctx := context.Background()
	if err := l.Wait(ctx, g, ""); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if err := l.Wait(ctx, g, ""); err == nil {
			mu.Lock()
			order = append(order, "ordinary")
			mu.Unlock()
		}
	}()
	time.Sleep(20 * time.Millisecond) // the ordinary request waits first
	go func() {
		defer wg.Done()
		if err := l.Wait(Protective(ctx), g, ""); err == nil {
			mu.Lock()
			order = append(order, "protective")
			mu.Unlock()
		}
	}()
	wg.Wait()
	if len(order) != 2 || order[0] != "protective" {
		t.Fatalf("order %q, want the protective request first", order)
	}
	if !IsProtective(Protective(ctx)) || IsProtective(ctx) {
		t.Fatal("IsProtective")
	}
}

// TestWorkingLeavesTheReserve: working-order requests take a budget only
// up to its reserve; the reserved slot is still there for a protective
// (or ordinary) request at once, and the working request goes when the
// window frees.
func TestWorkingLeavesTheReserve(t *testing.T) {
	const g = Group("test")
	l := NewLimiter(SystemClock{}, map[Group]RateLimit{g: {N: 2, Window: 200 * time.Millisecond}})
	l.SetMargin(0)
	ctx := context.Background()
	work := Working(ctx)
	if err := l.Wait(work, g, ""); err != nil {
		t.Fatal(err)
	}
	if b := l.Budget(g, ""); b.Remaining != 1 {
		t.Fatalf("remaining %d after one working request", b.Remaining)
	}
	start := time.Now()
	if err := l.Wait(work, g, ""); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Fatalf("the second working request took the reserved slot after %v", waited)
	}
	start = time.Now()
	if err := l.Wait(Protective(ctx), g, ""); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited > 50*time.Millisecond {
		t.Fatalf("the protective request waited %v with the reserve free", waited)
	}
	one := NewLimiter(SystemClock{}, map[Group]RateLimit{g: {N: 1, Window: time.Second}})
	if err := one.Wait(work, g, ""); err != nil {
		t.Fatalf("a budget of one has no room for a reserve: %v", err)
	}
	if !IsWorking(work) || IsWorking(ctx) {
		t.Fatal("IsWorking")
	}
}
