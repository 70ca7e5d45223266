package config

import (
	"strings"
	"testing"
)

// Values nothing can use fail at start, saying what is valid; symbols
// are accepted in any case.
func TestConfigValuesCheckedAtStart(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`interval = "7m"`, "key interval: not a candle interval: one of 1m, 5m, 15m, 30m, 1h, 1d, 1w, 1M"},
		{"[layout]\nfocus = \"orders\"", "key layout.focus: not a pane: one of book, chart, trades, watchlist, account"},
		{`watchlist = ["PERP_BTC_USDT", ""]`, "key watchlist: entry 2 is empty"},
		{`watchlist = ["PERP_BTC_USDT", "perp_btc_usdt"]`, "key watchlist: entry 2 repeats"},
		{`fps = 0`, "key fps: frames per second, 1 to 240"},
	} {
		_, _, err := Load(write(t, c.src+"\n", 0o600), true)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
	cfg, _, err := Load(write(t, "symbol = \"eth_usdt_spot\"\nwatchlist = [\"spot_eth_usdt\", \"PERP_btc_USDT\"]\n[layout]\nfocus = \"watchlist\"\n", 0o600), true)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Symbol != "ETH_USDT_SPOT" || cfg.Watchlist[0] != "SPOT_ETH_USDT" || cfg.Watchlist[1] != "PERP_BTC_USDT" {
		t.Fatalf("symbols not upper-cased: %q %q", cfg.Symbol, cfg.Watchlist)
	}
}
