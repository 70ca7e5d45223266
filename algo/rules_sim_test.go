package algo

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"tradedeck/algo/store"
	"tradedeck/venue"
)

// lossyVenue answers the first exit send with an unknown result: either
// the order reached the venue and the reply was lost (sent), or the
// venue failed before taking it (a 503 it never acted on).
type lossyVenue struct {
	Venue
	reached bool
	n       atomic.Int32
}

func (l *lossyVenue) SendOrder(ctx context.Context, r venue.OrderRequest) (venue.OrderAck, error) {
	if r.Type != venue.Market || l.n.Add(1) > 1 {
		return l.Venue.SendOrder(ctx, r)
	}
	if l.reached {
		_, _ = l.Venue.SendOrder(ctx, r)
		return venue.OrderAck{}, context.DeadlineExceeded
	}
	return venue.OrderAck{}, &venue.APIError{HTTPStatus: 503, Message: "service unavailable"}
}

func testUnknownSend(t *testing.T, reached bool) {
	lv := &lossyVenue{reached: reached}
	h := newHarness(t, hopts{venueWrap: func(v Venue) Venue { lv.Venue = v; return lv }})
	a, trigger := h.armStop("PERP_ETH_USDT")
	h.sweep("PERP_ETH_USDT", venue.Sell, dec(trigger).Sub(dec("0.5")).String(), "50")
	h.waitState(a.ID, StateDone)
	if n := len(h.sent(a.ID)); n != 1 {
		t.Fatalf("%d exits reached the venue, want 1", n)
	}
	if p := h.position("PERP_ETH_USDT"); !p.IsZero() {
		t.Fatalf("position %s", p)
	}
}

// A send whose reply was lost is looked up by its client order id before
// anything else: found, it is followed, never sent again.
func TestUnknownSendThatReachedTheVenueIsNotResent(t *testing.T) { testUnknownSend(t, true) }

// A send the venue never took (a 5xx before it acted) is looked up,
// found missing, and sent again with the next attempt's id: one order.
func TestUnknownSendThatNeverArrivedIsSentOnce(t *testing.T) { testUnknownSend(t, false) }

// A stop-market half filled in a gap (the venue cancels a MARKET's rest
// past its price range) repeats for the remainder until the position is
// flat, each retry announced.
func TestStopMarketRepeatsUntilFlat(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	a, trigger := h.armStop(sym)
	low := dec(trigger).Mul(dec("0.99")).Round(2)
	h.sweep(sym, venue.Sell, low.String(), "500") // the whole bid side is gone
	thin := dec(trigger).Sub(dec("1"))
	h.quote(sym, venue.Buy, thin.String(), "0.2") // one thin bid under the stop: the gap
	h.eventually("a retry announced", 10*time.Second, func() bool { return h.events.count(a.ID, EventRetried) > 0 })
	h.quote(sym, venue.Buy, thin.Sub(dec("1")).String(), "5") // the book refills
	h.waitState(a.ID, StateDone)
	if p := h.position(sym); !p.IsZero() {
		t.Fatalf("position %s", p)
	}
	sent := h.sent(a.ID)
	if len(sent) < 2 || sent[0].Get("order_quantity") != "0.5" || sent[1].Get("order_quantity") != "0.3" {
		t.Fatalf("sent %v", sent)
	}
	for _, o := range sent {
		if o.Get("reduce_only") != "true" || o.Get("side") != "SELL" {
			t.Fatalf("exit %v", o)
		}
	}
}

// A stop-limit whose LIMIT does not fill follows its declared policy:
// after market-after, the rest is cancelled, its final state awaited, and
// sent at MARKET.
func TestStopLimitMarketAfterPolicy(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	h.openPosition(sym, venue.Buy, "0.5")
	bid, _ := h.book(sym)
	trigger := bid.Mul(dec("0.998")).Round(2)
	limit := trigger.Sub(dec("0.2"))
	a := h.add("stop "+sym+" "+trigger.String()+" limit "+limit.String()+" market-after 1s", Confirm{})
	h.waitFresh(sym, SourceBid)
	h.sweep(sym, venue.Sell, limit.Sub(dec("3")).String(), "500") // bids fall well under the limit
	h.eventually("the LIMIT rests", 10*time.Second, func() bool { return len(h.openOrders(sym)) == 1 })
	h.waitState(a.ID, StateDone)
	sent := h.sent(a.ID)
	if len(sent) != 2 || sent[0].Get("order_type") != "LIMIT" || sent[0].Get("order_price") != limit.String() || sent[1].Get("order_type") != "MARKET" {
		t.Fatalf("sent %v", sent)
	}
	if p := h.position(sym); !p.IsZero() {
		t.Fatalf("position %s", p)
	}
	if len(h.openOrders(sym)) != 0 {
		t.Fatal("something still rests")
	}
}

