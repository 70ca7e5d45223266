package ui

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/internal/testkit"
	"tradedeck/panes/common"
	"tradedeck/panes/confirm/cmdtest"
	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/theme"
	"tradedeck/trade"
	"tradedeck/venue"
)

// feedWatch keeps the latest account snapshot and every event of a feed.
type feedWatch struct {
	mu      sync.Mutex
	acct    *feed.Account
	events  []feed.Event
	pending map[int64]bool // client ids ever seen PENDING in Open
	changed chan struct{}
}

func watchFeed(ctx context.Context, f *feed.Feed) *feedWatch {
	w := &feedWatch{pending: map[int64]bool{}, changed: make(chan struct{}, 1)}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case u, ok := <-f.Updates():
				if !ok {
					return
				}
				w.mu.Lock()
				if u.Account != nil {
					w.acct = u.Account
					for _, o := range u.Account.Open {
						if o.Status == feed.StatusPending {
							w.pending[o.ClientOrderID] = true
						}
					}
				}
				w.events = append(w.events, u.Events...)
				w.mu.Unlock()
				select {
				case w.changed <- struct{}{}:
				default:
				}
			}
		}
	}()
	return w
}

// waitFor polls cond on every update, failing after a generous timeout.
func (w *feedWatch) waitFor(t *testing.T, what string, cond func(a *feed.Account, ev []feed.Event) bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		w.mu.Lock()
		ok := w.acct != nil && cond(w.acct, w.events)
		w.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-w.changed:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func orderIn(list []feed.Order, cid int64) (feed.Order, bool) {
	for _, o := range list {
		if o.ClientOrderID == cid {
			return o, true
		}
	}
	return feed.Order{}, false
}

// An order sent through the Trader shows at once as PENDING in the feed's
// open orders (the venue is held back from answering), then follows the
// private stream: NEW, FILLED when crossed, CANCELLED when cancelled, and
// CANCELLED with the venue's reason for a POST_ONLY that would take.
func TestPendingThenExecutionReports(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	var refuse atomic.Bool // answer the next order with -1012
	hold := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && r.URL.Path == "/v1/order" {
				<-release
				if refuse.CompareAndSwap(true, false) {
					w.WriteHeader(http.StatusBadRequest)
					_, _ = w.Write([]byte(`{"success":false,"code":-1012,"message":"account in liquidation"}`)) // the client may be gone
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
	inst := simtest.Start(t, sim.Options{Seed: 9, NoRateLimits: true, Middleware: []func(http.Handler) http.Handler{hold},
		Living: sim.LivingOptions{NoMarket: true}})
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil))
	const sym = "SPOT_ETH_USDT"
	f := feed.New(feed.Config{Endpoints: inst.Endpoints, Credentials: inst.Credentials, REST: client,
		Watchlist: []string{sym}, Symbol: sym, FrameInterval: 10 * time.Millisecond})
	go func() { _ = f.Run(ctx) }() // ends with ctx's error when the test ends
	w := watchFeed(ctx, f)
	w.waitFor(t, "the account", func(a *feed.Account, _ []feed.Event) bool { return len(a.Balances) > 0 })

	tr := NewTrader(TraderOptions{Desk: deskOn(t, client, f)})
	ob, err := client.OrderBook(ctx, sym, 1)
	if err != nil {
		t.Fatal(err)
	}
	tick := decimal.RequireFromString("0.01")
	inside := ob.Bids[0].Price.Add(tick) // the new best bid
	buy := trade.Order{Symbol: sym, Side: trade.Buy, Type: trade.Limit, Price: inside, Quantity: decimal.RequireFromString("0.05"), ClientOrderID: 5001}

	done := make(chan OrderResultMsg, 1)
	go func() { done <- tr.send(buy)().(OrderResultMsg) }()
	w.waitFor(t, "PENDING", func(a *feed.Account, _ []feed.Event) bool {
		o, ok := orderIn(a.Open, 5001)
		return ok && o.Status == feed.StatusPending
	})
	once.Do(func() { close(release) })
	if res := <-done; res.Err != nil {
		t.Fatal(res.Err)
	}
	w.waitFor(t, "NEW", func(a *feed.Account, _ []feed.Event) bool {
		o, ok := orderIn(a.Open, 5001)
		return ok && o.Status == "NEW" && o.OrderID != 0
	})

	// Cross it from the subaccount: FILLED, with a fill event.
	sub := venue.NewClient(inst.Endpoints, inst.SubCredentials, venue.WithLimiter(nil))
	if _, err := sub.SendOrder(ctx, venue.OrderRequest{Symbol: sym, Side: venue.Sell, Type: venue.Limit, Price: inside,
		Quantity: decimal.RequireFromString("0.05")}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "FILLED", func(a *feed.Account, ev []feed.Event) bool {
		o, ok := orderIn(a.History, 5001)
		filled := false
		for _, e := range ev {
			if e.Kind == feed.EventFill && e.Fill != nil && e.Fill.ClientOrderID == 5001 {
				filled = true
			}
		}
		return ok && o.Status == "FILLED" && o.Executed.Equal(buy.Quantity) && filled
	})

	// Cancel a resting order through the Trader's cancel path.
	far := trade.Order{Symbol: sym, Side: trade.Buy, Type: trade.Limit, Price: ob.Bids[0].Price.Sub(decimal.NewFromInt(50)),
		Quantity: decimal.RequireFromString("0.05"), ClientOrderID: 5002}
	if res := tr.send(far)().(OrderResultMsg); res.Err != nil {
		t.Fatal(res.Err)
	}
	w.waitFor(t, "the second order NEW", func(a *feed.Account, _ []feed.Event) bool {
		o, ok := orderIn(a.Open, 5002)
		return ok && o.Status == "NEW"
	})
	w.mu.Lock()
	resting, _ := orderIn(w.acct.Open, 5002)
	w.mu.Unlock()
	clk := testkit.NewClock(time.Unix(1_760_000_000, 0))
	th, _ := theme.New("dark", false)
	stack := &cmdtest.Stack{}
	stack.Run(tr.CancelOrder(common.Common{Theme: th, Store: common.NewStore(), Now: clk.Now}, resting))
	clk.Advance(time.Second)
	stack.Press("y")
	if res, ok := cmdtest.Find[CancelResultMsg](stack.Seen); !ok || len(res.Errs) != 0 {
		t.Fatalf("cancel: %+v", stack.Seen)
	}
	w.waitFor(t, "CANCELLED", func(a *feed.Account, _ []feed.Event) bool {
		o, ok := orderIn(a.History, 5002)
		return ok && o.Status == "CANCELLED"
	})

	// A POST_ONLY that would take is cancelled by the venue, with its reason.
	ob, _ = client.OrderBook(ctx, sym, 1)
	po := trade.Order{Symbol: sym, Side: trade.Buy, Type: trade.PostOnly, Price: ob.Asks[0].Price,
		Quantity: decimal.RequireFromString("0.05"), ClientOrderID: 5003}
	if res := tr.send(po)().(OrderResultMsg); res.Err != nil {
		t.Fatal(res.Err)
	}
	w.waitFor(t, "POST_ONLY cancelled with a reason", func(a *feed.Account, _ []feed.Event) bool {
		o, ok := orderIn(a.History, 5003)
		return ok && o.Status == "CANCELLED" && o.Reason != ""
	})
	// An order the venue refuses outright leaves PENDING at once, as
	// REJECTED with the explanation.
	refuse.Store(true)
	po.ClientOrderID, po.Price = 5004, ob.Bids[0].Price
	if res := tr.send(po)().(OrderResultMsg); res.Err == nil {
		t.Fatal("the injected -1012 did not arrive")
	}
	w.waitFor(t, "the refused order REJECTED", func(a *feed.Account, _ []feed.Event) bool {
		o, ok := orderIn(a.History, 5004)
		_, open := orderIn(a.Open, 5004)
		return ok && !open && o.Status == "REJECTED" && strings.Contains(o.Reason, "-1012 RPC_REJECT")
	})

	w.mu.Lock()
	sawPending := w.pending[5001]
	w.mu.Unlock()
	if !sawPending {
		t.Fatal("the order never showed as PENDING")
	}
}
