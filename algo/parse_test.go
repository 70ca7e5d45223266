package algo

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/trade"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestParseForms(t *testing.T) {
	cases := []struct {
		line string
		want Spec
	}{
		{"stop PERP_BTC_USDT 95000", Spec{Kind: KindStop, Symbol: "PERP_BTC_USDT", Trigger: d("95000")}},
		{"stop perp_btc_usdt 95000 0.5 on mark", Spec{Kind: KindStop, Symbol: "PERP_BTC_USDT", Trigger: d("95000"), Size: Size{Qty: d("0.5")}, Source: SourceMark}},
		{"stop PERP_BTC_USDT 95000 50% limit 94900 market-after 5s on bid now", Spec{Kind: KindStop, Symbol: "PERP_BTC_USDT",
			Trigger: d("95000"), Size: Size{Percent: d("50")}, Limit: d("94900"), After: AfterTrigger{MarketAfter: 5 * time.Second}, Source: SourceBid, FireIfThrough: true}},
		{"tp SPOT_ETH_USDT 4000 market on last", Spec{Kind: KindTP, Symbol: "SPOT_ETH_USDT", Trigger: d("4000"), TPMarket: true, Source: SourceLast}},
		{"oco PERP_ETH_USDT 3600 3200 25%", Spec{Kind: KindOCO, Symbol: "PERP_ETH_USDT", TP: d("3600"), SL: d("3200"), Size: Size{Percent: d("25")}}},
		{"trail PERP_BTC_USDT 2% 0.1 from 99000 on mid", Spec{Kind: KindTrail, Symbol: "PERP_BTC_USDT", TrailPercent: d("2"), Size: Size{Qty: d("0.1")}, Activation: d("99000"), Source: SourceMid}},
		{"trail PERP_BTC_USDT 150", Spec{Kind: KindTrail, Symbol: "PERP_BTC_USDT", TrailDistance: d("150")}},
		{"bracket PERP_BTC_USDT buy 0.01 at 96000 tp 99000 sl 95000", Spec{Kind: KindBracket, Symbol: "PERP_BTC_USDT",
			Entry: Entry{Side: trade.Buy, Type: trade.Limit, Price: d("96000"), Quantity: d("0.01")}, TP: d("99000"), SL: d("95000")}},
		{"bracket PERP_BTC_USDT sell 0.01 at market tp 90000 sl 99000 on ask", Spec{Kind: KindBracket, Symbol: "PERP_BTC_USDT",
			Entry: Entry{Side: trade.Sell, Type: trade.Market, Quantity: d("0.01")}, TP: d("90000"), SL: d("99000"), Source: SourceAsk}},
		{"bracket PERP_BTC_USDT buy 0.01 at 96000 type post_only sl 95000 tp 99000", Spec{Kind: KindBracket, Symbol: "PERP_BTC_USDT",
			Entry: Entry{Side: trade.Buy, Type: trade.PostOnly, Price: d("96000"), Quantity: d("0.01")}, TP: d("99000"), SL: d("95000")}},
	}
	for _, c := range cases {
		got, err := Parse(c.line)
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if got.String() != c.want.String() {
			t.Errorf("%q:\n got %s\nwant %s", c.line, got, c.want)
		}
		// The printed form is itself the grammar: it parses back the same.
		again, err := Parse(got.String())
		if err != nil || again.String() != got.String() {
			t.Errorf("%q: round trip %q: %v", c.line, again, err)
		}
	}
}

