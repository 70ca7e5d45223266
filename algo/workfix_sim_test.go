package algo

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tradedeck/venue"
)

// holdVenue holds every send once armed, before it reaches the venue
// (the engine is killed there: the journaled child never left).
type holdVenue struct {
	Venue
	armed atomic.Bool
	held  chan struct{} // closed at the first held send
	once  atomic.Bool
	never chan struct{}
}

func (v *holdVenue) SendOrder(ctx context.Context, r venue.OrderRequest) (venue.OrderAck, error) {
	if v.armed.Load() {
		if v.once.CompareAndSwap(false, true) {
			close(v.held)
		}
		<-v.never
		return venue.OrderAck{}, context.Canceled
	}
	return v.Venue.SendOrder(ctx, r)
}

// A ladder paused (its rungs cancelled) and resumed, killed (-9) before
// it put the rungs back: the restart reads "put them back" from the
// journal and places each rung once.
func TestScaleResumedThenKilledPutsTheRungsBack(t *testing.T) {
	hv := &holdVenue{held: make(chan struct{}), never: make(chan struct{})}
	h := newHarness(t, hopts{venueWrap: func(v Venue) Venue { hv.Venue = v; return hv }})
	t.Cleanup(func() { close(hv.never) })
	const sym = "PERP_ETH_USDT"
	bid, _ := h.book(sym)
	a := h.add("scale "+sym+" buy 0.03 from "+bid.Sub(dec("5")).String()+" to "+bid.Sub(dec("7")).String()+" count 3", Confirm{})
	h.eventually("3 rungs resting", 10*time.Second, func() bool { return h.resting(a.ID) == 3 })
	if err := h.eng.Pause(a.ID, ""); err != nil {
		t.Fatal(err)
	}
	if n := len(h.openOrders(sym)); n != 0 {
		t.Fatalf("%d orders open after the pause", n)
	}
	hv.armed.Store(true)
	if err := h.eng.Resume(a.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-hv.held:
	case <-time.After(10 * time.Second):
		t.Fatal("the resumed ladder sent nothing")
	}
	h.crash()
	h.start(hopts{})
	h.eventually("3 rungs back on the venue", 10*time.Second, func() bool { return len(h.openOrders(sym)) == 3 })
	time.Sleep(500 * time.Millisecond)
	if n := len(h.sent(a.ID)); n != 6 {
		t.Fatalf("%d orders reached the venue, want 3 then the 3 put back\n%s", n, h.events.text(a.ID))
	}
	if st := h.state(a.ID); st != StateWorking {
		t.Fatalf("the ladder is %s", st)
	}
	h.noDoubles(a.ID)
}

// A chase's order cancelled outside the engine (another screen, the
// venue's own cancel) pauses the chase, loudly, with the reason, and is
// not put back; Resume works the book again. (A POST_ONLY refused for
// crossing is re-placed instead: TestChasePostOnlyRefusedIsRepricedNotLooped.)
func TestChaseCancelledOutsideTheEnginePauses(t *testing.T) {
	for _, post := range []bool{false, true} {
		name := "limit"
		if post {
			name = "post"
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, hopts{})
			const sym = "PERP_ETH_USDT"
			bid, _ := h.book(sym)
			line := "chase " + sym + " buy 0.05 leash " + bid.Add(dec("10")).String()
			if post {
				line += " post"
			}
			a := h.add(line, Confirm{})
			h.waitFresh(sym, SourceBid)
			h.waitPeg(a.ID, bid)
			g, _ := h.eng.Get(a.ID)
			cid := g.Children[len(g.Children)-1].ClientOrderID
			if err := h.client.CancelOrderByClientID(context.Background(), sym, cid); err != nil {
				t.Fatal(err)
			}
			got := h.waitState(a.ID, StatePaused)
			if !strings.Contains(got.Reason, "cancelled outside the engine") {
				t.Fatalf("paused: %q", got.Reason)
			}
			if h.events.count(a.ID, EventInterrupted) != 1 || !EventInterrupted.Loud() {
				t.Fatalf("no loud event\n%s", h.events.text(a.ID))
			}
			time.Sleep(700 * time.Millisecond)
			if n := len(h.sent(a.ID)); n != 1 || len(h.openOrders(sym)) != 0 {
				t.Fatalf("%d orders sent, %d open: the cancelled order was put back\n%s", n, len(h.openOrders(sym)), h.events.text(a.ID))
			}
			if err := h.eng.Resume(a.ID); err != nil {
				t.Fatal(err)
			}
			h.waitPeg(a.ID, bid)
			if st := h.state(a.ID); st != StateWorking {
				t.Fatalf("resumed: %s", st)
			}
			h.noDoubles(a.ID)
		})
	}
}

