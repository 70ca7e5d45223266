package algo

import (
	"context"
	"sync"
	"testing"
	"time"

	"tradedeck/venue"
)

// OCO, the stop side: when the stop fires, the resting take-profit is
// cancelled and its final state awaited before the stop's exit is sized
// and sent; nothing rests afterwards, the position is flat.
func TestOCOStopCancelsTakeProfitFirst(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	h.openPosition(sym, venue.Buy, "0.4")
	bid, ask := h.book(sym)
	tp, sl := ask.Mul(dec("1.003")).Round(2), bid.Mul(dec("0.998")).Round(2)
	a := h.add("oco "+sym+" "+tp.String()+" "+sl.String(), Confirm{})
	h.eventually("the take-profit rests", 10*time.Second, func() bool { return len(h.openOrders(sym)) == 1 })
	h.waitFresh(sym, SourceBid)
	h.sweep(sym, venue.Sell, sl.Sub(dec("0.5")).String(), "60")
	h.waitState(a.ID, StateDone)
	if os := h.openOrders(sym); len(os) != 0 {
		t.Fatalf("still open: %+v", os)
	}
	if p := h.position(sym); !p.IsZero() {
		t.Fatalf("position %s", p)
	}
	sent := h.sent(a.ID)
	if len(sent) != 2 || sent[0].Get("order_type") != "LIMIT" || sent[1].Get("order_type") != "MARKET" || sent[1].Get("order_quantity") != "0.4" {
		t.Fatalf("sent %v", sent)
	}
}

// OCO, the take-profit side: it fills, the OCO is done, and a later move
// through the stop sends nothing.
func TestOCOTakeProfitEndsTheStop(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	h.openPosition(sym, venue.Buy, "0.4")
	bid, ask := h.book(sym)
	tp, sl := ask.Mul(dec("1.002")).Round(2), bid.Mul(dec("0.998")).Round(2)
	a := h.add("oco "+sym+" "+tp.String()+" "+sl.String(), Confirm{})
	h.eventually("the take-profit rests", 10*time.Second, func() bool { return len(h.openOrders(sym)) == 1 })
	h.waitFresh(sym, SourceBid)
	h.sweep(sym, venue.Buy, tp.String(), "60")
	h.waitState(a.ID, StateDone)
	h.sweep(sym, venue.Sell, sl.Sub(dec("0.5")).String(), "60")
	time.Sleep(300 * time.Millisecond)
	if n := len(h.sent(a.ID)); n != 1 {
		t.Fatalf("%d sent, want the take-profit only", n)
	}
	if p := h.position(sym); !p.IsZero() {
		t.Fatalf("position %s", p)
	}
}

// A bracket whose entry fills in three parts is protected after each
// part: the resting take-profit is resized to what filled (reduce-only)
// and the stop covers it; then the stop closes all of it, once.
func TestBracketProtectsEachPartialFill(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	bid, ask := h.book(sym)
	entry := bid.Add(ask.Sub(bid).Div(dec("2"))).Round(2)
	tp, sl := ask.Mul(dec("1.004")).Round(2), bid.Mul(dec("0.997")).Round(2)
	a := h.add("bracket "+sym+" buy 0.3 at "+entry.String()+" tp "+tp.String()+" sl "+sl.String(), Confirm{})
	if a.State != StateWaiting {
		t.Fatalf("state %s", a.State)
	}
	// The entry leaves after Add returns: a sweep before it rests trades
	// nothing (CI's failure under -race).
	h.eventually("the entry rests", 10*time.Second, func() bool {
		for _, o := range h.openOrders(sym) {
			if o.Side == venue.Buy && o.Price.Decimal.Equal(entry) {
				return true
			}
		}
		return false
	})
	for part := 1; part <= 3; part++ {
		h.sweep(sym, venue.Sell, entry.String(), "0.1")
		filled := dec("0.1").Mul(dec(string(rune('0' + part))))
		h.eventually("the take-profit covers part "+filled.String(), 10*time.Second, func() bool {
			for _, o := range h.openOrders(sym) {
				if o.Side == venue.Sell && o.Price.Decimal.Equal(tp) && bool(o.ReduceOnly) && o.Quantity.Decimal.Sub(o.Executed).Equal(filled) {
					return true
				}
			}
			return false
		})
		g, _ := h.eng.Get(a.ID)
		if g.State != StateArmed || !g.Filled.Equal(filled) || len(g.Triggers) == 0 || !g.Triggers[0].Price.Equal(sl) {
			t.Fatalf("part %d: %+v", part, g)
		}
		if p := h.eng.Protection(); len(p) != 1 || !p[0].Stop.Equal(sl) || !p[0].Covered.Equal(filled) {
			t.Fatalf("part %d: protection %+v", part, p)
		}
	}
	h.waitFresh(sym, SourceBid)
	h.sweep(sym, venue.Sell, sl.Sub(dec("0.5")).String(), "80")
	h.waitState(a.ID, StateDone)
	if p := h.position(sym); !p.IsZero() {
		t.Fatalf("position %s", p)
	}
	var stops int
	for _, o := range h.sent(a.ID) {
		if o.Get("order_type") == "MARKET" {
			stops++
		}
	}
	if stops != 1 {
		t.Fatalf("%d stop exits", stops)
	}
}

// racingVenue lets the stop's exit through without reduce-only (a venue
// that does not enforce it) right after another close of the whole
// position raced it (another screen's close).
type racingVenue struct {
	Venue
	h    *harness
	once sync.Once
}

func (r *racingVenue) SendOrder(ctx context.Context, o venue.OrderRequest) (venue.OrderAck, error) {
	if o.Type == venue.Market && o.ReduceOnly && o.Side == venue.Sell {
		r.once.Do(func() {
			r.h.trade(o.Symbol, venue.Sell, venue.Market, "", o.Quantity.String())
			o.ReduceOnly = false
		})
	}
	return r.Venue.SendOrder(ctx, o)
}

// Both closes filled: the position went short by the excess. The engine
// sees it when its exit is done, says so loudly and closes the excess
// reduce-only.
func TestExcessClosedLoudly(t *testing.T) {
	rv := &racingVenue{}
	h := newHarness(t, hopts{venueWrap: func(v Venue) Venue { rv.Venue = v; return rv }})
	rv.h = h
	const sym = "PERP_ETH_USDT"
	h.openPosition(sym, venue.Buy, "0.4")
	bid, ask := h.book(sym)
	a := h.add("oco "+sym+" "+ask.Mul(dec("1.003")).Round(2).String()+" "+bid.Mul(dec("0.998")).Round(2).String(), Confirm{})
	h.eventually("the take-profit rests", 10*time.Second, func() bool { return len(h.openOrders(sym)) == 1 })
	h.waitFresh(sym, SourceBid)
	h.sweep(sym, venue.Sell, bid.Mul(dec("0.997")).Round(2).String(), "60")
	h.waitState(a.ID, StateDone)
	if h.events.count(a.ID, EventExcess) != 1 {
		t.Fatalf("no excess event:\n%s", h.events.text(a.ID))
	}
	if p := h.position(sym); !p.IsZero() {
		t.Fatalf("position %s after the excess was closed", p)
	}
	sent := h.sent(a.ID)
	last := sent[len(sent)-1]
	if last.Get("side") != "BUY" || last.Get("reduce_only") != "true" || last.Get("order_quantity") != "0.4" {
		t.Fatalf("sent %v", sent)
	}
}
