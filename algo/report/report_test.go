package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/trade"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

var t0 = time.Date(2026, 11, 24, 19, 28, 40, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// A short's stop (BUY exits) and a long's bracket, by hand: costs are
// positive when a BUY pays more or a SELL gets less than the reference;
// the VWAP covers only the prints of the algo's life; fees sum by asset.
func TestBuildByHand(t *testing.T) {
	stop := algo.Algo{ID: 1, Spec: algo.Spec{Kind: algo.KindStop, Symbol: "PERP_BTC_USDT", Trigger: d("101")}, Side: trade.Buy,
		State: algo.StateDone, Updated: at(5), Fired: &algo.Firing{Leg: algo.LegStop, Level: d("101"), Price: d("101.5"), At: at(4), Why: "ask 101.5 >= stop 101"}}
	br := algo.Algo{ID: 2, Spec: algo.Spec{Kind: algo.KindBracket, Symbol: "PERP_BTC_USDT", TP: d("110"), SL: d("90"),
		Entry: algo.Entry{Side: trade.Buy, Type: trade.Market, Quantity: d("2")}}, Side: trade.Sell, State: algo.StateArmed}
	in := Input{
		Algos:  []algo.Algo{br, stop, {ID: 3}}, // 3 has no Start: not reported
		Starts: []Start{{Algo: 1, At: at(1), Arrival: d("100"), Exit: d("3")}, {Algo: 2, At: at(2), Arrival: d("100")}},
		Fills: []Fill{
			{Time: at(4), Algo: 1, Leg: algo.LegStop, Side: trade.Buy, Qty: d("1"), Price: d("102"), Fee: d("0.051"), FeeAsset: "USDT"},
			{Time: at(4), Algo: 1, Leg: algo.LegStop, Side: trade.Buy, Qty: d("2"), Price: d("103"), Fee: d("0.103"), FeeAsset: "USDT"},
			{Time: at(3), Algo: 2, Leg: algo.LegEntry, Side: trade.Buy, Qty: d("1"), Price: d("99"), Fee: d("0.01"), FeeAsset: "BTC"},
		},
		Tape: map[string][]Print{"PERP_BTC_USDT": {
			{Time: at(0), Price: d("50"), Qty: d("100")}, // before both: ignored
			{Time: at(1), Price: d("100"), Qty: d("1")},
			{Time: at(5), Price: d("104"), Qty: d("3")},
			{Time: at(9), Price: d("200"), Qty: d("1")}, // after the stop ended, within the bracket's life
		}},
		From: at(0), To: at(9),
	}
	r := Build(in)
	if len(r.Algos) != 2 || r.Algos[0].ID != 1 || r.Algos[1].ID != 2 {
		t.Fatalf("algos %+v", r.Algos)
	}
	s := r.Algos[0]
	if !s.Ended.Equal(at(5)) || s.Prints != 2 || !s.VWAP.Equal(d("103")) { // (100*1 + 104*3) / 4
		t.Fatalf("stop life %s, %d prints, VWAP %s", s.Ended, s.Prints, s.VWAP)
	}
	ex := s.Sides[0]
	want := SideRun{Role: "exit", Side: trade.Buy, Filled: d("3"), Total: d("3"), AvgPrice: d("102.66666667")}
	if ex.Role != want.Role || ex.Side != want.Side || !ex.Filled.Equal(want.Filled) || !ex.AvgPrice.Equal(want.AvgPrice) {
		t.Fatalf("stop side %+v", ex)
	}
	if !ex.VsArrival.Price.Equal(d("2.66666667")) || !ex.VsArrival.Bps.Equal(d("266.67")) || !ex.VsVWAP.Price.Equal(d("-0.33333333")) {
		t.Fatalf("stop slippage %+v %+v", ex.VsArrival, ex.VsVWAP)
	}
	b := r.Algos[1]
	if !b.Ended.Equal(at(9)) || len(b.Sides) != 2 || !b.Sides[0].Filled.Equal(d("1")) || !b.Sides[0].Total.Equal(d("2")) ||
		!b.Sides[1].Total.Equal(d("1")) || !b.Sides[1].Filled.IsZero() || !b.Sides[0].VsArrival.Price.Equal(d("-1")) {
		t.Fatalf("bracket %+v", b)
	}
	if len(r.Fees) != 2 || r.Fees[0].Asset != "BTC" || !r.Fees[1].Fee.Equal(d("0.154")) {
		t.Fatalf("fees %+v", r.Fees)
	}
	var text, js bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"#1 stop PERP_BTC_USDT 101", "exit  BUY  filled 3 of 3 (100%), avg 102.66666667",
		"vs arrival +2.66666667 (+266.67 bps), vs VWAP -0.33333333 (-32.36 bps)", "entry BUY  filled 1 of 2 (50%)",
		"fired     ask 101.5 >= stop 101 at 19:28:44.000", "fees in all: 0.01 BTC, 0.154 USDT"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, text.String())
		}
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Algos []struct {
			Fills []struct{ Leg, Time string }
		}
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Algos[0].Fills[0].Leg != "stop" || back.Algos[0].Fills[0].Time != "2026-11-24T19:28:44Z" {
		t.Fatalf("JSON %v %s", err, js.String())
	}
}

// A stop on the whole position closes what the position is when it
// fires: grown since it was added, the report says so instead of 200%.
func TestWholePositionThatGrew(t *testing.T) {
	a := algo.Algo{ID: 1, Spec: algo.Spec{Kind: algo.KindStop, Symbol: "PERP_BTC_USDT", Trigger: d("90")}, Side: trade.Sell, State: algo.StateDone, Updated: at(3)}
	r := Build(Input{Algos: []algo.Algo{a}, Starts: []Start{{Algo: 1, At: at(1), Arrival: d("100"), Exit: d("1")}},
		Fills: []Fill{{Time: at(3), Algo: 1, Leg: algo.LegStop, Side: trade.Sell, Qty: d("2"), Price: d("89"), FeeAsset: "USDT"}}, From: at(0), To: at(5)})
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "exit  SELL filled 2 of 2 (100%; the whole position, 1 when added), avg 89") {
		t.Fatalf("report:\n%s", b.String())
	}
}
