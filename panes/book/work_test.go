package book

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/panes/common"
)

// A working order's open children are marked W at their levels, before
// the own-order dot (they are own orders too); its ended children and a
// chase's leash are not marked.
func TestWorkingOrdersMarked(t *testing.T) {
	m, store, _ := newBook(t, 44, 30, false)
	b := store.Books[sym]
	bid2 := decimal.New(b.Bids[2].Price, int32(-b.Scale.PriceDec))
	own := store.Account.Open[0].Price // a bid the fixture rests an own order at
	chase, err := algo.Parse("chase " + sym + " buy 1")
	if err != nil {
		t.Fatal(err)
	}
	store.Algos = common.AlgoState{Shown: true, Engine: common.EngineHere, Version: 1, List: []algo.Algo{{ID: 3, Spec: chase, State: algo.StateWorking,
		Work: &algo.Progress{Leash: bid2.Sub(decimal.NewFromInt(1000))},
		Children: []algo.Child{
			{Leg: algo.LegWork, Status: "CANCELLED", Price: bid2, Quantity: decimal.NewFromInt(1)},
			{Leg: algo.LegWork, Status: "NEW", Price: own, Quantity: decimal.NewFromInt(1)},
		}}}}
	m.Update(common.AlgosMsg{})
	var marked []string
	for _, l := range m.Lines() {
		if p := ansi.Strip(l); strings.HasPrefix(p, "W") {
			marked = append(marked, strings.Fields(p[1:])[0])
		}
	}
	if len(marked) != 1 || marked[0] != own.StringFixed(1) {
		t.Fatalf("marked W %v, want only the open child's level %s", marked, own.StringFixed(1))
	}
	// Finished, nothing is marked.
	store.Algos.List[0].State = algo.StateCancelled
	store.Algos.Version++
	m.Update(common.AlgosMsg{})
	for _, l := range m.Lines() {
		if strings.HasPrefix(ansi.Strip(l), "W") {
			t.Fatalf("a cancelled chase is still marked: %q", ansi.Strip(l))
		}
	}
}
