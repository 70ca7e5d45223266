package e2e

import (
	"strings"
	"testing"
)

// Issue 12, point 1, on the real binary: in a 70x20 terminal the
// dashboard shows only "terminal too small"; b, a quantity, Enter and y
// used to send a real order. Now the keys are ignored, and the screen
// says so (and counts them). Enlarged, the dashboard shows no order at
// the venue (the private stream's open orders); the same keys on a
// screen that shows the form and the confirmation do send one, so the
// check would see an order if the small screen had sent it.
func TestTooSmallScreenSendsNothingInTmux(t *testing.T) {
	bin := tmuxTest(t)
	s := startBinary(t, 70, 20, t.TempDir(), bin, "--seed 12")
	s.waitFor("the too-small message", contains("terminal too small", "Keys are"))

	s.keys("b")
	s.literal("0.0002")
	s.keys("Enter", "y")
	// 9 keys: b, six characters, Enter, y. Waiting for the count also
	// proves they were all read before the resize below.
	sc := s.waitFor("the ignored keys counted", func(sc string) bool {
		return strings.Contains(strings.Join(strings.Fields(sc), " "), "9 key(s) ignored")
	})
	if strings.Contains(sc, "New order") || strings.Contains(sc, "Confirm") {
		t.Fatalf("a dialog on the too-small screen:\n%s", sc)
	}

	s.run("resize-window", "-t", s.name, "-x", "160", "-y", "48")
	sc = s.waitFor("the dashboard with the private stream", contains("Book PERP_BTC_USDT", "private • live", "Open orders"))
	if strings.Contains(sc, "New order") || strings.Contains(sc, "Confirm") || strings.Contains(sc, "accepted") {
		t.Fatalf("the keys typed on the small screen acted:\n%s", sc)
	}
	if shownOpenOrders(sc) != 0 || strings.Contains(sc, "Positions 1") {
		t.Fatalf("the venue holds an order or a position after keys on a too-small screen:\n%s", sc)
	}

	// The same keys on a screen that shows their dialogs send the order.
	s.waitFor("the book", func(sc string) bool { return bookRows(sc) >= 10 })
	s.keys("b")
	s.waitFor("the order form", contains("New order PERP_BTC_USDT", "quantity"))
	s.keys("BTab", "[", "Tab") // price row: the best bid; back to quantity
	s.literal("0.0002")
	s.waitFor("a valid form", contains("enter review & send", "notional"))
	s.keys("Enter")
	s.confirm("Confirm BUY LIMIT PERP_BTC_USDT")
	s.waitFor("the order at the venue", func(sc string) bool {
		return shownOpenOrders(sc) == 1 || strings.Contains(sc, "Positions 1")
	})
}
