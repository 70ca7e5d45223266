package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/algo/store"
	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/panes/orderform"
	"tradedeck/venue"
)

// withEngine gives the live model the real protective-orders engine on
// the simulator (its own database in the test's directory), reconciled,
// and waits until the screen knows it runs.
func (l *live) withEngine() *algo.Engine {
	l.t.Helper()
	st, err := store.Open(store.Path(l.t.TempDir()))
	if err != nil {
		l.t.Fatal(err)
	}
	l.t.Cleanup(func() { _ = st.Close() })
	e, err := algo.New(algo.Config{Account: algo.AccountKey(l.inst.Endpoints, l.inst.Credentials), Venue: l.client, Store: st})
	if err != nil {
		l.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = e.Run(ctx); close(done) }()
	l.t.Cleanup(func() { cancel(); <-done })
	<-e.Ready()
	l.m.useAlgos(e)
	l.t.Cleanup(l.m.Close)
	l.start(algosHook{}.Init(l.m))
	l.until("the engine on screen", func() bool { return l.m.store.Algos.Engine == common.EngineHere })
	return e
}

// liveAlgos counts the engine's unfinished algos (the state an algo
// action changes).
func liveAlgos(e *algo.Engine) string {
	n := 0
	for _, a := range e.Snapshot() {
		if !a.State.Final() {
			n++
		}
	}
	return fmt.Sprint(n, " live algos")
}

// algoPaths are the protective orders' actions for the gate test: each
// ends in a confirmation built from the engine's answer.
func algoPaths() []path {
	confirmShown := func(l *live) bool { return topIs[*confirm.Model](l)() }
	formValid := func(l *live) bool { f, ok := l.top().(*orderform.Form); return ok && f.Valid() }
	long := func(l *live) {
		l.market(perpETH, venue.Buy, "1")
		l.withPositions()
	}
	var eng *algo.Engine
	engineSetup := func(extra func(l *live)) func(l *live) {
		return func(l *live) {
			long(l)
			eng = l.withEngine()
			if extra != nil {
				extra(l)
			}
		}
	}
	state := func(*live) string { return liveAlgos(eng) }
	armStop := func(l *live) {
		if _, err := eng.Add(algo.Spec{Kind: algo.KindStop, Symbol: perpETH, Trigger: decimal.RequireFromString("1000")}, algo.Confirm{By: "test"}); err != nil {
			l.t.Fatal(err)
		}
		l.until("the stop in the Algos tab", func() bool { _, ok := l.m.algoTab.SelectedAlgo(); return ok })
	}
	return []path{
		{name: ":stop", setup: engineSetup(nil), state: state, stages: []stage{
			{append(chars(":stop "+perpETH+" 1000"), "enter"), confirmShown}}},
		{name: ":bracket", setup: engineSetup(nil), state: state, stages: []stage{
			{append(chars(":bracket "+perpBTC+" buy 0.05 at 1000 tp 200000 sl 500"), "enter"), confirmShown}}},
		{name: "b bracket form", setup: engineSetup(nil), state: state, stages: []stage{
			{[]string{"b"}, func(l *live) bool { return topIs[*orderform.Form](l)() }},
			{append(append([]string{"shift+tab", "shift+tab", "shift+tab", "shift+tab", "right", "tab", "tab", "tab", "tab"},
				chars("0.01")...), "tab", "9", "0", "0", "0", "tab", "1", "0", "0"), formValid},
			{[]string{"enter"}, confirmShown}}},
		{name: "c on the Algos tab", setup: engineSetup(armStop), state: state, stages: []stage{
			{tabTo("Algos"), func(l *live) bool { return l.m.algosShown() }}, {[]string{"c"}, confirmShown}}},
	}
}

// workPaths are the working orders' actions for the gate test: the
// three commands, a ladder of 100 whose confirmation is paged through
// (y acts only once every rung was shown), and p on the Algos tab.
func workPaths() []path {
	confirmShown := func(l *live) bool { return topIs[*confirm.Model](l)() }
	allShown := func(l *live) bool { c, ok := l.top().(*confirm.Model); return ok && c.AllSeen() }
	var eng *algo.Engine
	setup := func(extra func(l *live)) func(l *live) {
		return func(l *live) {
			eng = l.withEngine()
			if extra != nil {
				extra(l)
			}
		}
	}
	// The state counts the action's answer on screen too: the engine
	// has returned, so the test never ends with its Add in flight.
	state := func(l *live) string {
		paused, answers := 0, 0
		for _, a := range eng.Snapshot() {
			if a.State == algo.StatePaused {
				paused++
			}
		}
		for _, n := range l.notices {
			if strings.Contains(n, "started as #") || strings.Contains(n, "algo #") && strings.Contains(n, ": done") {
				answers++
			}
		}
		return fmt.Sprint(liveAlgos(eng), ", ", paused, " paused, ", answers, " answers")
	}
	pages := make([]string, 15)
	for i := range pages {
		pages[i] = "pgdown"
	}
	addScale := func(l *live) {
		s, err := algo.Parse("scale " + perpETH + " buy 0.2 from 1000 to 990 count 2")
		if err == nil {
			_, err = eng.Add(s, algo.Confirm{By: "test"})
		}
		if err != nil {
			l.t.Fatal(err)
		}
		l.until("the scale in the Algos tab", func() bool { a, ok := l.m.algoTab.SelectedAlgo(); return ok && a.Work != nil })
	}
	return []path{
		{name: ":chase", setup: setup(nil), state: state, stages: []stage{
			{append(chars(":chase "+perpETH+" buy 0.1 offset 100 leash 1000"), "enter"), confirmShown}}},
		{name: ":scale of 100", setup: setup(nil), state: state, stages: []stage{
			{append(chars(":scale "+perpETH+" buy 2 from 1000 to 901 count 100"), "enter"), confirmShown},
			{pages, allShown}}},
		{name: ":twap", setup: setup(nil), state: state, stages: []stage{
			{append(chars(":twap "+perpETH+" buy 0.1 over 10m limit 1000"), "enter"), confirmShown}}},
		{name: "p on the Algos tab", setup: setup(addScale), state: state, stages: []stage{
			{tabTo("Algos"), func(l *live) bool { return l.m.algosShown() }}, {[]string{"p"}, confirmShown}}},
	}
}

// tabTo is the keys that show the account pane's tab named name: focus
// the pane, then next tab up to it (Positions is first).
func tabTo(name string) []string {
	ks := []string{"5"}
	for _, n := range []string{"Open orders", "History", "Fills", "Balances", "PnL", name} {
		ks = append(ks, "]")
		if n == name {
			break
		}
	}
	return ks
}

// The algo paths refused while no engine runs, with the reason.
func TestAlgoRefusedWithoutEngine(t *testing.T) {
	l := newLive(t, 120, 40, false)
	l.keys(append(chars(":stop "+perpETH+" 1000"), "enter")...)
	l.until("the refusal", func() bool { return strings.Contains(strings.Join(l.notices, "|"), "engine not running") })
	if l.top() != nil {
		t.Fatalf("a dialog opened without an engine: %T", l.top())
	}
}
