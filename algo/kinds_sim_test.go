package algo

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

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
	a, trig := h.armStop(sym)
	trigger := dec(trig)
	if a.Spec.Source != SourceBid || a.Side != "SELL" || a.State != StateArmed {
		t.Fatalf("armed as %+v", a)
	}
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

// openOrders lists the engine account's open orders of a symbol.
func (h *harness) openOrders(sym string) []venue.Order {
	h.t.Helper()
	os, _, err := h.client.ListOrders(context.Background(), venue.OrderFilter{Symbol: sym, Status: venue.StatusIncomplete})
	if err != nil {
		h.t.Fatal(err)
	}
	return os
}

// A take-profit rests as a reduce-only LIMIT from the moment it is armed
// and fills when the market trades through it; the algo is then done and
// nothing else is sent.
func TestTakeProfitRestsAndFills(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	h.openPosition(sym, venue.Buy, "0.4")
	_, ask := h.book(sym)
	tp := ask.Mul(dec("1.002")).Round(2)
	a := h.add("tp "+sym+" "+tp.String()+" 50%", Confirm{})
	h.eventually("the take-profit rests", 10*time.Second, func() bool {
		os := h.openOrders(sym)
		return len(os) == 1 && os[0].Side == venue.Sell && os[0].Price.Decimal.Equal(tp) &&
			os[0].Quantity.Decimal.Equal(dec("0.2")) && bool(os[0].ReduceOnly)
	})
	h.sweep(sym, venue.Buy, tp.String(), "50")
	h.waitState(a.ID, StateDone)
	if p := h.position(sym); !p.Equal(dec("0.2")) {
		t.Fatalf("position %s, want 0.2 left", p)
	}
	if n := len(h.sent(a.ID)); n != 1 {
		t.Fatalf("%d orders sent", n)
	}
}

// A take-profit at market fires once when the ask... the exit side's
// price (a short's buy: the ask) reaches it.
func TestTakeProfitMarketOnShort(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	h.openPosition(sym, venue.Sell, "0.3")
	_, ask := h.book(sym)
	tp := ask.Mul(dec("0.998")).Round(2)
	a := h.add("tp "+sym+" "+tp.String()+" market", Confirm{})
	if a.Side != "BUY" || a.Spec.Source != SourceAsk {
		t.Fatalf("armed %+v", a)
	}
	h.waitFresh(sym, SourceAsk)
	h.sweep(sym, venue.Buy, tp.Add(dec("1")).String(), "200")  // takes the asks up: no effect on a short's tp below
	h.sweep(sym, venue.Sell, tp.Sub(dec("2")).String(), "50")  // bids down
	h.quote(sym, venue.Sell, tp.Sub(dec("0.5")).String(), "5") // an ask below the tp
	h.waitState(a.ID, StateDone)
	sent := h.sent(a.ID)
	if len(sent) != 1 || sent[0].Get("side") != "BUY" || sent[0].Get("reduce_only") != "true" || sent[0].Get("order_quantity") != "0.3" {
		t.Fatalf("sent %v", sent)
	}
	if p := h.position(sym); !p.IsZero() {
		t.Fatalf("position %s", p)
	}
}

// A trigger already through the market when armed is refused with the
// reason, unless the user chose to fire it: then it fires at once and
// says why.
func TestThroughTheMarketRefusedUnlessChosen(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	h.openPosition(sym, venue.Buy, "0.2")
	bid, _ := h.book(sym)
	above := bid.Add(dec("5"))
	s, _ := Parse("stop " + sym + " " + above.String())
	_, err := h.eng.Add(s, Confirm{})
	if !errors.Is(err, ErrThrough) || !strings.Contains(err.Error(), bid.String()) {
		t.Fatalf("through stop: %v", err)
	}
	if len(h.eng.Snapshot()) != 0 {
		t.Fatal("a refused algo was kept")
	}
	a, err := h.eng.Add(s, Confirm{FireIfThrough: true})
	if err != nil {
		t.Fatal(err)
	}
	got := h.waitState(a.ID, StateDone)
	if got.Fired == nil || !strings.Contains(got.Fired.Why, "already through when armed") {
		t.Fatalf("firing %+v", got.Fired)
	}
	if n := len(h.sent(a.ID)); n != 1 {
		t.Fatalf("%d sent", n)
	}
}

// Nothing to protect is refused with the reason.
func TestNothingToProtect(t *testing.T) {
	h := newHarness(t, hopts{})
	s, _ := Parse("stop PERP_BTC_USDT 90000")
	if _, err := h.eng.Add(s, Confirm{}); !errors.Is(err, ErrNothing) {
		t.Fatalf("no position: %v", err)
	}
}

// A trailing stop follows the best bid up, never down, and fires once
// when the bid falls its distance below the best price seen.
func TestTrailingRatchetsAndFires(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	h.openPosition(sym, venue.Buy, "0.3")
	a := h.add("trail "+sym+" 5", Confirm{})
	h.waitFresh(sym, SourceBid)
	level := func() decimal.Decimal { g, _ := h.eng.Get(a.ID); return g.Triggers[0].Price }
	first := level()
	// Bids up inside the spread: the mover bids above the best bid, twice.
	bid, ask := h.book(sym)
	step := ask.Sub(bid).Div(dec("3")).Round(2)
	up1, up2 := bid.Add(step), bid.Add(step.Mul(dec("2")))
	h.quote(sym, venue.Buy, up1.String(), "1")
	h.eventually("the stop follows the bid up", 5*time.Second, func() bool { return level().Equal(up1.Sub(dec("5"))) })
	h.quote(sym, venue.Buy, up2.String(), "1")
	h.eventually("the stop follows again", 5*time.Second, func() bool { return level().Equal(up2.Sub(dec("5"))) })
	high := level()
	if !high.GreaterThan(first) {
		t.Fatalf("level %s did not rise from %s", high, first)
	}
	// The bid falls back by less than the distance: the stop stays.
	h.sweep(sym, venue.Sell, up1.String(), "2")
	time.Sleep(300 * time.Millisecond)
	if !level().Equal(high) || h.state(a.ID) != StateArmed {
		t.Fatalf("level %s (was %s), state %s", level(), high, h.state(a.ID))
	}
	// Through it: fires once.
	h.sweep(sym, venue.Sell, high.Sub(dec("0.5")).String(), "60")
	got := h.waitState(a.ID, StateDone)
	if n := len(h.sent(a.ID)); n != 1 {
		t.Fatalf("%d sent", n)
	}
	if !got.Fired.Level.Equal(high) {
		t.Fatalf("fired at level %s, want %s", got.Fired.Level, high)
	}
}
