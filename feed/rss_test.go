package feed_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tradedeck/e2e/bintest"
)

// TestResidentMemorySoak measures the resident memory of the whole
// headless program (`tradedeck watch`) streaming 100 symbols (bbo and
// ticker each, plus the focused symbol's book, trades and candles) from a
// simulated venue running in another process. Goal: under 25 MiB.
// It builds the binary, so it runs with the soaks (make soak).
func TestResidentMemorySoak(t *testing.T) {
	if !soak() {
		t.Skip("TRADEDECK_SOAK=1 runs it")
	}
	dir := t.TempDir()
	bin := bintest.Build(t, "..")
	uni, symbols := universe100(t)
	upath := filepath.Join(dir, "universe.json")
	if err := os.WriteFile(upath, uni, 0o600); err != nil {
		t.Fatal(err)
	}
	sim := bintest.StartSim(t, bin, "--universe", upath)
	// The simulator as the live venue of a config, as a user would point
	// watch at any venue.
	cfgPath := sim.Banner.LiveConfig(t, dir, "")
	watch := exec.Command(bin, "watch", symbols[0], "--live", "--config", cfgPath, "--watch", strings.Join(symbols, ","), "--every", "2s")
	watch.Env = append(append(os.Environ(), sim.Banner.KeysEnv()...), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_STATE_HOME="+dir)
	wout, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = watch.Process.Kill(); _ = watch.Wait() }() // killed: its exit error says only that
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(wout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(20 * time.Second)
	var last string
	for live := 0; live < 5; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("watch ended")
			}
			if strings.Contains(l, " live age") {
				live++
				last = l
			}
		case <-deadline:
			t.Fatalf("watch did not go live: %q", last)
		}
	}
	rss, hwm, err := bintest.Memory(watch.Process.Pid)
	if err != nil {
		t.Skip("no /proc:", err)
	}
	t.Logf("tradedeck watch with %d symbols: RSS %.1f MiB (peak %.1f MiB); last line: %s", len(symbols), float64(rss)/1024, float64(hwm)/1024, last)
	if hwm > 64*1024 {
		t.Fatalf("peak RSS %.1f MiB", float64(hwm)/1024)
	}
}

// universe100 is the sim's default universe with 50 more base tokens, each
// listed spot and perpetual: 100 symbols.
func universe100(t *testing.T) ([]byte, []string) {
	b, err := os.ReadFile("../sim/exchange/universe.json")
	if err != nil {
		t.Fatal(err)
	}
	var u map[string]any
	if err := json.Unmarshal(b, &u); err != nil {
		t.Fatal(err)
	}
	tokens := u["tokens"].([]any)
	var syms []any
	var names []string
	for i := 0; i < 50; i++ {
		tok := fmt.Sprintf("TK%02d", i)
		tokens = append(tokens, map[string]any{"token": tok, "fullname": "Token " + tok, "decimals": 8,
			"collateral_ratio": "0.9", "margin_factor": "0.00000003", "futures_margin_factor": "0.00000003",
			"can_collateral": true, "can_short": true, "hourly_rate": "0.000002",
			"networks": []any{map[string]any{"protocol": "ERC20", "token": "ETH_" + tok, "name": "Ethereum", "minimum_withdrawal": "1", "withdrawal_fee": "0.1"}}})
		for _, kind := range []string{"SPOT", "PERP"} {
			s := kind + "_" + tok + "_USDT"
			names = append(names, s)
			syms = append(syms, map[string]any{"symbol": s, "quote_min": "0.01", "quote_max": "100000", "quote_tick": "0.01",
				"base_min": "0.001", "base_max": "100000", "base_tick": "0.001", "min_notional": "1", "price_range": "0.1",
				"initial_price": fmt.Sprintf("%d.00", 10+i)})
		}
	}
	u["tokens"], u["symbols"] = tokens, syms
	out, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	return out, names
}
