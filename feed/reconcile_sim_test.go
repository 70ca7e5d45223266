package feed_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/sim"
	"tradedeck/sim/faults"
	simws "tradedeck/sim/ws"
	"tradedeck/trade"
	"tradedeck/venue"
)

// lagCompleted is a REST transport whose listing of completed orders
// comes back empty, like a venue whose history lags: the feed must find
// orders that ended while it was not looking one by one instead.
type lagCompleted struct{ hidden atomic.Int64 }

func (l *lagCompleted) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || r.Method != http.MethodGet || r.URL.Path != "/v1/orders" || r.URL.Query().Get("status") != "COMPLETED" {
		return resp, err
	}
	resp.Body.Close()
	l.hidden.Add(1)
	body := `{"success":true,"rows":[],"meta":{"total":0,"records_per_page":25,"current_page":1}}`
	resp.Body = io.NopCloser(bytes.NewReader([]byte(body)))
	resp.ContentLength = int64(len(body))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// Every reconciliation path, deterministically: while the private stream
// is stalled (frames withheld, nothing reaches the feed) an order of ours
// is filled by another account, one is cancelled, and one whose REST call
// had no answer was rejected by the venue. The stream is then dropped; on
// reconnect the reconciliation must announce the fill, the cancel and the
// reject exactly once each, and later reconciliations (another drop, a
// forced one) nothing again. Run with the completed-orders listing
// working, and lagging (orders then found one by one).
func TestReconcileWhatEndedWhileTheStreamWasDown(t *testing.T) {
	for _, lag := range []bool{false, true} {
		t.Run(fmt.Sprintf("completed listing lags=%v", lag), func(t *testing.T) { reconcileOutage(t, lag) })
	}
}

