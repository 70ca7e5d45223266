package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPaperInTmux is issue 17's end-to-end test: `tradedeck --paper`
// against an upstream `tradedeck sim` (named by the config's [live]
// section) shows PAPER, sends a MARKET BUY from the order form, and shows
// its fill, at an upstream ask, in Fills.
func TestPaperInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	needTmux(t)
	bin := buildBinary(t)
	home := t.TempDir()

	up := exec.Command(bin, "sim", "--json", "--rate", "calm", "--seed", "4")
	out, err := up.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Process.Kill(); up.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("upstream banner: %v", err)
	}
	var b map[string]string
	if err := json.Unmarshal([]byte(line), &b); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, "paper.toml")
	doc := fmt.Sprintf("[live]\nbase_url = %q\npublic_history_url = %q\nws_market_url = %q\nws_private_url = %q\nstats_url = %q\n",
		b["base_url"], b["public_history_url"], b["ws_market_url"], b["ws_private_url"], b["stats_url"])
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}

	s := start(t, 160, 48, fmt.Sprintf("env -u NO_COLOR HOME=%s XDG_CONFIG_HOME=%s LANG=C.UTF-8 %s --paper --config %s --symbol SPOT_ETH_USDT",
		home, home, bin, cfg))
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
