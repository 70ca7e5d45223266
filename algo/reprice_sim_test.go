package algo

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/venue"
)

// readsOf counts the REST reads (GET by client order id) of an algo's
// children that reached the venue.
func (h *harness) readsOf(id ID) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, cid := range h.reads {
		if gid, _, _, ok := ParseClientOrderID(h.st.ClientIDPrefix(), cid); ok && gid == id {
			n++
		}
	}
	return n
}

// waitStreamSettled waits until the private stream has been live for
// streamSettle: every child sent from then on is one the stream carries.
func (h *harness) waitStreamSettled() {
	h.t.Helper()
	h.eventually("the private stream live and settled", 10*time.Second, func() bool {
		at := h.eng.privateLive.Load()
		return h.eng.privateUp.Load() && at != 0 && time.Since(time.Unix(0, at)) > streamSettle+100*time.Millisecond
	})
}

// A chase's re-price learns the cancelled order's final state from the
// private stream, which carries it a few ms after the cancel, not from a
// REST read at once: re-prices leave the account's order-read budget (10
// a second, shared by every chaser) alone. Each new order is still sized
// from what the cancelled one filled: the whole quantity, once.
func TestChaseRepriceWaitsForTheStreamNotREST(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	h.waitStreamSettled()
	a, bid, pos0 := h.chaseAtBid(sym)
	_, ask := h.book(sym)
	const n = 6
	reads0 := h.readsOf(a.ID)
	for i := 1; i <= n; i++ {
		// each quote inside the spread raises the bid: one re-price each
		px := bid.Add(ask.Sub(bid).Mul(decimal.NewFromInt(int64(i))).Div(decimal.NewFromInt(2 * n)).Round(2))
		h.quote(sym, venue.Buy, px.String(), "0.1")
		h.waitPeg(a.ID, px)
	}
	reads, p := h.readsOf(a.ID)-reads0, h.progress(a.ID)
	if p.Reprices < n {
		t.Fatalf("%d re-prices, want %d\n%s", p.Reprices, n, h.events.text(a.ID))
	}
	// Each re-price read its cancelled order at once before (one GET per
	// re-price at least); now none does unless the stream stayed silent
	// for the bound, which a loaded machine may cause now and then.
	if reads*2 >= n {
		t.Fatalf("%d REST reads of the chase's orders over %d re-prices, want the stream to answer (fewer than half)", reads, n)
	}
	t.Logf("%d re-prices, %d REST reads of the chase's orders", p.Reprices, reads)
	for _, o := range h.sent(a.ID) {
		if q := dec(o.Get("order_quantity")); !q.Equal(dec("0.05")) {
			t.Fatalf("sent %v: nothing filled, every order is for 0.05", o)
		}
	}
	last := h.sent(a.ID)[len(h.sent(a.ID))-1]
	h.sweep(sym, venue.Sell, dec(last.Get("order_price")).Sub(dec("5")).String(), "50")
	h.waitState(a.ID, StateDone)
	if got := h.position(sym).Sub(pos0); !got.Equal(dec("0.05")) {
		t.Fatalf("position moved by %s, want exactly 0.05\n%s", got, h.events.text(a.ID))
	}
	h.noDoubles(a.ID)
}

// deafOrders hides the private stream's order reports from the engine
// while deaf is set; the stream stays live (health passes through).
type deafOrders struct {
	*Engine
	deaf atomic.Bool
}

func (d *deafOrders) ObserveOrder(o feed.Order) {
	if !d.deaf.Load() {
		d.Engine.ObserveOrder(o)
	}
}

// A re-price whose cancel the live private stream never reports (a lost
// frame) reads the order from REST once the bounded wait ends, and goes
// on: sized from what the cancelled order filled.
func TestChaseRepriceReadsRESTWhenTheStreamStaysSilent(t *testing.T) {
	var d *deafOrders
	h := newHarness(t, hopts{observer: func(e *Engine) feed.Observer { d = &deafOrders{Engine: e}; return d }})
	const sym = "PERP_ETH_USDT"
	h.waitStreamSettled()
	a, bid, _ := h.chaseAtBid(sym)
	d.deaf.Store(true)
	reads0 := h.readsOf(a.ID)
	px := bid.Add(dec("0.01"))
	h.quote(sym, venue.Buy, px.String(), "0.1")
	h.eventually("the re-priced order sent", 10*time.Second, func() bool { return len(h.sent(a.ID)) == 2 })
	if h.readsOf(a.ID) == reads0 {
		t.Fatal("re-priced without knowing the cancelled order's final state: no stream report, no REST read")
	}
	sent := h.sent(a.ID)
	if last := sent[len(sent)-1]; !dec(last.Get("order_price")).Equal(px) || !dec(last.Get("order_quantity")).Equal(dec("0.05")) {
		t.Fatalf("re-placed %v, want 0.05 @ %s", last, px)
	}
	g, _ := h.eng.Get(a.ID)
	if g.State != StateWorking {
		t.Fatalf("%s: %s", g.State, g.Reason)
	}
}