// A ladder's rung whose send has no answer yet is in flight, not open:
// OrdersOpen counts what the venue holds open.
func TestScaleProgressCountsOnlyWhatTheVenueHoldsOpen(t *testing.T) {
	hv := &holdVenue{held: make(chan struct{}), never: make(chan struct{})}
	h := newHarness(t, hopts{venueWrap: func(v Venue) Venue { hv.Venue = v; return hv }})
	t.Cleanup(func() { close(hv.never) })
	const sym = "PERP_ETH_USDT"
	bid, _ := h.book(sym)
	a := h.add("scale "+sym+" buy 0.02 from "+bid.Sub(dec("5")).String()+" to "+bid.Sub(dec("7")).String()+" count 2", Confirm{})
	h.eventually("2 rungs resting", 10*time.Second, func() bool { return h.resting(a.ID) == 2 })
	if err := h.eng.Pause(a.ID, ""); err != nil {
		t.Fatal(err)
	}
	hv.armed.Store(true)
	if err := h.eng.Resume(a.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-hv.held:
	case <-time.After(10 * time.Second):
		t.Fatal("the resumed ladder sent nothing")
	}
	if p := h.progress(a.ID); p.OrdersOpen != 0 || p.OrdersInFlight != 1 {
		t.Fatalf("open %d, in flight %d; the venue holds %d open", p.OrdersOpen, p.OrdersInFlight, len(h.openOrders(sym)))
	}
	h.crash()
}

// A TWAP with bounded catch-up stalled near its end (killed, restarted
// after 3 of its 4 slots were due) catches up by at most its bound and
// stops at its end: nothing reaches the venue after it, and the final
// state says what was not done instead of running on.
func TestTWAPBoundedCatchUpEndsAtItsEnd(t *testing.T) {
	const speed = 10
	clock := scaledClock(speed)
	o := hopts{work: clock}
	h := newHarness(t, o)
	const sym = "PERP_ETH_USDT"
	t0 := time.Now()
	a := h.add("twap "+sym+" buy 0.04 over 1m slices 4 catchup 1", Confirm{})
	h.eventually("the first slice filled", 5*time.Second, func() bool { return h.progress(a.ID).Filled.Equal(dec("0.01")) })
	h.crash()
	time.Sleep(time.Until(t0.Add(48 * time.Second / speed))) // slots 1 and 2 missed, slot 3 due
	h.start(o)
	got := h.waitStateWithin(a.ID, StateDone, 15*time.Second)
	end := t0.Add(time.Minute / speed)
	sent, at := h.sentAt(a.ID)
	for i := range sent {
		if at[i].After(end.Add(100 * time.Millisecond)) {
			t.Fatalf("slice %d reached the venue %s after the end\n%s", i, at[i].Sub(end), h.events.text(a.ID))
		}
	}
	if !got.Work.Filled.Equal(dec("0.03")) || !strings.Contains(got.Reason, "0.01 not done") {
		t.Fatalf("filled %s: %q (%d slices sent)\n%s", got.Work.Filled, got.Reason, len(sent), h.events.text(a.ID))
	}
	h.noDoubles(a.ID)
}
