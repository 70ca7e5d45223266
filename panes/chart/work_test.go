package chart

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/panes/common"
)

// A chase's open order and its leash on the chart: a line at each row
// with W and L and the price on the axis, the leash taken into the range.
func TestWorkingOrderAndLeashOnTheChart(t *testing.T) {
	m := newChart(100, 30, false)
	rows := m.candles.Rows
	last := rows[len(rows)-1]
	peg := last.Low.Mul(decimal.RequireFromString("0.985")).Round(1)  // between the candles and the leash
	leash := last.Low.Mul(decimal.RequireFromString("0.97")).Round(1) // below every candle
	chase, err := algo.Parse("chase PERP_BTC_USDT buy 1")
	if err != nil {
		t.Fatal(err)
	}
	m.Store.Algos = common.AlgoState{Shown: true, Engine: common.EngineHere, Version: 1, List: []algo.Algo{{ID: 4, Spec: chase,
		State: algo.StateWorking, Work: &algo.Progress{Leash: leash, Peg: peg},
		Children: []algo.Child{{Leg: algo.LegWork, Status: "NEW", Price: peg, Quantity: decimal.NewFromInt(1)}}}}}
	m.Update(common.AlgosMsg{})
	sc := ansi.Strip(strings.Join(m.Lines(), "\n"))
	for _, want := range []string{"W" + peg.String(), "L" + leash.String()} {
		if !strings.Contains(sc, want) {
			t.Fatalf("no %q on the axis:\n%s", want, sc)
		}
	}
}
