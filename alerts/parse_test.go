package alerts

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	resolve := func(w string) (string, bool) {
		switch strings.ToLower(w) {
		case "btc", "spot_btc_usdt":
			return "SPOT_BTC_USDT", true
		case "perp_btc_usdt":
			return "PERP_BTC_USDT", true
		}
		return "", false
	}
	cases := []struct{ in, want string }{
		{"SPOT_BTC_USDT above 50000", "SPOT_BTC_USDT last above 50000 once"},
		{"SPOT_BTC_USDT below 49000.5", "SPOT_BTC_USDT last below 49000.5 once"},
		{"btc above 50000 bid every", "SPOT_BTC_USDT bid above 50000 every"},
		{"btc mark above 50000 every 5m", "SPOT_BTC_USDT mark above 50000 every 5m"},
		{"btc ask below 1 cooldown 30", "SPOT_BTC_USDT ask below 1 every 30s"},
		{"btc change beyond 5%", "SPOT_BTC_USDT change beyond 5%"},
		{"btc change below -3", "SPOT_BTC_USDT change below -3%"},
		{"btc spread 25bp", "SPOT_BTC_USDT spread above 25bp once"},
		{"btc spread wider 25", "SPOT_BTC_USDT spread above 25bp once"},
		{"* order filled,cancelled", "* order filled,cancelled every"},
		{"btc order any once", "SPOT_BTC_USDT order filled,partial,cancelled,rejected once"},
		{"perp_btc_usdt pnl below -250", "PERP_BTC_USDT pnl below -250 once"},
		{"perp_btc_usdt liq within 5%", "PERP_BTC_USDT liq within 5% once"},
		{"stream market down 30s", "stream market down 30s every"},
		{"stream any 2m once", "stream any down 2m once"},
	}
	for _, c := range cases {
		a, err := Parse(strings.Fields(c.in), resolve)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		got := a.String()
		if c.want == "SPOT_BTC_USDT change beyond 5%" || c.want == "SPOT_BTC_USDT change below -3%" {
			got = a.Condition()
		}
		if got != c.want {
			t.Errorf("%q parsed as %q, want %q", c.in, got, c.want)
		}
	}
	bad := map[string]string{
		"btc":                      "usage",
		"nosuch above 1":           "no symbol matches",
		"btc above":                "usage",
		"btc above x":              `"x" is not a number`,
		"btc above -5":             "must be positive",
		"btc sideways 5":           "expected above, below",
		"btc above 5 sometimes":    `unexpected "sometimes"`,
		"btc order exploded":       "order events are",
		"* above 5":                "only order alerts",
		"stream market down 0.5s":  "at least 1s",
		"stream tape down 30":      "streams are market, private or any",
		"btc change sideways 5":    "usage",
		"btc liq within 0":         "must be positive",
		"btc above 5 cooldown":     "cooldown needs a duration",
		"btc above 5 cooldown xyz": "not a duration",
	}
	for in, want := range bad {
		_, err := Parse(strings.Fields(in), resolve)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to say %q", in, err, want)
		}
	}
}
