package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/venue"
)

// What a trader tripped on (issue 29), on the real binary in tmux at
// 80x24 and 160x48, its venue a `tradedeck sim --rate off` process (a
// book that holds still, so "the best ask" is one price):
//
//  1. "]" on the quantity row, a quantity, enter: a BUY at the best ask;
//     "]" on a MARKET form says why it does nothing;
//  2. that notice, long, is readable whole while both streams report
//     their health;
//  3. at 80 columns the footer shows the focused pane's keys first and
//     the globals as "? help";
//  4. "c" is offered only once an open order is selected, and then acts.
func TestTripUps(t *testing.T) {
	bin := tmuxTest(t)
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			t.Parallel()
			r := startLiveRun(t, bin, liveSetup{w: w, h: h, simArgs: []string{"--rate", "off", "--seed", "12"}}, func(sc string) bool {
				return strings.Contains(sc, "Book PERP_BTC_USDT") && strings.Contains(sc, "spread") &&
					strings.Contains(sc, "market •") && strings.Contains(sc, "private • live")
			})
			paneKeysFirst(t, r.s, w)
			buyAtTheAskFromQuantity(t, r)
			whyNotOnMarket(t, r.s)
			cancelOnlyWhenSelected(t, r.s)
		})
	}
}

// paneKeysFirst: the chart focused, its interval key leads the 80-column
// footer and "? help" ends it; at 160 the globals that fit come before
// "? help". Nothing
// is selected yet, so c is not offered on the account pane.
func paneKeysFirst(t *testing.T, s *tmux, w int) {
	t.Helper()
	s.keys("2")
	sc := s.waitFor("the chart focused", func(sc string) bool { return strings.Contains(lastLine(sc), "> longer candles") })
	foot := strings.TrimSpace(lastLine(sc))
	if w == 80 && (!strings.HasPrefix(foot, "> longer candles") || !strings.HasSuffix(foot, "? help") || strings.Contains(foot, "/ symbol")) {
		t.Fatalf("80-column footer, chart focused: %q", foot)
	}
	// wider: the pane's keys still first, the globals in the room left
	if w > 80 && (!strings.HasPrefix(foot, "> longer candles") || !strings.HasSuffix(foot, "? help") || !strings.Contains(foot, "  / symbol  : command  ")) {
		t.Fatalf("%d-column footer, chart focused: %q", w, foot)
	}
	s.keys("5")
	sc = s.waitFor("the account pane focused", func(sc string) bool { return strings.Contains(lastLine(sc), "next tab") })
	if strings.Contains(lastLine(sc), "cancel order") {
		t.Fatalf("c offered with no order selected: %q", lastLine(sc))
	}
}

// buyAtTheAskFromQuantity: the form opens on the quantity row with the
// bid; "]" there puts the best ask and leaves the cursor; a quantity and
// enter send a BUY LIMIT at that ask, as the venue confirms.
func buyAtTheAskFromQuantity(t *testing.T, r *liveRun) {
	t.Helper()
	s := r.s
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	book, err := r.sim.Client.OrderBook(ctx, "PERP_BTC_USDT", 1)
	if err != nil {
		t.Fatal(err)
	}
	ask := book.Asks[0].Price
	s.keys("b")
	sc := s.waitFor("the BUY form on its quantity row", func(sc string) bool {
		return formField(sc) == "quantity" && formPrice(sc) != "" && strings.Contains(sc, "[ ] bid/ask")
	})
	cid := formClientID(t, sc)
	s.keys("]")
	s.waitFor("] on the quantity row: the best ask "+ask.String()+", the cursor still on quantity", func(sc string) bool {
		p, err := decimal.NewFromString(formPrice(sc))
		return err == nil && p.Equal(ask) && formField(sc) == "quantity"
	})
	s.literal("0.001")
	s.waitFor("a valid form", contains("enter review & send"))
	s.keys("Enter")
	s.confirm("Confirm BUY LIMIT PERP_BTC_USDT")
	var o venue.Order
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if o, err = r.sim.Client.GetOrderByClientID(ctx, mustInt(t, cid)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s never reached the venue: %v\n%s", cid, err, s.screen())
		}
	}
	if o.Side != venue.Buy || o.Type != venue.Limit || !o.Price.Valid || !o.Price.Decimal.Equal(ask) {
		t.Fatalf("sent %s %s at %v, want a BUY LIMIT at the best ask %s", o.Side, o.Type, o.Price.Decimal, ask)
	}
}

// whyNotOnMarket: "]" on a MARKET form cannot set a price: the status line
// says why, whole (over two lines at 80 columns, with the streams' health
// in its short form beside it).
func whyNotOnMarket(t *testing.T, s *tmux) {
	t.Helper()
	s.keys("b")
	s.waitFor("the form", func(sc string) bool { return formField(sc) == "quantity" })
	s.keys("BTab", "BTab", "Right", "Tab")
	s.waitFor("the MARKET form", contains("price set by the book"))
	s.keys("]")
	want := "] best ask: MARKET orders have no price to set: the book prices them"
	sc := s.waitFor("the notice, whole", func(sc string) bool { return strings.Contains(bottomText(sc), want) })
	status := strings.Split(strings.TrimRight(sc, "\n"), "\n")
	bar := status[len(status)-2]
	if !strings.Contains(bar, "market •") || !strings.Contains(bar, "private •") || !strings.Contains(bar, " UTC") {
		t.Fatalf("the notice pushed the streams' health off the status bar: %q", bar)
	}
	s.keys("Escape")
	s.waitFor("the form closed", func(sc string) bool { return !strings.Contains(sc, "New order") })
}

var clockRe = regexp.MustCompile(`\d\d:\d\d:\d\d UTC`)

// bottomText is the status bar and the line under it as one text, the
// clock left out.
func bottomText(sc string) string {
	lines := strings.Split(strings.TrimRight(sc, "\n"), "\n")
	if len(lines) < 2 {
		return ""
	}
	return strings.Join(strings.Fields(clockRe.ReplaceAllString(lines[len(lines)-2], "")+" "+lines[len(lines)-1]), " ")
}

// cancelOnlyWhenSelected: an order resting below the book is selected in
// the open orders tab; then the footer offers c, and c asks to cancel it.
func cancelOnlyWhenSelected(t *testing.T, s *tmux) {
	t.Helper()
	s.keys("b")
	s.waitFor("the form", func(sc string) bool { return formField(sc) == "quantity" && formPrice(sc) != "" })
	s.keys("BTab", "PPage", "PPage", "Tab") // 20 ticks below the bid: it rests
	s.literal("0.001")
	s.waitFor("a valid form", contains("enter review & send"))
	s.keys("Enter")
	s.confirm("Confirm BUY LIMIT PERP_BTC_USDT")
	s.keys("5", "g")
	s.waitFor("c offered on the selected order", func(sc string) bool { return strings.Contains(lastLine(sc), "c cancel order") })
	s.keys("c")
	s.waitFor("c asks to cancel the order", contains("Cancel order", "[y]"))
	s.keys("Escape")
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}
