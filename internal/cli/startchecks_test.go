package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Mistakes in flags and config fail at start with a message saying what
// is valid, on the real binary; nothing waits forever.
func TestStartChecksOfTheBinary(t *testing.T) {
	bin := tradedeckBinary(t)
	home := t.TempDir()
	cfg := func(src string) string {
		p := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		args     []string
		exit     int
		want     []string
		unwanted string
	}{
		{[]string{"-h"}, 0, []string{"COMMANDS", "serve ", "watch ", "stats ", "--symbol"}, ""},
		{[]string{"watch", "FOO", "--duration", "30s"}, 1, []string{`the venue has no symbol "FOO"`, "PERP_BTC_USDT"}, ""},
		{[]string{"watch", "eth", "--duration", "30s"}, 1, []string{"did you mean", "SPOT_ETH_USDT"}, ""},
		{[]string{"watch", "--live", "--config", cfg("[live]\nbase_url = \"http://127.0.0.1:1\"\n"), "SPOT_ETH_USDT"}, 1, []string{"LIVE needs an application id"}, ""},
		{[]string{"--live", "--config", cfg("[live]\nbase_url = \"http://127.0.0.1:1\"\n")}, 1, []string{"LIVE needs an application id"}, ""},
		{[]string{"stats", "--period", "2w"}, 1, []string{"one of 1d, 1w, 1m, 3m, 1y, all"}, ""},
		{[]string{"stats", "--period", "all"}, 0, []string{"TOTAL"}, "previous all"},
		{[]string{"--config", cfg("interval = \"7m\"\n")}, 1, []string{"key interval", "1m, 5m"}, ""},
		{[]string{"--config", cfg("[layout]\nfocus = \"orders\"\n")}, 1, []string{"key layout.focus", "book, chart, trades, watchlist, account"}, ""},
		{[]string{"--config", cfg("symbol = \"FOO\"\n")}, 1, []string{`no symbol "FOO"`}, ""},
		{[]string{"--config", cfg("watchlist = [\"SPOT_ETH_USDT\", \"FOO_BAR\"]\n")}, 1, []string{`no symbol "FOO_BAR"`}, ""},
		{[]string{"--symbol", "eth"}, 1, []string{`no symbol "ETH"`, "did you mean"}, ""},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Env = append(os.Environ(), "TRADEDECK_APPLICATION_ID=", "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home, "TERM=dumb")
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != c.exit {
			t.Errorf("%v: exit %d, want %d:\n%s", c.args, code, c.exit, out)
		}
		for _, w := range c.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, w, out)
			}
		}
		if c.unwanted != "" && strings.Contains(string(out), c.unwanted) {
			t.Errorf("%v: output has %q:\n%s", c.args, c.unwanted, out)
		}
	}
}