func reconcileOutage(t *testing.T, lag bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const sym = "SPOT_BTC_USDT"
	var lagT *lagCompleted
	h := startHarnessSim(t, ctx, sym, sim.Options{Seed: 4, NoRateLimits: true,
		Living: sim.LivingOptions{NoMarket: true, Streams: simws.Options{UpdateInterval: 20 * time.Millisecond}}},
		func(c *feed.Config) {
			c.PendingTimeout = time.Millisecond // what the outage left pending is looked up at once
			if lag {
				lagT = &lagCompleted{}
				c.REST = venue.NewClient(c.Endpoints, c.Credentials, venue.WithLimiter(nil),
					venue.WithHTTPClient(&http.Client{Transport: lagT, Timeout: 10 * time.Second}))
			}
		})
	h.waitFor("a reconciled account", 10*time.Second, func() bool { return h.st.Account != nil && !h.st.Account.Reconciled.IsZero() })

	// A rests inside the spread (the best bid), B far below it.
	ob, err := h.rest.OrderBook(ctx, sym, 1)
	if err != nil {
		t.Fatal(err)
	}
	rule, err := h.rest.SymbolRule(ctx, sym)
	if err != nil {
		t.Fatal(err)
	}
	r := trade.RuleOf(rule)
	inside := r.AlignPrice(ob.Bids[0].Price.Add(ob.Asks[0].Price).Div(decimal.NewFromInt(2)), trade.Down)
	if !inside.GreaterThan(ob.Bids[0].Price) {
		t.Fatalf("no room inside the spread %s / %s", ob.Bids[0].Price, ob.Asks[0].Price)
	}
	far := r.AlignPrice(ob.Bids[0].Price.Mul(decimal.RequireFromString("0.95")), trade.Down)
	qty := decimal.RequireFromString("0.001")
	place := func(c *venue.Client, cid int64, side venue.Side, price decimal.Decimal) venue.OrderAck {
		t.Helper()
		ack, err := c.SendOrder(ctx, venue.OrderRequest{Symbol: sym, ClientOrderID: cid, Type: venue.Limit, Side: side, Price: price, Quantity: qty})
		if err != nil {
			t.Fatalf("order %d: %v", cid, err)
		}
		return ack
	}
	a := place(h.rest, 501, venue.Buy, inside)
	b := place(h.rest, 502, venue.Buy, far)
	h.waitFor("both acknowledged", 10*time.Second, func() bool {
		return hasOrder(h.st.Account, 501, "NEW") && hasOrder(h.st.Account, 502, "NEW")
	})

	// The outage: everything below is pushed into a stalled stream.
	h.inst.Faults.Set(faults.Config{StallPrivate: true})
	sub := venue.NewClient(h.inst.Endpoints, h.inst.SubCredentials, venue.WithLimiter(nil))
	place(sub, 9001, venue.Sell, inside) // fills A
	if err := h.rest.CancelOrder(ctx, sym, a.OrderID.Int64()); err == nil {
		t.Fatal("A was not filled by the subaccount's sell")
	}
	if err := h.rest.CancelOrder(ctx, sym, b.OrderID.Int64()); err != nil {
		t.Fatal(err)
	}
	// C: sent, refused by the venue (price off the tick), the REST answer
	// lost: the feed only knows it as pending.
	h.f.TrackPending(feed.Order{ClientOrderID: 503, Symbol: sym, Side: "BUY", Type: "LIMIT", Price: inside, Quantity: qty})
	if _, err := h.rest.SendOrder(ctx, venue.OrderRequest{Symbol: sym, ClientOrderID: 503, Type: venue.Limit, Side: venue.Buy,
		Price: inside.Add(r.QuoteTick.Div(decimal.NewFromInt(2))), Quantity: qty}); err == nil {
		t.Fatal("an order off the tick was accepted")
	}
	h.mu.Lock()
	during := len(h.events)
	h.mu.Unlock()

	// Back: the stall ends and the connection drops; the feed reconnects
	// and reconciles.
	h.inst.Faults.Set(faults.Config{})
	h.inst.Faults.DropNow()
	fill, cancelled, rejected := func() int { return countFor(h, feed.EventFill, a.OrderID.Int64(), 0) },
		func() int { return countFor(h, feed.EventCancelled, b.OrderID.Int64(), 0) },
		func() int { return countFor(h, feed.EventRejected, 0, 503) }
	h.waitFor("the fill, the cancel and the reject announced", 20*time.Second, func() bool {
		return fill() >= 1 && cancelled() >= 1 && rejected() >= 1
	})
	// Later reconciliations find the same and announce nothing: another
	// drop, then a forced one; each waited for by its completion time.
	for i, again := range []func(){func() { h.inst.Faults.DropNow() }, h.f.Reconcile} {
		h.mu.Lock()
		last := h.st.Account.Reconciled
		h.mu.Unlock()
		again()
		h.waitFor(fmt.Sprintf("reconciliation %d after the outage", i+2), 20*time.Second, func() bool {
			return h.st.Account.Reconciled.After(last)
		})
	}
	if f, c, r := fill(), cancelled(), rejected(); f != 1 || c != 1 || r != 1 {
		t.Fatalf("announced fill %d, cancel %d, reject %d times; want once each\n%s", f, c, r, eventsAfter(h, during))
	}
	h.mu.Lock()
	acct := h.st.Account
	h.mu.Unlock()
	if !inHistory(acct, a.OrderID.Int64(), "FILLED") || !inHistory(acct, b.OrderID.Int64(), "CANCELLED") || !inHistoryCID(acct, 503, "REJECTED") {
		t.Fatalf("history %+v", acct.History)
	}
	if hasOrder(acct, 501, "NEW") || hasOrder(acct, 502, "NEW") || hasOrder(acct, 503, feed.StatusPending) {
		t.Fatalf("ended orders still open: %+v", acct.Open)
	}
	// The snapshot lists balances by token (the panes rely on a stable
	// order); the demo account holds eight.
	if len(acct.Balances) < 3 || !sort.SliceIsSorted(acct.Balances, func(i, j int) bool { return acct.Balances[i].Token < acct.Balances[j].Token }) {
		t.Fatalf("balances not by token: %+v", acct.Balances)
	}
	if lag && lagT.hidden.Load() == 0 {
		t.Fatal("the completed listing was never asked for")
	}
	h.checkEventsOnce()
}

// countFor counts events of a kind about an order (by id) or a client id.
func countFor(h *harness, k feed.EventKind, orderID, cid int64) int {
	n := 0
	for _, e := range h.events {
		if e.Kind != k {
			continue
		}
		switch {
		case e.Fill != nil && orderID != 0 && e.Fill.OrderID == orderID,
			e.Order != nil && orderID != 0 && e.Order.OrderID == orderID,
			e.Order != nil && cid != 0 && e.Order.ClientOrderID == cid:
			n++
		}
	}
	return n
}

func eventsAfter(h *harness, i int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var b bytes.Buffer
	for _, e := range h.events[i:] {
		fmt.Fprintf(&b, "  %v %s\n", e.Kind, e.Text)
	}
	return b.String()
}

func inHistory(a *feed.Account, id int64, status string) bool {
	for _, o := range a.History {
		if o.OrderID == id && o.Status == status {
			return true
		}
	}
	return false
}

func inHistoryCID(a *feed.Account, cid int64, status string) bool {
	for _, o := range a.History {
		if o.ClientOrderID == cid && o.Status == status {
			return true
		}
	}
	return false
}
