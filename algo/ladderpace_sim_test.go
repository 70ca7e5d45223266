package algo

import (
	"context"
	"testing"
	"time"

	"tradedeck/venue"
)

// A ladder is placed at the working orders' share of the venue's send
// budget (2 orders a second per symbol: one for the working orders, one
// always left free), so a stop on the same symbol that fires while the
// rungs go out finds its slot at once instead of waiting for the window
// the rungs spent.
func TestStopFiresPromptlyWhileALadderIsPlaced(t *testing.T) {
	h := newHarness(t, hopts{rateLimits: true})
	const sym = "PERP_ETH_USDT"
	stop, trig := h.armStop(sym)
	bid, _ := h.book(sym)
	const rungs = 6
	ladder := h.add("scale "+sym+" buy 0.06 from "+bid.Sub(dec("20")).String()+" to "+bid.Sub(dec("30")).String()+" count 6", Confirm{})
	h.eventually("the ladder's second rung", 10*time.Second, func() bool { return len(h.sent(ladder.ID)) >= 2 })
	h.eventually("the mover's sweep through the stop", 5*time.Second, func() bool {
		_, err := h.mover.SendOrder(context.Background(), venue.OrderRequest{Symbol: sym, Type: venue.IOC, Side: venue.Sell,
			Price: dec(trig).Sub(dec("0.5")), Quantity: dec("50")})
		return err == nil
	})
	got := h.waitState(stop.ID, StateDone)
	h.eventually("every rung resting", 20*time.Second, func() bool { return h.resting(ladder.ID) == rungs })
	_, stopAt := h.sentAt(stop.ID)
	_, rungAt := h.sentAt(ladder.ID)
	if got.Fired == nil || len(stopAt) == 0 || len(rungAt) != rungs {
		t.Fatalf("stop %+v sent %d, ladder sent %d", got, len(stopAt), len(rungAt))
	}
	wire := stopAt[0].Sub(got.Fired.At)
	t.Logf("%d rungs in %s (%s apart on average); the stop's order reached the venue %s after its trigger",
		rungs, rungAt[rungs-1].Sub(rungAt[0]).Round(time.Millisecond), (rungAt[rungs-1].Sub(rungAt[0]) / (rungs - 1)).Round(time.Millisecond), wire.Round(time.Microsecond))
	if !stopAt[0].Before(rungAt[rungs-1]) {
		t.Fatal("the stop fired after the ladder was placed: nothing competed for the budget")
	}
	// The rungs never take the slot left for the stop: one per window (1 s
	// and the limiter's margin), so 6 rungs span 5 windows (5.25 s as the
	// client sends them; taking both slots they span about 3 s). A loaded
	// machine only stretches it, unless it holds the first rung back by
	// most of a second more than the last.
	if span := rungAt[rungs-1].Sub(rungAt[0]); span < (rungs-1)*850*time.Millisecond {
		t.Fatalf("%d rungs reached the venue within %s: the ladder took the slot a stop needs", rungs, span)
	}
	if wire > time.Second {
		t.Fatalf("the stop waited %s for the rate limit behind the ladder", wire)
	}
}
