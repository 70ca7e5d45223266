package algo

import (
	"errors"
	"testing"
	"time"

	"tradedeck/venue"
)

// An amended stop watches its new level only: the market crossing the old
// level fires nothing, crossing the new one fires it once; an amend to a
// level the market is already through is refused (amending never fires).
func TestAmendedStopFiresAtItsNewLevelOnly(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	a, trig := h.armStop(sym)
	old := dec(trig)
	bid, _ := h.book(sym)
	if err := h.eng.AmendTrigger(a.ID, LegStop, bid.Add(dec("5"))); !errors.Is(err, ErrThrough) {
		t.Fatalf("amend through the market: %v, want ErrThrough", err)
	}
	lower := old.Sub(dec("3")).Round(2)
	if err := h.eng.AmendTrigger(a.ID, LegStop, lower); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.eng.Get(a.ID); !got.Spec.Trigger.Equal(lower) {
		t.Fatalf("trigger %s after the amend, want %s", got.Spec.Trigger, lower)
	}
	// Through the old level, not the new one: nothing fires.
	h.sweep(sym, venue.Sell, old.Sub(dec("1")).String(), "50")
	h.waitFresh(sym, SourceBid)
	time.Sleep(300 * time.Millisecond)
	if st := h.state(a.ID); st != StateArmed || len(h.sent(a.ID)) != 0 {
		t.Fatalf("fired at the old level: %s, %v", st, h.sent(a.ID))
	}
	h.sweep(sym, venue.Sell, lower.Sub(dec("0.5")).String(), "50")
	got := h.waitState(a.ID, StateDone)
	if n := len(h.sent(a.ID)); n != 1 {
		t.Fatalf("%d orders sent, want 1", n)
	}
	if got.Fired == nil || got.Fired.Price.GreaterThan(lower) {
		t.Fatalf("firing %+v, want a price at or below %s", got.Fired, lower)
	}
	if err := h.eng.AmendTrigger(a.ID, LegStop, lower); !errors.Is(err, ErrFinal) {
		t.Fatalf("amend after it fired: %v, want ErrFinal", err)
	}
}
