package algo

import (
	"testing"
	"time"

	"tradedeck/internal/testkit"
)

// The journal's round sleeps while no algo is live and nothing waits to
// be written (an idle engine woke its process four times a second); an
// armed stop wakes it, its cancel's events are written, and it sleeps
// again.
func TestJournalRoundSleepsWhileNothingIsLive(t *testing.T) {
	h := newHarness(t, hopts{})
	quiet := func(what string) {
		t.Helper()
		time.Sleep(2 * journalEvery) // a round kicked just before ends its ticking
		r0 := h.eng.rounds.Load()
		time.Sleep(4 * journalEvery)
		if n := h.eng.rounds.Load() - r0; n != 0 {
			t.Fatalf("%s: %d journal rounds in %s", what, n, 4*journalEvery)
		}
	}
	quiet("no algo")
	const sym = "PERP_ETH_USDT"
	a, _ := h.armStop(sym)
	r0 := h.eng.rounds.Load()
	testkit.WaitFor(t, "journal rounds while the stop is armed", 5*time.Second, func() bool { return h.eng.rounds.Load() >= r0+3 })
	if err := h.eng.Cancel(a.ID, "test"); err != nil {
		t.Fatal(err)
	}
	h.waitState(a.ID, StateCancelled)
	testkit.WaitFor(t, "the cancel's event journaled", 5*time.Second, func() bool {
		evs, err := h.st.Events(h.eng.cfg.Account, 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if ev.AlgoID == int64(a.ID) && ev.Kind == EventCancelled.String() {
				return true
			}
		}
		return false
	})
	quiet("the stop cancelled")
}
