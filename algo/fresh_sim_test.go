package algo

import (
	"testing"
	"time"

	"tradedeck/sim/faults"
	"tradedeck/venue"
)

// armStop opens a long and arms a stop 0.2% under the bid.
func (h *harness) armStop(sym string) (Algo, string) {
	h.t.Helper()
	h.openPosition(sym, venue.Buy, "0.5")
	bid, _ := h.book(sym)
	trigger := bid.Mul(dec("0.998")).Round(2)
	a := h.add("stop "+sym+" "+trigger.String(), Confirm{})
	h.waitFresh(sym, SourceBid)
	return a, trigger.String()
}

// A stalled market stream (connected, silent) fires nothing while the
// market goes through the stop and back; once it is live again, a stop
// the market is still through fires on the next fresh price, once.
func TestStalledStreamDoesNotFireThenFiresIfStillThrough(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	a, trigger := h.armStop(sym)
	h.inst.Faults.Set(faults.Config{StallMarket: true})
	h.sweep(sym, venue.Sell, dec(trigger).Sub(dec("0.5")).String(), "50") // through...
	h.quote(sym, venue.Buy, dec(trigger).Add(dec("1")).String(), "10")    // ...and back
	time.Sleep(1500 * time.Millisecond)                                   // stale (400 ms) and past it
	if st := h.state(a.ID); st != StateArmed || len(h.sent(a.ID)) != 0 {
		t.Fatalf("fired on a stalled stream: %s, %v", st, h.sent(a.ID))
	}
	h.sweep(sym, venue.Sell, dec(trigger).Sub(dec("0.5")).String(), "10") // through again, still stalled
	h.inst.Faults.Set(faults.Config{})
	h.freshUnder(a.ID, sym)
	got := h.waitState(a.ID, StateDone)
	if n := len(h.sent(a.ID)); n != 1 {
		t.Fatalf("%d sent", n)
	}
	if got.Fired.Age > time.Second {
		t.Fatalf("fired on a price %s old", got.Fired.Age)
	}
}

// Frames that arrive late (the venue's frames delayed past MaxAge) fire
// nothing, however far through the level they are.
func TestDelayedFramesDoNotFire(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	a, trigger := h.armStop(sym)
	h.inst.Faults.Set(faults.Config{Delay: 2500 * time.Millisecond})
	h.sweep(sym, venue.Sell, dec(trigger).Sub(dec("0.5")).String(), "50")
	h.quote(sym, venue.Buy, dec(trigger).Add(dec("1")).String(), "10")
	time.Sleep(4 * time.Second) // every delayed frame has arrived
	if st := h.state(a.ID); st != StateArmed || len(h.sent(a.ID)) != 0 {
		t.Fatalf("fired on late frames: %s", st)
	}
	if h.inst.Faults.Counts().DelayedFrames == 0 {
		t.Fatal("nothing was delayed")
	}
}

// While the market stream reconnects (dropped by the venue) nothing
// fires; after it, the next fresh price through the stop fires it once.
func TestDroppedStreamFiresAfterReconnectIfStillThrough(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	a, trigger := h.armStop(sym)
	h.inst.Faults.Set(faults.Config{StallMarket: true})
	time.Sleep(600 * time.Millisecond) // stale
	h.inst.Faults.DropNow()
	h.sweep(sym, venue.Sell, dec(trigger).Sub(dec("0.5")).String(), "50")
	if st := h.state(a.ID); st != StateArmed {
		t.Fatalf("fired while reconnecting: %s", st)
	}
	h.inst.Faults.Set(faults.Config{})
	h.freshUnder(a.ID, sym)
	h.waitState(a.ID, StateDone)
	if n := len(h.sent(a.ID)); n != 1 {
		t.Fatalf("%d sent", n)
	}
}

// freshUnder makes the bbo stream push (a quiet market pushes a bbo only
// when it changes, and the change made while the stream was stalled was
// never sent) until the stop, still through, fires: the mover joins the
// best bid, which is under the stop, with one lot at a time.
func (h *harness) freshUnder(id ID, sym string) {
	h.t.Helper()
	h.eventually("fired on a fresh price", 15*time.Second, func() bool {
		if h.state(id) == StateArmed {
			bid, _ := h.book(sym)
			h.quote(sym, venue.Buy, bid.String(), "0.01")
			time.Sleep(100 * time.Millisecond)
		}
		return h.state(id) != StateArmed
	})
}
