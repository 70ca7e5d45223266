package e2e

import (
	"strings"
	"testing"
	"tradedeck/sim/simtest"
)

// TestPaperInTmux is issue 17's end-to-end test: `tradedeck --paper`
// against an upstream `tradedeck sim` (named by the config's [live]
// section) shows PAPER, sends a MARKET BUY from the order form, and shows
// its fill, at an upstream ask, in Fills.
func TestPaperInTmux(t *testing.T) {
	bin := tmuxTest(t)
	home := t.TempDir()
	_, up := simtest.StartProcess(t, bin, "--rate", "calm", "--seed", "4")
	cfg := simtest.LiveConfig(t, home, "", up)
	s := startBinary(t, 160, 48, home, bin, "--paper --config", cfg, "--symbol SPOT_ETH_USDT")
	s.waitFor("PAPER, the ETH book and the private stream", func(sc string) bool {
		return strings.Contains(sc, " PAPER ") && strings.Contains(sc, "Book SPOT_ETH_USDT") &&
			strings.Contains(sc, "private • live") && bookRows(sc) >= 10
	})
	s.keys("b")
	s.waitFor("the order form", contains("New order SPOT_ETH_USDT", "quantity"))
	s.keys("BTab", "BTab", "Right", "Tab") // type row: MARKET; back to quantity
	s.waitFor("the MARKET form", contains("price set by the book"))
	s.literal("0.05")
	s.waitFor("a valid form", contains("enter review & send"))
	s.keys("Enter")
	s.confirm("Confirm BUY MARKET SPOT_ETH_USDT")
	s.keys("5", "]", "]") // account pane: Open orders -> History -> Fills
	s.waitFor("the BUY's fill in Fills", func(sc string) bool {
		for _, l := range strings.Split(sc, "\n") {
			if strings.Contains(l, "SPOT_ETH_USDT") && strings.Contains(l, "BUY") && strings.Contains(l, "0.0500") {
				return true
			}
		}
		return false
	})
}
