package algo

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"tradedeck/trade"
)

func TestParseWorkingForms(t *testing.T) {
	cases := []struct {
		line  string
		want  Spec
		canon string
	}{
		{"chase PERP_BTC_USDT buy 0.5", Spec{Kind: KindChase, Symbol: "PERP_BTC_USDT", Work: Work{Side: trade.Buy, Quantity: d("0.5")}},
			"chase PERP_BTC_USDT buy 0.5"},
		{"chase perp_btc_usdt SELL 1 reduce post at-leash cancel leash 95000 threshold 3 offset 2",
			Spec{Kind: KindChase, Symbol: "PERP_BTC_USDT", Work: Work{Side: trade.Sell, Quantity: d("1"), Offset: 2, Threshold: 3,
				Leash: d("95000"), AtLeash: LeashCancel, Post: true, Reduce: true}},
			"chase PERP_BTC_USDT sell 1 offset 2 threshold 3 leash 95000 at-leash cancel post reduce"},
		{"scale SPOT_ETH_USDT buy 2 from 3000 to 2900 count 25", Spec{Kind: KindScale, Symbol: "SPOT_ETH_USDT",
			Work: Work{Side: trade.Buy, Quantity: d("2"), From: d("3000"), To: d("2900"), Count: 25}},
			"scale SPOT_ETH_USDT buy 2 from 3000 to 2900 count 25"},
		{"ladder PERP_ETH_USDT sell 2 from 3000 to 3100 count 5 skew exp 1.5 post reduce", Spec{Kind: KindScale, Symbol: "PERP_ETH_USDT",
			Work: Work{Side: trade.Sell, Quantity: d("2"), From: d("3000"), To: d("3100"), Count: 5, Skew: Skew{Kind: SkewExp, Factor: d("1.5")}, Post: true, Reduce: true}},
			"scale PERP_ETH_USDT sell 2 from 3000 to 3100 count 5 skew exp 1.5 post reduce"},
		{"scale PERP_ETH_USDT sell 2 from 3000 to 3100 count 5 skew linear 0.5 skew flat", Spec{Kind: KindScale, Symbol: "PERP_ETH_USDT",
			Work: Work{Side: trade.Sell, Quantity: d("2"), From: d("3000"), To: d("3100"), Count: 5}},
			"scale PERP_ETH_USDT sell 2 from 3000 to 3100 count 5"},
		{"twap PERP_BTC_USDT buy 1 over 10m", Spec{Kind: KindTWAP, Symbol: "PERP_BTC_USDT", Work: Work{Side: trade.Buy, Quantity: d("1"), Over: 10 * time.Minute}},
			"twap PERP_BTC_USDT buy 1 over 10m"},
		{"twap PERP_BTC_USDT sell 1 over 2h30m slices 50 jitter 20% limit 95000 outside skip slice best catchup 2 reduce",
			Spec{Kind: KindTWAP, Symbol: "PERP_BTC_USDT", Work: Work{Side: trade.Sell, Quantity: d("1"), Over: 150 * time.Minute, Slices: 50,
				Jitter: d("20"), Bound: d("95000"), Outside: BoundSkip, SliceType: SliceBest, CatchUp: CatchUp{Policy: CatchBounded, Max: 2}, Reduce: true}},
			"twap PERP_BTC_USDT sell 1 over 2h30m slices 50 jitter 20% limit 95000 outside skip slice best catchup 2 reduce"},
		{"twap SPOT_BTC_USDT buy 1 over 1h catchup skip outside stop", Spec{Kind: KindTWAP, Symbol: "SPOT_BTC_USDT",
			Work: Work{Side: trade.Buy, Quantity: d("1"), Over: time.Hour, Outside: BoundStop, CatchUp: CatchUp{Policy: CatchSkip}}},
			"twap SPOT_BTC_USDT buy 1 over 1h outside stop catchup skip"},
	}
	for _, c := range cases {
		got, err := Parse(c.line)
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if got.String() != c.want.String() || got.String() != c.canon {
			t.Errorf("%q:\n got %s\nwant %s\n(canonical %s)", c.line, got, c.want, c.canon)
		}
		again, err := Parse(got.String())
		if err != nil || again.String() != got.String() || !sameWork(again.Work, c.want.Work) {
			t.Errorf("%q: round trip %q %+v: %v", c.line, again, again.Work, err)
		}
	}
}

// sameWork compares two Work values field by field (decimals by value).
func sameWork(a, b Work) bool {
	return a.Side == b.Side && a.Quantity.Equal(b.Quantity) && a.Reduce == b.Reduce && a.Post == b.Post &&
		a.Offset == b.Offset && a.Threshold == b.Threshold && a.Leash.Equal(b.Leash) && a.AtLeash == b.AtLeash &&
		a.From.Equal(b.From) && a.To.Equal(b.To) && a.Count == b.Count && a.Skew.Kind == b.Skew.Kind && a.Skew.Factor.Equal(b.Skew.Factor) &&
		a.Over == b.Over && a.Slices == b.Slices && a.Jitter.Equal(b.Jitter) && a.Bound.Equal(b.Bound) && a.Outside == b.Outside &&
		a.SliceType == b.SliceType && a.CatchUp == b.CatchUp
}

