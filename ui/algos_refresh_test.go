package ui

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/panes/common"
)

// placedAlgos is an engine another process runs, as a view sees it: its
// place is asked every refresh (so the feed refreshes every algoRefresh),
// its list and protection are what the test sets.
type placedAlgos struct {
	Algos
	mu   sync.Mutex
	list []algo.Algo
	prot []algo.Protection
}

func (p *placedAlgos) Place() (common.EngineState, string) { return common.EngineView, "pid 4242" }

func (p *placedAlgos) Snapshot() []algo.Algo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]algo.Algo(nil), p.list...)
}

func (p *placedAlgos) Protection() []algo.Protection {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]algo.Protection(nil), p.prot...)
}

// TestAlgoRefreshWakesOnChangeOnly: the once-a-second snapshot of an
// engine where nothing moves wakes the program once, not every refresh;
// a trigger's distance moving, a protection changing or an event each
// wake it again, and the UI takes the new snapshot.
func TestAlgoRefreshWakesOnChangeOnly(t *testing.T) {
	d := decimal.RequireFromString
	src := &placedAlgos{list: []algo.Algo{{ID: 7, Spec: algo.Spec{Kind: algo.KindTrail}, State: algo.StateArmed,
		Triggers: []algo.Trigger{{Price: d("100"), Distance: d("5")}}}}}
	f := newAlgoFeed(src)
	wakes := 0
	refresh := func(n int) {
		for range n {
			f.refresh(nil)
			select {
			case <-f.ready:
				wakes++
			default:
			}
		}
	}
	refresh(10)
	if wakes != 1 {
		t.Fatalf("10 refreshes of an unchanged engine woke the UI %d times, want 1", wakes)
	}
	_, st, changed := f.take()
	if !changed || st.Version != 1 || len(st.List) != 1 {
		t.Fatalf("first snapshot: changed %v %+v", changed, st)
	}

	src.mu.Lock()
	src.list[0].Triggers = []algo.Trigger{{Price: d("100"), Distance: d("4.5")}} // a new snapshot, as the engine's
	src.mu.Unlock()
	refresh(5)
	_, st, changed = f.take()
	if wakes != 2 || !changed || st.Version != 2 || !st.List[0].Triggers[0].Distance.Equal(d("4.5")) {
		t.Fatalf("the distance moved: %d wakes, changed %v, %+v", wakes, changed, st)
	}

	src.mu.Lock()
	src.prot = []algo.Protection{{Symbol: "PERP_BTC_USDT", Stop: d("90"), Fresh: true}}
	src.mu.Unlock()
	refresh(5)
	if _, st, changed = f.take(); wakes != 3 || !changed || st.Protection["PERP_BTC_USDT"].Stop.IsZero() {
		t.Fatalf("the protection changed: %d wakes, changed %v", wakes, changed)
	}

	f.mu.Lock()
	f.events = append(f.events, algo.Event{Kind: algo.EventWork, Text: "re-priced"})
	f.mu.Unlock()
	refresh(1)
	evs, _, changed := f.take()
	if wakes != 4 || changed || len(evs) != 1 {
		t.Fatalf("an event: %d wakes, changed %v, %d events", wakes, changed, len(evs))
	}
}

// hereAlgos is the engine running in this process, as the screen sees
// it: events on its subscription, a list the test sets.
type hereAlgos struct {
	Algos
	events    chan algo.Event
	mu        sync.Mutex
	list      []algo.Algo
	snapshots int
}

func (h *hereAlgos) Subscribe(int) (<-chan algo.Event, func()) { return h.events, func() {} }

func (h *hereAlgos) Snapshot() []algo.Algo {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.snapshots++
	return append([]algo.Algo(nil), h.list...)
}

func (h *hereAlgos) Protection() []algo.Protection { return nil }

func (h *hereAlgos) set(state algo.State) {
	h.mu.Lock()
	h.list = []algo.Algo{{ID: 3, Spec: algo.Spec{Kind: algo.KindStop}, State: state}}
	h.mu.Unlock()
}

func (h *hereAlgos) taken() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.snapshots
}

// TestAlgoRefreshTicksOnlyWhileLive counts the refresh goroutine's
// ticks on a fake clock: an engine with no unfinished algo is not ticked
// at all (the ticker woke the process once a second to find nothing
// live); an algo armed (an event) starts the once-a-second snapshots,
// and the tick after it ended stops them.
func TestAlgoRefreshTicksOnlyWhileLive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &hereAlgos{events: make(chan algo.Event, 4)}
		src.set(algo.StateDone)
		f := newAlgoFeed(src)
		f.start()
		defer f.stop()
		after := func(what string, ev algo.EventKind, state algo.State, wait time.Duration, ticks int64, snapshots int) {
			t.Helper()
			if ev != 0 {
				src.set(state)
				src.events <- algo.Event{Kind: ev, Text: what}
				synctest.Wait()
			}
			time.Sleep(wait)
			synctest.Wait()
			if n, s := f.ticks.Load(), src.taken(); n != ticks || s != snapshots {
				t.Fatalf("%s: %d ticks, %d snapshots; want %d and %d", what, n, s, ticks, snapshots)
			}
		}
		after("nothing live for 10 refresh periods (the first snapshot only)", 0, 0, 10*algoRefresh, 0, 1)
		after("an algo armed, for 5.5 periods", algo.EventArmed, algo.StateArmed, 5*algoRefresh+algoRefresh/2, 5, 7)
		after("cancelled, 10 periods after (one tick finds nothing live)", algo.EventCancelled, algo.StateCancelled, 10*algoRefresh, 6, 8)
	})
}
