package orderform

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/theme"
	"tradedeck/trade"
)

// feeStore is an account in mode with distinct rates for every role and
// market (spot maker 2, taker 5; futures maker 1, taker 4 bps), so any
// swap of roles or markets shows, and BTC books for spot and perpetual:
// bid 97000.00, ask 97001.00.
func feeStore(mode string) *common.Store {
	s := store()
	s.Account.Margin = feed.Margin{Mode: mode, MakerFeeRate: d("2"), TakerFeeRate: d("5"),
		FuturesMakerFeeRate: d("1"), FuturesTakerFeeRate: d("4")}
	perp := *s.Books["SPOT_BTC_USDT"]
	perp.Symbol = "PERP_BTC_USDT"
	s.Books["PERP_BTC_USDT"] = &perp
	return s
}

// previewText is the form's preview as the user reads it: the boxed
// lines between the blank line and the "available" line, unwrapped.
func previewText(t *testing.T, f *Form) string {
	t.Helper()
	var parts []string
	in := false
	for _, l := range strings.Split(ansi.Strip(f.View()), "\n") {
		l = strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "│"))
		switch {
		case strings.HasPrefix(l, "notional "):
			in = true
		case strings.HasPrefix(l, "available ") || strings.HasPrefix(l, "enter "):
			in = false
		}
		if in {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		t.Fatalf("no preview in\n%s", ansi.Strip(f.View()))
	}
	return strings.Join(parts, " ")
}

// The fee preview for spot and perpetuals, maker and taker, both sides,
// in both account modes that hold perpetuals' rates: perpetuals pay the
// futures rates in USDT, spot BUY pays the base asset, spot SELL the quote.
func TestFeePreview(t *testing.T) {
	cases := []struct {
		sym   string
		side  trade.Side
		price string
		want  string
	}{
		// A BUY below the ask rests (maker); at or above it, it takes.
		{"SPOT_BTC_USDT", trade.Buy, "96900", "notional 969.00 USDT · fee ≈ 0.000002 BTC (maker 2 bps) · -0.10% from mid"},
		{"SPOT_BTC_USDT", trade.Buy, "97100", "notional 971.00 USDT · fee ≈ 0.000005 BTC (taker 5 bps) · +0.10% from mid"},
		{"SPOT_BTC_USDT", trade.Sell, "97100", "notional 971.00 USDT · fee ≈ 0.1942 USDT (maker 2 bps) · +0.10% from mid"},
		{"SPOT_BTC_USDT", trade.Sell, "96900", "notional 969.00 USDT · fee ≈ 0.4845 USDT (taker 5 bps) · -0.10% from mid"},
		{"PERP_BTC_USDT", trade.Buy, "96900", "notional 969.00 USDT · fee ≈ 0.0969 USDT (maker 1 bps) · -0.10% from mid"},
		{"PERP_BTC_USDT", trade.Buy, "97100", "notional 971.00 USDT · fee ≈ 0.3884 USDT (taker 4 bps) · +0.10% from mid"},
		{"PERP_BTC_USDT", trade.Sell, "97100", "notional 971.00 USDT · fee ≈ 0.0971 USDT (maker 1 bps) · +0.10% from mid"},
		{"PERP_BTC_USDT", trade.Sell, "96900", "notional 969.00 USDT · fee ≈ 0.3876 USDT (taker 4 bps) · -0.10% from mid"},
	}
	th, err := theme.New("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"MARGIN", "FUTURES"} {
		for _, c := range cases {
			rule := btc
			rule.Symbol = c.sym
			f := New(common.Common{Theme: th, Store: feeStore(mode)}, Options{Symbol: c.sym, Side: c.side, Price: d(c.price), Rule: &rule})
			f.SetSize(120, 40)
			press(f, "0.01")
			if got := previewText(t, f); got != c.want {
				t.Errorf("%s %s %s @ %s:\n got %q\nwant %q", mode, c.sym, c.side, c.price, got, c.want)
			}
		}
	}
}

// Fees picks the rates by market, not by account mode.
func TestFeesBySymbol(t *testing.T) {
	s := feeStore("FUTURES")
	if f := Fees(s, "PERP_ETH_USDT"); !f.MakerBps.Equal(d("1")) || !f.TakerBps.Equal(d("4")) {
		t.Fatalf("perpetual fees %+v", f)
	}
	if f := Fees(s, "SPOT_ETH_USDT"); !f.MakerBps.Equal(d("2")) || !f.TakerBps.Equal(d("5")) {
		t.Fatalf("spot fees %+v", f)
	}
	if f := Fees(common.NewStore(), "SPOT_ETH_USDT"); !f.MakerBps.IsZero() || !f.TakerBps.IsZero() {
		t.Fatalf("no account: %+v", f)
	}
}
