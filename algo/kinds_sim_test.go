package algo

import (
	"testing"
	"time"

	"tradedeck/venue"
)

// openLong buys qty of sym at market for the engine's account and waits
// until the engine knows the position.
func (h *harness) openPosition(sym string, side venue.Side, qty string) {
	h.t.Helper()
	h.trade(sym, side, venue.Market, "", qty)
	want := dec(qty)
	if side == venue.Sell {
		want = want.Neg()
	}
	h.eventually("the engine sees the position", 10*time.Second, func() bool {
		h.eng.mu.Lock()
		defer h.eng.mu.Unlock()
		return h.eng.pos[sym].Equal(want)
	})
}

// A stop-market on a perpetual long fires exactly once when the bid
// crosses it (the market moved by another account through REST): one
// MARKET SELL, reduce-only, the whole position; the position is flat and
// the firing says which bid crossed which level.
func TestStopFiresOnceReduceOnlyWholePosition(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	h.openPosition(sym, venue.Buy, "0.5")
	bid, _ := h.book(sym)
	trigger := bid.Mul(dec("0.998")).Round(2)
	a := h.add("stop "+sym+" "+trigger.String(), Confirm{})
	if a.Spec.Source != SourceBid || a.Side != "SELL" || a.State != StateArmed {
		t.Fatalf("armed as %+v", a)
	}
	h.waitFresh(sym, SourceBid)
	h.sweep(sym, venue.Sell, trigger.Sub(dec("0.5")).String(), "50")
	got := h.waitState(a.ID, StateDone)
	sent := h.sent(a.ID)
	if len(sent) != 1 {
		t.Fatalf("%d orders sent, want 1: %v\n%s", len(sent), sent, h.events.text(a.ID))
	}
	o := sent[0]
	if o.Get("side") != "SELL" || o.Get("order_type") != "MARKET" || o.Get("reduce_only") != "true" || o.Get("order_quantity") != "0.5" {
		t.Fatalf("sent %v", o)
	}
	if p := h.position(sym); !p.IsZero() {
		t.Fatalf("position %s after the stop", p)
	}
	if got.Fired == nil || got.Fired.Source != SourceBid || !got.Fired.Price.LessThanOrEqual(trigger) || got.Fired.Age > time.Second {
		t.Fatalf("firing %+v", got.Fired)
	}
	if n := h.events.count(a.ID, EventTriggered); n != 1 {
		t.Fatalf("%d triggered events", n)
	}
}
