package hub_test

import (
	"testing"
	"time"

	"tradedeck/feed"
	"tradedeck/internal/testkit"
)

// A split view's books: SetBooks subscribes each symbol's book once,
// the session receives live books of all of them (another session only
// its own), and dropping them unsubscribes.
func TestSplitBooksOfASession(t *testing.T) {
	ctx := t.Context()
	h, inst := startHub(t, ctx)
	books := []string{"SPOT_BTC_USDT", "PERP_ETH_USDT", "SPOT_ETH_USDT"}
	subs := func(sym string) int { return inst.Streams.Subscribers(sym + "@orderbookupdate") }
	s := h.Join(ctx, feed.View{Symbol: "PERP_BTC_USDT"})
	other := read(ctx, h.Join(ctx, feed.View{Symbol: "PERP_BTC_USDT"}))
	r := read(ctx, s)
	r.liveBook(t, 20*time.Second)
	s.SetBooks(books)
	r.until(t, "live books of the split", 20*time.Second, func(st *feed.State) bool {
		for _, b := range books {
			if bk := st.Books[b]; bk == nil || bk.State != feed.Live || len(bk.Bids) == 0 {
				return false
			}
		}
		return true
	})
	for _, b := range books {
		if subs(b) != 1 {
			t.Errorf("%s subscribed %d times", b, subs(b))
		}
	}
	other.until(t, "the other session's book", 5*time.Second, func(st *feed.State) bool { return st.Books["PERP_BTC_USDT"] != nil })
	other.until(t, "a round trip", 5*time.Second, func(st *feed.State) bool {
		return st.Books["SPOT_BTC_USDT"] == nil && st.Books["PERP_ETH_USDT"] == nil
	})
	s.SetBooks(nil)
	testkit.WaitFor(t, "the split's books unsubscribed", 10*time.Second, func() bool {
		return subs("SPOT_BTC_USDT") == 0 && subs("PERP_ETH_USDT") == 0 && subs("SPOT_ETH_USDT") == 0
	})
	if subs("PERP_BTC_USDT") != 1 {
		t.Fatal("the focused book was dropped with the split")
	}
}
