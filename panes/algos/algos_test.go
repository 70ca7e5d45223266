package algos

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/panes/common"
	"tradedeck/panes/panetest"
	"tradedeck/trade"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// sample is a store with the market and three algos: an armed bracket
// with its take-profit resting, a stop that fired and is done, and an OCO
// that needs a decision.
func sample(engine common.EngineState) *common.Store {
	s := common.NewStore()
	s.Apply(panetest.Market(1, 20))
	at := panetest.Now.Add(-time.Minute)
	s.Algos = common.AlgoState{Shown: true, Engine: engine, Version: 1, List: []algo.Algo{
		{ID: 1, Spec: algo.Spec{Kind: algo.KindBracket, Symbol: "PERP_BTC_USDT", TP: d("660000"), SL: d("640000"), Source: algo.SourceBid,
			Entry: algo.Entry{Side: trade.Buy, Type: trade.Market, Quantity: d("0.01")}}, Side: trade.Sell, State: algo.StateArmed,
			Triggers: []algo.Trigger{{Leg: algo.LegStop, Price: d("640000"), Source: algo.SourceBid}, {Leg: algo.LegTP, Price: d("660000"), Source: algo.SourceLast}},
			Children: []algo.Child{{Leg: algo.LegEntry, Status: "FILLED", Quantity: d("0.01"), Executed: d("0.01")}, {Leg: algo.LegTP, Status: "NEW", Quantity: d("0.01")}}},
		{ID: 2, Spec: algo.Spec{Kind: algo.KindStop, Symbol: "PERP_BTC_USDT", Trigger: d("650000"), Source: algo.SourceBid}, Side: trade.Sell, State: algo.StateDone,
			Triggers: []algo.Trigger{{Leg: algo.LegStop, Price: d("650000"), Source: algo.SourceBid}},
			Children: []algo.Child{{Leg: algo.LegStop, Status: "FILLED", Quantity: d("0.02"), Executed: d("0.02")}},
			Fired: &algo.Firing{Leg: algo.LegStop, Level: d("650000"), Price: d("649990"), Source: algo.SourceBid, Why: "bid 649990 <= stop 650000",
				At: at, VenueTime: at.Add(-3 * time.Millisecond), Age: 3 * time.Millisecond}},
		{ID: 3, Spec: algo.Spec{Kind: algo.KindOCO, Symbol: "PERP_ETH_USDT", TP: d("4000"), SL: d("3000"), Source: algo.SourceAsk}, Side: trade.Buy,
			State: algo.StateNeedsDecision, Reason: "the resting exits could not be settled: timeout",
			Triggers: []algo.Trigger{{Leg: algo.LegStop, Price: d("3000"), Source: algo.SourceAsk}}},
	}}
	return s
}

func build(s panetest.Size, engine common.EngineState) panetest.Pane {
	return buildOn(sample(engine), s)
}

// buildOn is the focused tab on a store's algos, s big.
func buildOn(store *common.Store, s panetest.Size) panetest.Pane {
	m := New(panetest.Common(store, nil, s.ASCII))
	m.SetSize(s.W, s.H)
	m.Focus()
	m.Update(common.AlgosMsg{})
	return m
}

func TestGolden(t *testing.T) {
	panetest.GoldenSizes(t, []panetest.Size{panetest.At("algos_160x12", 160, 12, false), panetest.At("algos_80x8_ascii", 80, 8, true)},
		func(s panetest.Size) panetest.Pane { return build(s, common.EngineHere) })
	panetest.GoldenSizes(t, []panetest.Size{panetest.At("algos_not_running", 120, 6, false)},
		func(s panetest.Size) panetest.Pane { return build(s, common.EngineNone) })
}

// Unfinished algos come first, newest first; the cursor stays on its
// algo when a new snapshot arrives; the keys offered follow the state.
func TestOrderCursorAndKeys(t *testing.T) {
	store := sample(common.EngineHere)
	m := New(panetest.Common(store, nil, false))
	m.SetSize(120, 10)
	m.Focus()
	m.Update(common.AlgosMsg{})
	var ids []algo.ID
	for m.cursor = 0; m.cursor < len(m.rows); m.cursor++ {
		a, _ := m.SelectedAlgo()
		ids = append(ids, a.ID)
	}
	if want := []algo.ID{3, 1, 2}; len(ids) != 3 || ids[0] != want[0] || ids[1] != want[1] || ids[2] != want[2] {
		t.Fatalf("order %v, want %v", ids, want)
	}
	m.cursor = 0
	if help := helpKeys(m); !strings.Contains(help, "d decide") || !strings.Contains(help, "c cancel") {
		t.Fatalf("needs decision: keys %q, want decide and cancel", help)
	}
	m.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	if a, _ := m.SelectedAlgo(); a.ID != 1 {
		t.Fatalf("down: #%d, want #1", a.ID)
	}
	if help := helpKeys(m); !strings.Contains(help, "e amend") || strings.Contains(help, "d decide") {
		t.Fatalf("armed bracket: keys %q, want amend, no decide", help)
	}
	// A new snapshot with a newer algo: the cursor stays on #1.
	store.Algos.List = append(store.Algos.List, algo.Algo{ID: 4, Spec: algo.Spec{Kind: algo.KindStop, Symbol: "PERP_ETH_USDT", Trigger: d("3100")}, State: algo.StateArmed})
	store.Algos.Version++
	m.Update(common.AlgosMsg{})
	if a, _ := m.SelectedAlgo(); a.ID != 1 {
		t.Fatalf("after a new snapshot the cursor is on #%d, want #1", a.ID)
	}
	// A finished algo offers nothing but the cursor.
	m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	if a, _ := m.SelectedAlgo(); a.ID != 2 || strings.Contains(helpKeys(m), "cancel") {
		t.Fatalf("done stop #%d: keys %q", a.ID, helpKeys(m))
	}
	// Read-only: no action keys at all.
	m.ReadOnly = true
	m.cursor = 0
	if h := helpKeys(m); strings.Contains(h, "cancel") || strings.Contains(h, "decide") {
		t.Fatalf("read-only offers %q", h)
	}
}

func helpKeys(m *Model) string {
	var parts []string
	for _, b := range m.ShortHelp() {
		parts = append(parts, b.Help().Key+" "+b.Help().Desc)
	}
	return strings.Join(parts, ", ")
}

// The detail lines name the firing's provenance: price, source, level,
// time, venue time and feed age.
func TestFiringProvenance(t *testing.T) {
	m := build(panetest.At("", 160, 12, false), common.EngineHere).(*Model)
	m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	sc := ansi.Strip(m.View())
	for _, want := range []string{"fired: bid 649990 <= stop 650000", "bid 649990", "feed age 3ms", "venue "} {
		if !strings.Contains(sc, want) {
			t.Fatalf("no %q in:\n%s", want, sc)
		}
	}
}

// With no algo the hint says how to add one, whole: on a narrow pane it
// wraps rather than lose its end.
func TestNoAlgosHintWrapsWhole(t *testing.T) {
	s := common.NewStore()
	s.Algos = common.AlgoState{Shown: true, Engine: common.EngineHere, Version: 1}
	for _, w := range []int{160, 78, 40} {
		m := buildOn(s, panetest.At("", w, 8, false)).(*Model)
		flat := strings.Join(strings.Fields(ansi.Strip(m.View())), " ")
		if !strings.Contains(flat, ":twap, or a kind in the order form") {
			t.Fatalf("%d columns: the hint is cut:\n%s", w, ansi.Strip(m.View()))
		}
	}
}
