package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// confirm waits for a confirmation dialog, lets its keystroke grace pass
// (keys typed earlier are ignored by design), and confirms with y.
func (s *tmux) confirm(title string) {
	s.t.Helper()
	s.waitFor("the confirmation "+title, contains(title, "[y]"))
	time.Sleep(500 * time.Millisecond) // longer than the 300 ms grace
	s.keys("y")
	s.waitFor("the confirmation to close", func(sc string) bool { return !strings.Contains(sc, title) })
}

// marketForm opens the order form for side on symbol (b: BUY, s: SELL),
// switches its type to MARKET and types qty: the form is ready to review.
func (s *tmux) marketForm(side, symbol, qty string) {
	s.t.Helper()
	s.keys(map[string]string{"BUY": "b", "SELL": "s"}[side])
	s.waitFor("the "+side+" order form", contains("New order "+symbol, side, "quantity"))
	s.keys("BTab", "BTab", "Right", "Tab") // type row: MARKET; back to quantity
	s.waitFor("the MARKET form", contains("price set by the book"))
	s.literal(qty)
	s.waitFor("a valid form", contains("enter review & send"))
}

// poll is waitFor without the failure: it reports whether cond held
// within d.
func (s *tmux) poll(d time.Duration, cond func(string) bool) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if cond(s.screen()) {
			return true
		}
	}
	return false
}

var clientIDRe = regexp.MustCompile(`client id +(\d+)`)

// formClientID reads the generated client order id off the open form.
func formClientID(t *testing.T, sc string) string {
	t.Helper()
	m := clientIDRe.FindStringSubmatch(sc)
	if m == nil {
		t.Fatalf("no client id on the form:\n%s", sc)
	}
	return m[1]
}

// ordersRow is the open-orders line of a client order id, or "".
func ordersRow(sc, cid string) string {
	for _, l := range strings.Split(sc, "\n") {
		if strings.Contains(l, cid) && strings.Contains(l, "SPOT_ETH_USDT") {
			return l
		}
	}
	return ""
}

// fieldAfter is the word after the word w in line.
func fieldAfter(line, w string) string {
	f := strings.Fields(line)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == w {
			return f[i+1]
		}
	}
	return ""
}

// The trading path of issue 7 on the real binary: a LIMIT order placed
// from the form shows in open orders; a second order crossing it fills
// it; another order is cancelled from the orders pane; the account
// screen reads the account.
func TestTradingInTmux(t *testing.T) {
	bin := tmuxTest(t)
	t0 := time.Now()
	step := func(what string) { t.Logf("%6.2fs %s", time.Since(t0).Seconds(), what) }
	s := startBinary(t, 160, 48, t.TempDir(), bin, "--seed 11 --symbol SPOT_ETH_USDT")
	s.waitFor("the ETH book and the private stream", func(sc string) bool {
		return strings.Contains(sc, "Book SPOT_ETH_USDT") && strings.Contains(sc, "spread") &&
			strings.Contains(sc, "private • live") && bookRows(sc) >= 10
	})

	step("dashboard up")
	// 1. A LIMIT BUY one tick above the best bid: the new best bid.
	s.keys("b")
	sc := s.waitFor("the order form", contains("New order SPOT_ETH_USDT", "quantity"))
	buyCID := formClientID(t, sc)
	s.keys("BTab", "[", "Up", "Tab") // price row: best bid, one tick up; back to quantity
	s.literal("0.05")
	s.waitFor("a valid form", contains("enter review & send", "notional"))
	s.keys("Enter")
	s.confirm("Confirm BUY LIMIT SPOT_ETH_USDT")
	sc = s.waitFor("the order in open orders", func(sc string) bool {
		row := ordersRow(sc, buyCID)
		return strings.Contains(row, "BUY") && strings.Contains(row, "LIMIT") && strings.Contains(row, "NEW")
	})
	price := fieldAfter(ordersRow(sc, buyCID), "LIMIT")

	step("BUY in open orders at " + price)
	// 2. A second order crosses it: a MARKET SELL large enough to reach
	// our bid even when market makers stepped in front of it meanwhile
	// (the simulated market keeps moving). MARKET and its notional get the
	// strong confirmation: only y sends it.
	filled := false
	for attempt := 0; attempt < 3 && !filled; attempt++ {
		s.marketForm("SELL", "SPOT_ETH_USDT", "4")
		s.keys("Enter")
		s.waitFor("the strong MARKET confirmation", contains("! MARKET order", "LARGE order"))
		s.confirm("Confirm SELL MARKET SPOT_ETH_USDT")
		filled = s.poll(10*time.Second, func(sc string) bool { return ordersRow(sc, buyCID) == "" })
		step(fmt.Sprintf("MARKET SELL %d: crossed %v", attempt+1, filled))
	}
	if !filled {
		t.Fatalf("the BUY was never crossed:\n%s", s.screen())
	}
	step("BUY crossed")
	s.keys("5", "]", "]") // account pane: Open orders -> History -> Fills
	s.waitFor("our BUY's fill", func(sc string) bool {
		for _, l := range strings.Split(sc, "\n") {
			if strings.Contains(l, "SPOT_ETH_USDT") && strings.Contains(l, "BUY") && strings.Contains(l, price) {
				return true
			}
		}
		return false
	})
	s.keys("[")
	s.waitFor("the BUY filled in history", func(sc string) bool {
		for _, l := range strings.Split(sc, "\n") {
			if strings.Contains(l, "SPOT_ETH_USDT") && strings.Contains(l, "BUY") && strings.Contains(l, "FILLED") {
				return true
			}
		}
		return false
	})

	step("fill and history seen")
	// 3. Another order, far below the book, then cancelled from the pane.
	s.keys("b")
	sc = s.waitFor("the third form", contains("New order SPOT_ETH_USDT"))
	farCID := formClientID(t, sc)
	s.keys("BTab", "PPage", "PPage", "Tab") // 20 ticks below the bid
	s.literal("0.05")
	s.waitFor("a valid form", contains("enter review & send"))
	s.keys("Enter")
	s.confirm("Confirm BUY LIMIT SPOT_ETH_USDT")
	s.waitFor("the far order in open orders", func(sc string) bool { return strings.Contains(ordersRow(sc, farCID), "NEW") })
	s.keys("5", "g") // the orders pane, first row
	s.keys("c")
	s.confirm("Cancel order")
	s.waitFor("the far order cancelled", func(sc string) bool { return ordersRow(sc, farCID) == "" })

	step("far order cancelled")
	// 4. The account screen.
	s.keys("A")
	s.waitFor("the account screen", contains("Account demo (DEMO_MAIN)", "account mode", "FUTURES", "taker fee rate", "margin rate"))
	s.keys("2")
	s.waitFor("token config", contains("collateral ratio", "USDT"))
	s.keys("Escape")
	s.waitFor("the dashboard again", contains("Book SPOT_ETH_USDT"))
}