func TestParseRefusesWithTheWord(t *testing.T) {
	cases := []struct{ line, got string }{
		{"stopp PERP_BTC_USDT 1", "stopp"},
		{"stop 95000", "95000"},
		{"stop PERP_BTC_USDT -5", "-5"},
		{"stop PERP_BTC_USDT 95000 150%", "150%"},
		{"stop PERP_BTC_USDT 95000 on index", "index"},
		{"tp PERP_BTC_USDT 95000 limit 9", "limit"},
		{"trail PERP_BTC_USDT x", "x"},
		{"bracket PERP_BTC_USDT hold 1 at 5 tp 6 sl 4", "hold"},
		{"bracket PERP_BTC_USDT buy 1 for 5", "for"},
		// Numbers as a trader types them: an exponent would make a
		// ten-thousand-digit quantity of the whole algo's every line.
		{"stop PERP_BTC_USDT 1e9999", "1e9999"},
		{"chase PERP_BTC_USDT buy 1e9999", "1e9999"},
		{"scale PERP_BTC_USDT buy 1 from 1E5 to 2 count 3", "1E5"},
		{"trail PERP_BTC_USDT 0x10", "0x10"},
		{"stop PERP_BTC_USDT 95000 123456789012345678901234567890123", "123456789012345678901234567890123"},
	}
	for _, c := range cases {
		_, err := Parse(c.line)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Got != c.got {
			t.Errorf("%q: %v, want a ParseError on %q", c.line, err, c.got)
		}
	}
	for _, line := range []string{
		"oco PERP_BTC_USDT 95000 95000",                  // same levels
		"trail PERP_BTC_USDT 100%",                       // a trail of 100%
		"bracket PERP_BTC_USDT buy 1 at 100 tp 90 sl 80", // tp below a long's entry side
		"bracket PERP_BTC_USDT buy 1 at 100 tp 120",      // no sl
		"stop SPOT_BTC_USDT 95000 on mark",               // spot has no mark
	} {
		if _, err := Parse(line); err == nil {
			t.Errorf("%q: accepted", line)
		}
	}
}

func TestComplete(t *testing.T) {
	syms := []string{"PERP_BTC_USDT", "PERP_ETH_USDT", "SPOT_BTC_USDT"}
	cases := []struct {
		line string
		want []string
	}{
		{"", []string{"bracket", "chase", "oco", "scale", "stop", "tp", "trail", "twap"}},
		{"t", []string{"tp", "trail", "twap"}},
		{"stop PERP_", []string{"PERP_BTC_USDT", "PERP_ETH_USDT"}},
		{"stop perp_e", []string{"PERP_ETH_USDT"}},
		{"stop PERP_BTC_USDT ", []string{"TRIGGER"}},
		{"stop PERP_BTC_USDT 95000 ", []string{"SIZE", "limit", "now", "on"}},
		{"stop PERP_BTC_USDT 95000 on ", []string{"ask", "bid", "last", "mark", "mid"}},
		{"stop PERP_BTC_USDT 95000 limit 94000 ", []string{"SIZE", "market-after", "now", "on"}},
		{"oco PERP_BTC_USDT 99000 ", []string{"STOP_PRICE"}},
		{"bracket PERP_BTC_USDT ", []string{"buy", "sell"}},
		{"bracket PERP_BTC_USDT buy 1 at ", []string{"PRICE", "market"}},
		{"bracket PERP_BTC_USDT buy 1 at 5 tp 6 ", []string{"on", "sl", "type"}},
		{"trail PERP_BTC_USDT 2% ", []string{"SIZE", "from", "on"}},
	}
	for _, c := range cases {
		if got := Complete(c.line, syms); !slices.Equal(got, c.want) {
			t.Errorf("Complete(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

func TestClientOrderIDsRoundTripAndNeverCollide(t *testing.T) {
	seen := map[int64]bool{}
	for _, id := range []ID{1, 42, 999_999_999} {
		for _, leg := range []Leg{LegStop, LegTP, LegEntry, LegFix} {
			for _, n := range []int{0, 1, 99_999} {
				cid := ClientOrderID(417, id, leg, n)
				if seen[cid] || cid <= 0 || cid > trade.MaxClientOrderID || cid < 1e17 {
					t.Fatalf("cid %d (algo %d leg %d attempt %d) repeats or is out of range", cid, id, leg, n)
				}
				seen[cid] = true
				gid, gleg, gn, ok := ParseClientOrderID(417, cid)
				if !ok || gid != id || gleg != leg || gn != n {
					t.Fatalf("%d parsed as %d %d %d %v", cid, gid, gleg, gn, ok)
				}
				if _, _, _, ok := ParseClientOrderID(418, cid); ok {
					t.Fatalf("%d taken for another database's", cid)
				}
			}
		}
	}
	if _, _, _, ok := ParseClientOrderID(417, 4_170_000_000); ok {
		t.Fatal("a manual order's 10-digit id taken for the engine's")
	}
}
