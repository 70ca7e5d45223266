package algo

import (
	"strings"
	"testing"
	"time"
)

// A cancel keeps its reason (an alert's, say) in the algo's state, its
// event and the database; a cancel that gives none is the user's own.
func TestCancelKeepsItsReason(t *testing.T) {
	h := newHarness(t, hopts{})
	const sym = "PERP_ETH_USDT"
	bid, _ := h.book(sym)
	chase := h.add("chase "+sym+" buy 0.05 leash "+bid.Add(dec("10")).String(), Confirm{})
	ladder := h.add("scale "+sym+" buy 0.05 from "+bid.Sub(dec("20")).String()+" to "+bid.Sub(dec("30")).String()+" count 2", Confirm{})
	h.waitFresh(sym, SourceBid)
	h.waitPeg(chase.ID, bid)
	const why = "cancelled by alert 3 (PERP_ETH_USDT last 3501.00 crossed above 3500)"
	if err := h.eng.Cancel(chase.ID, why); err != nil {
		t.Fatal(err)
	}
	if err := h.eng.Cancel(ladder.ID, ""); err != nil {
		t.Fatal(err)
	}
	rows, err := h.st.Algos(h.eng.cfg.Account, false)
	if err != nil {
		t.Fatal(err)
	}
	reason := map[ID]string{}
	for _, r := range rows {
		reason[ID(r.ID)] = r.Reason
	}
	for id, want := range map[ID]string{chase.ID: why, ladder.ID: CancelledByUser} {
		if g, _ := h.eng.Get(id); g.State != StateCancelled || !strings.HasPrefix(g.Reason, want) {
			t.Errorf("#%d: %s %q, want cancelled %q", id, g.State, g.Reason, want)
		}
		if !strings.HasPrefix(reason[id], want) {
			t.Errorf("#%d in the database: %q, want %q", id, reason[id], want)
		}
		h.eventually("the cancel's event", 5*time.Second, func() bool {
			return h.events.count(id, EventCancelled) == 1 && strings.Contains(h.events.text(id), want)
		})
	}
	if n := len(h.openOrders(sym)); n != 0 {
		t.Fatalf("%d orders open after the cancels", n)
	}
}
