package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

var headerBidRe = regexp.MustCompile(`Bid ([0-9.]+) x [0-9.]+ +Ask ([0-9.]+)`)

// algoRow is the Algos tab's line of algo #id, or "".
func algoRow(sc string, id int) string {
	for _, l := range strings.Split(sc, "\n") {
		if strings.Contains(l, fmt.Sprintf("│ #%d ", id)) && strings.Contains(l, "PERP_BTC_USDT") {
			return l
		}
	}
	return ""
}

// showAlgosTab moves the account pane to its Algos tab.
func (s *tmux) showAlgosTab() string {
	s.t.Helper()
	s.keys("5")
	for range 12 {
		if sc := s.screen(); strings.Contains(sc, "engine running here") {
			return sc
		}
		s.keys("]")
		time.Sleep(150 * time.Millisecond)
	}
	return s.waitFor("the Algos tab", contains("engine running here"))
}

// Issue 25's screen path on the real binary and its embedded simulator:
// a bracket placed from the order form (MARKET entry, take-profit and
// stop rows), its legs in the Algos tab and on the candle chart, then the
// market pushed through the stop by our own reduce-only selling: the
// stop's exit fills and shows in Fills.
func TestBracketInTmux(t *testing.T) {
	bin := tmuxTest(t)
	t0 := time.Now()
	step := func(what string) { t.Logf("%6.2fs %s", time.Since(t0).Seconds(), what) }
	s := startBinary(t, 160, 48, t.TempDir(), bin, "--seed 11 --symbol PERP_BTC_USDT")
	sc := s.waitFor("the BTC book and the private stream", func(sc string) bool {
		return strings.Contains(sc, "Book PERP_BTC_USDT") && strings.Contains(sc, "spread") &&
			strings.Contains(sc, "private • live") && bookRows(sc) >= 10 && headerBidRe.MatchString(sc)
	})
	m := headerBidRe.FindStringSubmatch(sc)
	bid, ask := decimal.RequireFromString(m[1]), decimal.RequireFromString(m[2])
	// The stop 40 under the bid (our own selling takes it through), the
	// take-profit 2% over the ask (out of reach).
	sl := bid.Sub(decimal.RequireFromString("40")).StringFixed(1)
	tp := ask.Mul(decimal.RequireFromString("1.02")).StringFixed(1)
	step("dashboard up: bid " + bid.String() + ", stop " + sl + ", take-profit " + tp)

	// 1. The bracket from the form: kind row, MARKET entry, TP and SL.
	s.keys("b")
	s.waitFor("the order form with its kind row", contains("New order PERP_BTC_USDT", "kind", "bracket"))
	s.keys("BTab", "BTab", "BTab", "BTab", "Right") // quantity -> kind: bracket
	s.waitFor("the bracket form", contains("New bracket PERP_BTC_USDT", "take-profit", "source", "default: bid"))
	s.keys("Down", "Down", "Right", "Tab") // type: MARKET; quantity
	s.literal("1")
	s.keys("Tab") // take-profit
	s.literal(tp)
	s.keys("Tab")
	s.literal(sl)
	short := func(p string) string { return decimal.RequireFromString(p).String() } // as the grammar writes it
	s.waitFor("a complete bracket", contains("enter review & send", "bracket PERP_BTC_USDT buy 1 at market tp "+short(tp)+" sl "+short(sl)))
	s.keys("Enter")
	sc = s.waitFor("the engine's preview", contains("Confirm bracket PERP_BTC_USDT", "entry: BUY MARKET", "reduce-only", "stop "+sl+" on bid"))
	step("preview shown")
	if strings.Contains(sc, "ALREADY THROUGH") {
		t.Logf("the bid fell through the stop meanwhile: confirming fires it at once")
	}
	s.confirm("Confirm bracket PERP_BTC_USDT")

	// 2. Its legs in the Algos tab and on the chart.
	s.showAlgosTab()
	s.waitFor("the bracket armed, its legs on the chart's axis (S stop, T take-profit)", func(sc string) bool {
		row := algoRow(sc, 1)
		return strings.Contains(row, "bracket") && strings.Contains(row, "stop "+sl+" bid") &&
			strings.Contains(row, "tp "+tp) && strings.Contains(row, "armed") &&
			strings.Contains(sc, "S"+sl) && strings.Contains(sc, "T"+tp)
	})
	step("bracket in the Algos tab and on the chart")

	// 3. Our own reduce-only selling takes the bid through the stop; the
	// stop sells what is left.
	fired := func(sc string) bool { return strings.Contains(algoRow(sc, 1), "done") }
	for attempt := 0; attempt < 4 && !s.poll(2*time.Second, fired); attempt++ {
		s.marketForm("SELL", "PERP_BTC_USDT", "0.2")
		s.keys("Enter")
		s.confirm("Confirm SELL MARKET PERP_BTC_USDT")
		s.showAlgosTab()
		step(fmt.Sprintf("sold 0.2 (%d)", attempt+1))
	}
	sc = s.waitFor("the stop done", fired)
	row := algoRow(sc, 1)
	stopQty := regexp.MustCompile(`stop FILLED ([0-9.]+)`).FindStringSubmatch(sc)
	if stopQty == nil {
		t.Fatalf("no filled stop child on the Algos tab:\n%s", sc)
	}
	step("stop done: " + strings.TrimSpace(row))

	// 4. The stop's exit in History (a MARKET SELL of what was left,
	// FILLED), and its fills, by its order id, in Fills.
	s.keys("[", "[", "[", "[") // Algos -> PnL -> Balances -> Fills -> History
	var orderID string
	s.waitFor("the stop's MARKET SELL "+stopQty[1]+" filled in History", func(sc string) bool {
		for _, l := range strings.Split(sc, "\n") {
			f := strings.Fields(strings.Trim(l, "│ "))
			if strings.Contains(l, "PERP_BTC_USDT") && strings.Contains(l, "SELL") && strings.Contains(l, "MARKET") &&
				strings.Contains(l, stopQty[1]) && strings.Contains(l, "FILLED") && len(f) > 0 {
				orderID = f[len(f)-1]
				return true
			}
		}
		return false
	})
	s.keys("]") // Fills
	s.waitFor("the stop's fills (order "+orderID+") in Fills", func(sc string) bool {
		for _, l := range strings.Split(sc, "\n") {
			if strings.Contains(l, "PERP_BTC_USDT") && strings.Contains(l, "SELL") && strings.HasSuffix(strings.TrimRight(l, "│ "), " "+orderID) {
				return true
			}
		}
		return false
	})
	s.keys("1") // the positions' protection column says the rest
	step("stop's fill in Fills")
}
