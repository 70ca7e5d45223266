package algo

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

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

// resumedLadderHeld places a ladder of n rungs of 0.01, pauses it (its
// rungs cancelled), and resumes it with every send held before it
// reaches the venue; it returns once the first rung put back is held.
func resumedLadderHeld(t *testing.T, sym string, n int) (*harness, Algo) {
	t.Helper()
	hv := &holdVenue{held: make(chan struct{}), never: make(chan struct{})}
	h := newHarness(t, hopts{venueWrap: func(v Venue) Venue { hv.Venue = v; return hv }})
	t.Cleanup(func() { close(hv.never) })
	bid, _ := h.book(sym)
	qty := dec("0.01").Mul(decimal.NewFromInt(int64(n)))
	a := h.add("scale "+sym+" buy "+qty.String()+" from "+bid.Sub(dec("5")).String()+" to "+bid.Sub(dec("7")).String()+" count "+strconv.Itoa(n), Confirm{})
	h.eventually("the rungs resting", 10*time.Second, func() bool { return h.resting(a.ID) == n })
	if err := h.eng.Pause(a.ID, ""); err != nil {
		t.Fatal(err)
	}
	if k := len(h.openOrders(sym)); k != 0 {
		t.Fatalf("%d orders open after the pause", k)
	}
	hv.armed.Store(true)
	if err := h.eng.Resume(a.ID); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, hv.held, "the resumed ladder's first send")
	return h, a
}

