package algos

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"tradedeck/algo"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
	"tradedeck/trade"
)

func mustParse(t testing.TB, line string) algo.Spec {
	t.Helper()
	s, err := algo.Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// working is a store with a chase (one order open), a paused TWAP and
// a scale with rungs open and filled.
func working(t testing.TB) *common.Store {
	s := common.NewStore()
	s.Apply(panetest.Market(1, 20))
	next := panetest.Now.Add(12 * time.Second)
	rung := func(price, qty, exec, status string) algo.Child {
		return algo.Child{Leg: algo.LegWork, Side: trade.Buy, Type: trade.Limit, Price: d(price), Quantity: d(qty), Executed: d(exec), Status: status}
	}
	s.Algos = common.AlgoState{Shown: true, Engine: common.EngineHere, Version: 1, List: []algo.Algo{
		{ID: 7, Spec: mustParse(t, "chase PERP_BTC_USDT buy 0.05 leash 640000"), Side: trade.Buy, State: algo.StateWorking,
			Children: []algo.Child{rung("649000", "0.02", "0.02", "CANCELLED"), rung("649900", "0.03", "0", "NEW")},
			Work: &algo.Progress{Total: d("0.05"), Filled: d("0.02"), AvgPrice: d("649000"), Arrival: d("649950"), Peg: d("649900"),
				Leash: d("640000"), LeashDistance: d("9900"), Reprices: 3}},
		{ID: 8, Spec: mustParse(t, "twap PERP_BTC_USDT sell 1 over 10m slices 20 limit 600000"), Side: trade.Sell, State: algo.StatePaused,
			Reason: "bid 599000 is outside the bound 600000",
			Work: &algo.Progress{Total: d("1"), Filled: d("0.25"), AvgPrice: d("650010"), Arrival: d("650000"), Slices: 20, SlicesDone: 5,
				SlicesSkipped: 1, NextSlice: next, Ends: next.Add(7 * time.Minute), Paused: true, PausedWhy: "bid 599000 is outside the bound 600000"}},
		{ID: 9, Spec: mustParse(t, "scale PERP_BTC_USDT buy 0.03 from 649000 to 647000 count 3"), Side: trade.Buy, State: algo.StateWorking,
			Children: []algo.Child{rung("649000", "0.01", "0.01", "FILLED"), rung("648000", "0.01", "0", "NEW"), rung("647000", "0.01", "0", "NEW")},
			Work:     &algo.Progress{Total: d("0.03"), Filled: d("0.01"), AvgPrice: d("649000"), Arrival: d("649500"), Orders: 3, OrdersOpen: 2, OrdersFilled: 1}},
	}}
	return s
}

func buildWorking(t testing.TB, s panetest.Size) panetest.Pane { return buildOn(working(t), s) }

func TestGoldenWorking(t *testing.T) {
	panetest.GoldenSizes(t, []panetest.Size{panetest.At("algos_working_160x12", 160, 12, false), panetest.At("algos_working_80x8_ascii", 80, 8, true)},
		func(s panetest.Size) panetest.Pane { return buildWorking(t, s) })
}

// Progress as a trader reads it, and p offered only where it acts.
func TestWorkingProgressAndKeys(t *testing.T) {
	m := buildWorking(t, panetest.At("", 160, 12, false)).(*Model)
	sc := ansi.Strip(m.View())
	for _, want := range []string{
		"0.0100/0.0300 @ 649000.0 · rungs 2 open, 1 filled of 3",                                                              // scale
		"0.2500/1.0000 @ 650010.0 · slices 5/20", "slices 5/20", "paused         0 open                bid 599000 is outside", // twap
		"Triggers · progress", "Distance · working",
	} {
		if !strings.Contains(sc, want) {
			t.Fatalf("no %q in:\n%s", want, sc)
		}
	}
	if strings.Contains(sc, "slices 5/20 next") {
		t.Fatalf("a paused TWAP shows a next slice:\n%s", sc)
	}
	if h := helpKeys(m); !strings.Contains(h, "p pause") || strings.Contains(h, "e amend") {
		t.Fatalf("scale: keys %q, want pause and no amend", h)
	}
	m.move(1) // the paused TWAP
	if a, _ := m.SelectedAlgo(); a.ID != 8 || !strings.Contains(helpKeys(m), "p resume") {
		t.Fatalf("#%d: keys %q, want resume", a.ID, helpKeys(m))
	}
	sc = ansi.Strip(m.View())
	for _, want := range []string{"slices 5 done, 1 skipped of 20", "ends ", "(p resumes)", "slippage -0.002%"} {
		if !strings.Contains(sc, want) {
			t.Fatalf("TWAP detail lacks %q:\n%s", want, sc)
		}
	}
	m.move(1) // the chase
	sc = ansi.Strip(m.View())
	for _, want := range []string{"peg 649900.0", "to leash 9900.0", "3 re-price(s)", "1 open: 649900.0 x 0.0300", "1 ended"} {
		if !strings.Contains(sc, want) {
			t.Fatalf("chase lacks %q:\n%s", want, sc)
		}
	}
	m.ReadOnly = true
	if h := helpKeys(m); strings.Contains(h, "pause") {
		t.Fatalf("read-only offers %q", h)
	}
}
