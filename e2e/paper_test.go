package e2e

import (
	"strings"
	"testing"

	"tradedeck/e2e/bintest"
)

// TestPaperInTmux is issue 17's end-to-end test: `tradedeck --paper`
// against an upstream `tradedeck sim` (named by the config's [live]
// section) shows PAPER, sends a MARKET BUY from the order form, and shows
// its fill, at an upstream ask, in Fills.
func TestPaperInTmux(t *testing.T) {
	bin := tmuxTest(t)
	home := t.TempDir()
	up := bintest.StartSim(t, bin, "--rate", "calm", "--seed", "4")
	cfg := up.Banner.LiveConfig(t, home, "")
	s := startBinary(t, 160, 48, home, bin, "--paper --config", cfg, "--symbol SPOT_ETH_USDT")
	s.waitFor("PAPER, the ETH book and the private stream", func(sc string) bool {
		return strings.Contains(sc, " PAPER ") && strings.Contains(sc, "Book SPOT_ETH_USDT") &&
			strings.Contains(sc, "private • live") && bookRows(sc) >= 10
	})
	s.marketForm("BUY", "SPOT_ETH_USDT", "0.05")
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