// waitClosed waits up to 10 s for ch to be closed.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// A ladder paused (its rungs cancelled) and resumed, killed (-9) before
// it put the rungs back: the restart reads "put them back" from the
// journal and places each rung once.
func TestScaleResumedThenKilledPutsTheRungsBack(t *testing.T) {
	const sym = "PERP_ETH_USDT"
	h, a := resumedLadderHeld(t, sym, 3)
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
			h.eventually("the loud event", 5*time.Second, func() bool { return h.events.count(a.ID, EventInterrupted) == 1 })
			if !EventInterrupted.Loud() {
				t.Fatal("interrupted is not loud")
			}
			time.Sleep(700 * time.Millisecond)
			if n := len(h.sent(a.ID)); n != 1 || len(h.openOrders(sym)) != 0 {
				t.Fatalf("%d orders sent, %d open: the cancelled order was put back\n%s", n, len(h.openOrders(sym)), h.events.text(a.ID))
			}
			if err := h.eng.Resume(a.ID); err != nil {
				t.Fatal(err)
			}
			h.waitFresh(sym, SourceBid) // a quiet market's last bbo may be older than MaxAge by now
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
	const sym = "PERP_ETH_USDT"
	h, a := resumedLadderHeld(t, sym, 2)
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

// limitCrashVenue kills the engine right after the venue took its first
// LIMIT order (a stop-limit's exit): the reply never comes back.
type limitCrashVenue struct {
	Venue
	once  atomic.Bool
	dead  chan struct{}
	never chan struct{}
}

func (c *limitCrashVenue) SendOrder(ctx context.Context, r venue.OrderRequest) (venue.OrderAck, error) {
	ack, err := c.Venue.SendOrder(ctx, r)
	if r.Type == venue.Limit && c.once.CompareAndSwap(false, true) {
		close(c.dead)
		<-c.never
	}
	return ack, err
}

// A power loss after a stop-limit's exit left (synchronous=NORMAL: the
// last commits are lost with the OS, not with kill -9): the journal holds
// the stop armed, no firing, no child, while its exit rests on the venue.
// The market crossed; on restart the engine asks the venue for the id its
// exit would have had, adopts the live order, and sends nothing again.
func TestPowerLossAdoptsTheExitTheJournalLost(t *testing.T) {
	cv := &limitCrashVenue{dead: make(chan struct{}), never: make(chan struct{})}
	h := newHarness(t, hopts{venueWrap: func(v Venue) Venue { cv.Venue = v; return cv }})
	t.Cleanup(func() { close(cv.never) })
	const sym = "PERP_ETH_USDT"
	h.openPosition(sym, venue.Buy, "0.5")
	bid, _ := h.book(sym)
	trigger := bid.Mul(dec("0.998")).Round(2)
	limit := trigger.Add(dec("1")) // above the market once it crossed: the exit rests
	a := h.add("stop "+sym+" "+trigger.String()+" limit "+limit.String(), Confirm{})
	h.waitFresh(sym, SourceBid)
	db := h.st.DB()
	var state, reason, anchor, filled string
	var active, updated int64
	if err := db.QueryRow(`SELECT state, reason, anchor, active, filled, updated_ms FROM algos WHERE id = ?`, a.ID).
		Scan(&state, &reason, &anchor, &active, &filled, &updated); err != nil {
		t.Fatal(err)
	}
	h.sweep(sym, venue.Sell, trigger.Sub(dec("0.5")).String(), "50")
	waitClosed(t, cv.dead, "the stop's exit")
	h.crash()
	// The power loss: the firing's commit (trigger, algo row, child) is gone.
	for _, q := range []string{`DELETE FROM children WHERE algo_id = ?`, `DELETE FROM triggers WHERE algo_id = ?`} {
		if _, err := db.Exec(q, a.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`UPDATE algos SET state = ?, reason = ?, anchor = ?, active = ?, filled = ?, updated_ms = ? WHERE id = ?`,
		state, reason, anchor, active, filled, updated, a.ID); err != nil {
		t.Fatal(err)
	}
	if open := h.openOrders(sym); len(open) != 1 || !open[0].Price.Decimal.Equal(limit) {
		t.Fatalf("the exit is not live on the venue: %+v", open)
	}
	h.start(hopts{})
	h.eventually("the exit adopted", 10*time.Second, func() bool {
		g, _ := h.eng.Get(a.ID)
		return g.State == StateTriggered && len(g.Children) == 1 && g.Children[0].Status == "NEW"
	})
	if g, _ := h.eng.Get(a.ID); g.Fired == nil || !strings.Contains(g.Fired.Why, "found on the venue") {
		t.Fatalf("adoption not said: %+v", g.Fired)
	}
	time.Sleep(500 * time.Millisecond)
	if n := len(h.sent(a.ID)); n != 1 || len(h.openOrders(sym)) != 1 {
		t.Fatalf("%d exits sent, %d open: sent twice\n%s", n, len(h.openOrders(sym)), h.events.text(a.ID))
	}
	h.quote(sym, venue.Buy, limit.String(), "1") // someone takes the exit
	h.waitState(a.ID, StateDone)
	if p := h.position(sym); !p.IsZero() {
		t.Fatalf("position %s", p)
	}
	rows, err := h.st.Children(int64(a.ID))
	if err != nil || len(rows) != 1 || rows[0].Status != "FILLED" {
		t.Fatalf("database children %+v: %v", rows, err)
	}
	h.noDoubles(a.ID)
}

// stuckCancelVenue never gets a LIMIT order's cancel through: the
// request times out and the order stays open on the venue.
type stuckCancelVenue struct {
	Venue
	mu      sync.Mutex
	limits  map[int64]bool
	refused atomic.Int32
}

func (v *stuckCancelVenue) SendOrder(ctx context.Context, r venue.OrderRequest) (venue.OrderAck, error) {
	if r.Type == venue.Limit {
		v.mu.Lock()
		v.limits[r.ClientOrderID] = true
		v.mu.Unlock()
	}
	return v.Venue.SendOrder(ctx, r)
}

func (v *stuckCancelVenue) CancelOrderByClientID(ctx context.Context, symbol string, cid int64) error {
	v.mu.Lock()
	stuck := v.limits[cid]
	v.mu.Unlock()
	if stuck {
		v.refused.Add(1)
		return context.DeadlineExceeded
	}
	return v.Venue.CancelOrderByClientID(ctx, symbol, cid)
}

// An OCO of 0.3 on a long of 0.5 whose take-profit cannot be cancelled
// (the venue never confirms it) when the stop fires: the stop closes at
// once what the take-profit surely does not cover (0.5 - 0.3 = 0.2,
// reduce-only: the two never add up to more than the position) and asks
// about the rest, instead of leaving the whole position unprotected.
func TestStopFiresForWhatAnUnconfirmedTPDoesNotCover(t *testing.T) {
	sv := &stuckCancelVenue{limits: map[int64]bool{}}
	h := newHarness(t, hopts{venueWrap: func(v Venue) Venue { sv.Venue = v; return sv }})
	const sym = "PERP_ETH_USDT"
	h.openPosition(sym, venue.Buy, "0.5")
	bid, ask := h.book(sym)
	tp, sl := ask.Mul(dec("1.003")).Round(2), bid.Mul(dec("0.998")).Round(2)
	a := h.add("oco "+sym+" "+tp.String()+" "+sl.String()+" 0.3", Confirm{})
	h.eventually("the take-profit resting", 10*time.Second, func() bool { return len(h.openOrders(sym)) == 1 })
	h.waitFresh(sym, SourceBid)
	h.sweep(sym, venue.Sell, sl.Sub(dec("0.5")).String(), "50")
	got := h.waitStateWithin(a.ID, StateNeedsDecision, 20*time.Second)
	if sv.refused.Load() == 0 {
		t.Fatal("the take-profit's cancel was never tried")
	}
	sent := h.sent(a.ID)
	if len(sent) != 2 {
		t.Fatalf("%d orders sent, want the take-profit and one exit\n%s", len(sent), h.events.text(a.ID))
	}
	exit := sent[1]
	if exit.Get("order_type") != "MARKET" || exit.Get("order_quantity") != "0.2" || exit.Get("reduce_only") != "true" || exit.Get("side") != "SELL" {
		t.Fatalf("exit %v, want MARKET SELL 0.2 reduce-only", exit)
	}
	if p := h.position(sym); !p.Equal(dec("0.3")) {
		t.Fatalf("position %s, want the 0.3 the take-profit holds", p)
	}
	if open := h.openOrders(sym); len(open) != 1 || !open[0].Price.Decimal.Equal(tp) {
		t.Fatalf("open %+v, want the take-profit", open)
	}
	if !strings.Contains(got.Reason, "the stop closed 0.2") || !strings.Contains(got.Reason, "not confirmed the cancel of take-profit") {
		t.Fatalf("reason %q", got.Reason)
	}
	h.noDoubles(a.ID)
}