// CancelAll (flatten, panic cancel, read-only) stops every algo first:
// nothing fires afterwards, and the resting take-profits are cancelled
// on the venue before it returns.
func TestCancelAllStopsAlgosFirst(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	h.openPosition(sym, venue.Buy, "0.5")
	bid, ask := h.book(sym)
	stop := h.add("stop "+sym+" "+bid.Mul(dec("0.998")).Round(2).String(), Confirm{})
	oco := h.add("oco "+sym+" "+ask.Mul(dec("1.003")).Round(2).String()+" "+bid.Mul(dec("0.997")).Round(2).String(), Confirm{})
	h.eventually("the take-profit rests", 10*time.Second, func() bool { return len(h.openOrders(sym)) == 1 })
	h.waitFresh(sym, SourceBid)
	if err := h.eng.CancelAll(Scope{Why: "panic cancel"}); err != nil {
		t.Fatal(err)
	}
	if n := len(h.openOrders(sym)); n != 0 {
		t.Fatalf("%d orders rest after CancelAll returned", n)
	}
	h.sweep(sym, venue.Sell, bid.Mul(dec("0.99")).Round(2).String(), "500")
	time.Sleep(300 * time.Millisecond)
	for _, id := range []ID{stop.ID, oco.ID} {
		g, _ := h.eng.Get(id)
		if g.State != StateCancelled || g.Reason != "panic cancel" {
			t.Fatalf("#%d: %s %q", id, g.State, g.Reason)
		}
	}
	if n := len(h.sent(stop.ID)); n != 0 {
		t.Fatalf("the cancelled stop sent %d", n)
	}
	if p := h.position(sym); !p.Equal(dec("0.5")) {
		t.Fatalf("position %s", p)
	}
}

// On spot the stop sells the free base balance, not reduce-only.
func TestSpotStopSellsFreeBalance(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "SPOT_ETH_USDT"
	bid, _ := h.book(sym)
	trigger := bid.Mul(dec("0.998")).Round(2)
	a := h.add("stop "+sym+" "+trigger.String()+" 2", Confirm{})
	if a.Side != "SELL" || a.Spec.Source != SourceBid {
		t.Fatalf("armed %+v", a)
	}
	h.waitFresh(sym, SourceBid)
	h.sweep(sym, venue.Sell, trigger.Sub(dec("0.5")).String(), "100")
	h.waitState(a.ID, StateDone)
	sent := h.sent(a.ID)
	if len(sent) != 1 || sent[0].Get("order_quantity") != "2" || sent[0].Get("reduce_only") != "" || sent[0].Get("side") != "SELL" {
		t.Fatalf("sent %v", sent)
	}
}

// unreadableVenue cannot read orders by client id (a venue in trouble).
type unreadableVenue struct{ Venue }

func (u unreadableVenue) GetOrderByClientID(context.Context, int64) (venue.Order, error) {
	return venue.Order{}, &venue.APIError{HTTPStatus: 502, Message: "bad gateway"}
}

// An algo whose child cannot be settled with the venue on start is shown
// as "needs decision", never guessed; resuming it works once the venue
// answers.
func TestUnsettledChildNeedsDecision(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	h.openPosition(sym, venue.Buy, "0.4")
	_, ask := h.book(sym)
	a := h.add("tp "+sym+" "+ask.Mul(dec("1.003")).Round(2).String(), Confirm{})
	h.eventually("the take-profit rests", 10*time.Second, func() bool { return len(h.openOrders(sym)) == 1 })
	h.crash()
	h.start(hopts{venueWrap: func(v Venue) Venue { return unreadableVenue{v} }})
	g, _ := h.eng.Get(a.ID)
	if g.State != StateNeedsDecision || g.Reason == "" {
		t.Fatalf("state %s %q", g.State, g.Reason)
	}
	if evs, err := h.st.Events(h.eng.cfg.Account, 50); err != nil || !hasKind(evs, "needs decision") {
		h.eng.journalMoving()
		if evs, _ = h.st.Events(h.eng.cfg.Account, 50); !hasKind(evs, "needs decision") {
			t.Fatalf("no needs-decision event in the database: %+v %v", evs, err)
		}
	}
	if err := h.eng.Resolve(a.ID, DecisionCancel); err != nil && !errors.Is(err, ErrFinal) {
		t.Logf("cancel: %v", err)
	}
	g, _ = h.eng.Get(a.ID)
	if g.State != StateCancelled {
		t.Fatalf("after the decision: %s", g.State)
	}
}

func hasKind(evs []store.EventRow, kind string) bool {
	for _, e := range evs {
		if e.Kind == kind {
			return true
		}
	}
	return false
}