func TestParseWorkingRefusesWithTheWord(t *testing.T) {
	cases := []struct{ line, got string }{
		{"chase PERP_BTC_USDT hold 1", "hold"},
		{"chase PERP_BTC_USDT buy -1", "-1"},
		{"chase PERP_BTC_USDT buy 1 offset -2", "-2"},
		{"chase PERP_BTC_USDT buy 1 at-leash flee", "flee"},
		{"chase PERP_BTC_USDT buy 1 slices 4", "slices"},
		{"scale PERP_BTC_USDT buy 1 to 5 from 4 count 3", "to"},
		{"scale PERP_BTC_USDT buy 1 from 5 to 4 count x", "x"},
		{"scale PERP_BTC_USDT buy 1 from 5 to 4 count 3 skew cubic 2", "cubic"},
		{"twap PERP_BTC_USDT buy 1 over soon", "soon"},
		{"twap PERP_BTC_USDT buy 1 over 10m catchup all", "all"},
		{"twap PERP_BTC_USDT buy 1 over 10m post", "post"},
	}
	for _, c := range cases {
		_, err := Parse(c.line)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Got != c.got {
			t.Errorf("%q: %v, want a ParseError on %q", c.line, err, c.got)
		}
	}
	for line, why := range map[string]string{
		"scale PERP_BTC_USDT buy 1 from 5 to 5 count 3":                  "same price",
		"scale PERP_BTC_USDT buy 1 from 5 to 4 count 1":                  "count N",
		"scale PERP_BTC_USDT buy 1 from 5 to 4 count 101":                "count 101",
		"scale PERP_BTC_USDT buy 1 from 5 to 4 count 50 skew exp 1.2":    "more than 1000x",
		"scale PERP_BTC_USDT buy 1 from 5 to 4 count 5 skew linear 0":    "FACTOR",
		"scale PERP_BTC_USDT buy 1 from 5 to 4 count 5 skew linear 2000": "more than 1000x",
		"twap PERP_BTC_USDT buy 1 over 30s":                              "must be 1m..24h",
		"twap PERP_BTC_USDT buy 1 over 25h":                              "must be 1m..24h",
		"twap PERP_BTC_USDT buy 1 over 10m jitter 60%":                   "0..50%",
		"twap PERP_BTC_USDT buy 1 over 10m slices 1":                     "slices N",
		"twap PERP_BTC_USDT buy 1 over 1m slices 1000":                   "at most one a second",
		"chase SPOT_BTC_USDT buy 1 reduce":                               "perpetual",
	} {
		_, err := Parse(line)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: %v, want it refused with %q", line, err, why)
		}
	}
}

func TestSliceCountDefault(t *testing.T) {
	for over, want := range map[time.Duration]int{time.Minute: 2, 10 * time.Minute: 20, 24 * time.Hour: 1440} {
		if got := (Work{Over: over}).SliceCount(); got != want {
			t.Errorf("%s: %d slices, want %d", over, got, want)
		}
	}
}

func TestCompleteWorking(t *testing.T) {
	syms := []string{"PERP_BTC_USDT"}
	cases := []struct {
		line string
		want []string
	}{
		{"c", []string{"chase"}},
		{"chase PERP_BTC_USDT ", []string{"buy", "sell"}},
		{"chase PERP_BTC_USDT buy ", []string{"QTY"}},
		{"chase PERP_BTC_USDT buy 1 ", []string{"at-leash", "leash", "offset", "post", "reduce", "threshold"}},
		{"chase PERP_BTC_USDT buy 1 post ", []string{"at-leash", "leash", "offset", "reduce", "threshold"}},
		{"chase PERP_BTC_USDT buy 1 at-leash ", []string{"cancel", "rest"}},
		{"chase PERP_BTC_USDT buy 1 offset ", []string{"TICKS"}},
		{"scale PERP_BTC_USDT buy 1 ", []string{"from"}},
		{"scale PERP_BTC_USDT buy 1 from ", []string{"PRICE"}},
		{"scale PERP_BTC_USDT buy 1 from 5 ", []string{"to"}},
		{"scale PERP_BTC_USDT buy 1 from 5 to 4 ", []string{"count"}},
		{"scale PERP_BTC_USDT buy 1 from 5 to 4 count 3 ", []string{"post", "reduce", "skew"}},
		{"scale PERP_BTC_USDT buy 1 from 5 to 4 count 3 skew ", []string{"exp", "flat", "linear"}},
		{"scale PERP_BTC_USDT buy 1 from 5 to 4 count 3 skew exp ", []string{"FACTOR"}},
		{"twap PERP_BTC_USDT sell 1 ", []string{"over"}},
		{"twap PERP_BTC_USDT sell 1 over ", []string{"DURATION"}},
		{"twap PERP_BTC_USDT sell 1 over 10m ", []string{"catchup", "jitter", "limit", "outside", "reduce", "slice", "slices"}},
		{"twap PERP_BTC_USDT sell 1 over 10m catchup ", []string{"N", "skip", "spread"}},
	}
	for _, c := range cases {
		if got := Complete(c.line, syms); !slices.Equal(got, c.want) {
			t.Errorf("Complete(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}
