package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"tradedeck/algo"
	"tradedeck/trade"
)

// A working order's report: its side is "work", its orders (only its
// own, oldest first) are listed with how each ended; a protective algo
// lists none.
func TestWorkingOrderListsItsOrders(t *testing.T) {
	chase := algo.Algo{ID: 1, Spec: algo.Spec{Kind: algo.KindChase, Symbol: "PERP_BTC_USDT",
		Work: algo.Work{Side: trade.Buy, Quantity: d("2")}}, Side: trade.Buy, State: algo.StateWorking}
	stop := algo.Algo{ID: 2, Spec: algo.Spec{Kind: algo.KindStop, Symbol: "PERP_BTC_USDT", Trigger: d("90")}, Side: trade.Sell, State: algo.StateArmed}
	in := Input{Algos: []algo.Algo{chase, stop},
		Starts: []Start{{Algo: 1, At: at(1), Arrival: d("100"), Exit: d("2")}, {Algo: 2, At: at(1), Arrival: d("100"), Exit: d("1")}},
		Orders: []Order{
			{Placed: at(4), Algo: 1, Leg: "work", Attempt: 1, Type: "LIMIT", Side: trade.Buy, Price: d("100.5"), Qty: d("2"), Filled: d("0.5"), Status: "PARTIAL_FILLED"},
			{Placed: at(2), Ended: at(4), Algo: 1, Leg: "work", Type: "LIMIT", Side: trade.Buy, Price: d("100"), Qty: d("2"), Status: "CANCELLED"},
			{Placed: at(3), Algo: 2, Leg: "stop", Type: "MARKET", Side: trade.Sell, Qty: d("1")},
		},
		Fills: []Fill{{Time: at(5), Algo: 1, Leg: algo.LegWork, Side: trade.Buy, Qty: d("0.5"), Price: d("100.5"), FeeAsset: "USDT", Maker: true}},
		From:  at(0), To: at(9)}
	r := Build(in)
	c := r.Algos[0]
	if len(c.Orders) != 2 || !c.Orders[0].Placed.Equal(at(2)) || c.Sides[0].Role != "work" || !c.Sides[0].Filled.Equal(d("0.5")) {
		t.Fatalf("chase %+v", c)
	}
	if len(r.Algos[1].Orders) != 0 || r.Algos[1].Sides[0].Role != "exit" {
		t.Fatalf("a stop lists no orders: %+v", r.Algos[1])
	}
	var text, js bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"work  BUY  filled 0.5 of 2 (25%), avg 100.5",
		"  orders    placed        type       side  qty @ price  filled  end\n" +
			"            19:28:42.000  LIMIT      BUY   2 @ 100  0  CANCELLED 19:28:44.000\n" +
			"            19:28:44.000  LIMIT      BUY   2 @ 100.5  0.5  open\n"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, text.String())
		}
	}
	if strings.Count(text.String(), "orders    placed") != 1 {
		t.Errorf("only the working order lists its orders:\n%s", text.String())
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Algos []struct {
			Orders []map[string]any
		}
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	o := back.Algos[0].Orders
	if len(o) != 2 || o[0]["leg"] != "work" || o[0]["ended"] != "2026-11-24T19:28:44Z" || o[1]["ended"] != nil || o[1]["attempt"] != 1.0 || o[1]["price"] != "100.5" {
		t.Fatalf("JSON orders %v", o)
	}
}
