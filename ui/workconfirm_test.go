package ui

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/trade"
)

// scripted is an algo.Service that answers Preview with what the test
// sets and records what the screens asked: the screens' side of the
// engine without the engine (the gate test runs the real one).
type scripted struct {
	mu       sync.Mutex
	preview  algo.Preview
	list     []algo.Algo
	added    []algo.Spec
	paused   []algo.ID
	resumed  []algo.ID
	canceled []algo.ID
}

func (s *scripted) Preview(sp algo.Spec) (algo.Preview, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.preview
	p.Spec = sp
	return p, nil
}

func (s *scripted) Add(sp algo.Spec, _ algo.Confirm) (algo.Algo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.added = append(s.added, sp)
	return algo.Algo{ID: algo.ID(len(s.added)), Spec: sp, State: algo.StateWorking}, nil
}

func (s *scripted) Cancel(id algo.ID, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.canceled = append(s.canceled, id)
	return nil
}
func (s *scripted) CancelAll(algo.Scope) error                            { return nil }
func (s *scripted) AmendTrigger(algo.ID, algo.Leg, decimal.Decimal) error { return nil }
func (s *scripted) Resolve(algo.ID, algo.Decision) error                  { return nil }
func (s *scripted) Snapshot() []algo.Algo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]algo.Algo(nil), s.list...)
}
func (s *scripted) Protection() []algo.Protection { return nil }
func (s *scripted) Subscribe(int) (<-chan algo.Event, func()) {
	return make(chan algo.Event), func() {}
}
func (s *scripted) Pause(id algo.ID, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paused = append(s.paused, id)
	return nil
}
func (s *scripted) Resume(id algo.ID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resumed = append(s.resumed, id)
	return nil
}
func (s *scripted) Tighten(algo.ID, decimal.Decimal, decimal.Decimal) error { return nil }

func (s *scripted) count(f func() int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return f()
}

// withScripted gives the live model the scripted engine.
func (l *live) withScripted(s *scripted) {
	l.m.useAlgos(s)
	l.t.Cleanup(l.m.Close)
	l.start(algosHook{}.Init(l.m))
	l.until("the engine on screen", func() bool { return l.m.store.Algos.Engine == common.EngineHere })
}

// ladder is a scale preview of n rungs from 1000 down by 1.
func ladder(n int) algo.Preview {
	wp := &algo.WorkPreview{Arrival: decimal.RequireFromString("1000.5")}
	for i := 0; i < n; i++ {
		o := algo.PlannedOrder{Price: decimal.NewFromInt(int64(1000 - i)), Quantity: decimal.RequireFromString("0.01"), Type: trade.Limit}
		wp.Orders = append(wp.Orders, o)
		wp.Notional = wp.Notional.Add(o.Price.Mul(o.Quantity))
	}
	return algo.Preview{Side: trade.Buy, Work: wp}
}

// A scale of 100 rungs at 80x24: the confirmation is drawn whole (the
// rungs scroll), y waits until every rung was shown, then adds it once.
func TestScaleOf100ConfirmsOnlyAfterEveryRungWasShown(t *testing.T) {
	l := newLive(t, MinWidth, MinHeight, false)
	s := &scripted{preview: ladder(100)}
	l.withScripted(s)
	l.keys(":")
	l.typeText("scale " + perpETH + " buy 1 from 1000 to 901 count 100")
	l.keys("enter")
	l.until("the scale's confirmation", topIs[*confirm.Model](l))
	l.clk.Advance(time.Second)
	sc := l.screen()
	if !l.m.dialogDrawn() {
		t.Fatalf("the ladder's confirmation is not drawn whole at 80x24:\n%s", sc)
	}
	for _, want := range []string{"Confirm scale " + perpETH, "100 LIMIT orders from 1000", "total 1", "notional", "of 100", "every rung, LIMIT: price x size = notional USDT", "  1  1000 x 0.01 = 10.00"} {
		if !strings.Contains(sc, want) {
			t.Fatalf("the confirmation lacks %q:\n%s", want, sc)
		}
	}
	l.keys("y")
	if n := s.count(func() int { return len(s.added) }); n != 0 {
		t.Fatal("y added a ladder whose rungs were not all shown")
	}
	if sc := l.screen(); !strings.Contains(sc, "scroll through the rest") || !l.m.dialogDrawn() {
		t.Fatalf("no hint, or the hint pushed the box off the screen:\n%s", sc)
	}
	for i := 0; i < 40 && !l.top().(*confirm.Model).AllSeen(); i++ {
		l.keys("pgdown")
	}
	if sc := l.screen(); !strings.Contains(sc, "100  901 x 0.01 = 9.01") {
		t.Fatalf("the last rung never shown:\n%s", sc)
	}
	l.keys("y")
	l.until("the ladder added", func() bool { return s.count(func() int { return len(s.added) }) == 1 })
	if got := s.added[0]; got.Kind != algo.KindScale || got.Work.Count != 100 {
		t.Fatalf("added %+v", got)
	}
}

// What a chase's and a TWAP's confirmation must say.
func TestWorkPreviewLines(t *testing.T) {
	st := common.NewStore()
	now := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	chase, err := algo.Parse("chase PERP_BTC_USDT sell 0.5 offset 1 threshold 2 at-leash cancel post reduce")
	if err != nil {
		t.Fatal(err)
	}
	p := algo.Preview{Spec: chase, Work: &algo.WorkPreview{Arrival: decimal.NewFromInt(100000), Leash: decimal.NewFromInt(99000),
		Orders: []algo.PlannedOrder{{Price: decimal.RequireFromString("100000.1"), Quantity: decimal.RequireFromString("0.5"), Type: trade.PostOnly, ReduceOnly: true}}}}
	lines, list := WorkPreviewLines(st, p, true, now)
	text := strings.Join(lines, "\n")
	for _, want := range []string{"SELL 0.5 PERP_BTC_USDT, every order reduce-only", "POST_ONLY order that rests 1 tick(s) behind the best ask",
		"moves more than 2 tick(s)", "leash 99000 (the default: 1% from the arrival price), 1000 (1.00%) below arrival: it never rests lower",
		"CANCELS the order and ends", "first order: POST_ONLY 100000.1 x 0.5 reduce-only", "arrival (mid) 100000"} {
		if !strings.Contains(text, want) {
			t.Fatalf("chase lines lack %q:\n%s", want, text)
		}
	}
	if list != nil {
		t.Fatalf("a chase has a list: %v", list)
	}
	twap, err := algo.Parse("twap PERP_BTC_USDT buy 2 over 10m slices 20 jitter 10% limit 101000 outside skip catchup 2")
	if err != nil {
		t.Fatal(err)
	}
	p = algo.Preview{Spec: twap, Work: &algo.WorkPreview{Arrival: decimal.NewFromInt(100000), Slices: 20,
		SliceQty: decimal.RequireFromString("0.1"), Interval: 30 * time.Second, Notional: decimal.NewFromInt(200000)}}
	lines, _ = WorkPreviewLines(st, p, false, now)
	text = strings.Join(lines, "\n")
	for _, want := range []string{"over 10m: 20 slices of 0.1 BTC, one every 30s (±10% of size and time", "ends about 04:10:00 UTC",
		"each slice a MARKET order", "bound 101000: no slice trades above it; outside it the slice is skipped",
		"at most 2 extra slice(s)' worth per slice", "never every overdue slice at once", "notional about 200000.00 USDT"} {
		if !strings.Contains(text, want) {
			t.Fatalf("twap lines lack %q:\n%s", want, text)
		}
	}
	if workWarning(twap) != "" {
		t.Fatal("a bounded TWAP is the strong confirmation")
	}
	unbounded, _ := algo.Parse("twap PERP_BTC_USDT buy 2 over 10m")
	if !strings.Contains(workWarning(unbounded), "no price bound") {
		t.Fatal("MARKET slices without a bound are not the strong confirmation")
	}
}

// p on the Algos tab: offered and acting only on a working order (pause,
// resume), each behind its confirmation; not offered on a stop.
func TestPauseResumeOnTheAlgosTab(t *testing.T) {
	l := newLive(t, 120, 40, false)
	work := &algo.Progress{Total: decimal.NewFromInt(1), Filled: decimal.RequireFromString("0.25"), AvgPrice: decimal.NewFromInt(999),
		Peg: decimal.NewFromInt(1000), Leash: decimal.NewFromInt(990), LeashDistance: decimal.NewFromInt(10)}
	chase, _ := algo.Parse("chase " + perpETH + " buy 1")
	stop, _ := algo.Parse("stop " + perpETH + " 900")
	s := &scripted{list: []algo.Algo{
		{ID: 1, Spec: stop, Side: trade.Sell, State: algo.StateArmed},
		{ID: 2, Spec: chase, Side: trade.Buy, State: algo.StateWorking, Work: work},
	}}
	l.withScripted(s)
	l.keys(tabTo("Algos")...)
	l.until("the chase in the Algos tab", func() bool { a, ok := l.m.algoTab.SelectedAlgo(); return ok && a.ID == 2 })
	sc := l.screen()
	for _, want := range []string{"filled 0.25", "peg 1000", "10 from the best", "p pause"} {
		if !strings.Contains(sc, want) {
			t.Fatalf("the Algos tab lacks %q:\n%s", want, sc)
		}
	}
	l.keys("p")
	l.until("the pause confirmation", topIs[*confirm.Model](l))
	l.clk.Advance(time.Second)
	l.keys("y")
	l.until("paused", func() bool { return s.count(func() int { return len(s.paused) }) == 1 && l.top() == nil })

	s.mu.Lock()
	s.list[1].State, s.list[1].Work.Paused, s.list[1].Work.PausedWhy = algo.StatePaused, true, "paused by dashboard"
	s.mu.Unlock()
	l.until("the paused chase on screen", func() bool {
		sc := l.screen()
		return strings.Contains(sc, "paused: paused by dashboard (p resumes)") && strings.Contains(sc, "p resume")
	})
	l.keys("p")
	l.until("the resume confirmation", topIs[*confirm.Model](l))
	l.clk.Advance(time.Second)
	l.keys("y")
	// The engine is called as the confirmation's close is delivered: wait
	// for both, or j reaches the closing dialog.
	l.until("resumed", func() bool { return s.count(func() int { return len(s.resumed) }) == 1 && l.top() == nil })

	l.keys("j") // the stop
	l.until("the stop selected", func() bool { a, ok := l.m.algoTab.SelectedAlgo(); return ok && a.ID == 1 })
	if sc := l.screen(); strings.Contains(sc, "p pause") || strings.Contains(sc, "p resume") {
		t.Fatalf("p offered on a stop:\n%s", sc)
	}
	l.keys("p")
	if _, ok := l.top().(*confirm.Model); ok {
		t.Fatal("p opened a confirmation on a stop")
	}
	if n := s.count(func() int { return len(s.paused) }); n != 1 {
		t.Fatalf("p on a stop paused something: %d", n)
	}
}

// A working order's re-prices and slices go to the log, not the status
// line; a pause is a warning there.
func TestWorkEventsStayOffTheStatusLine(t *testing.T) {
	l := newLive(t, 120, 40, false)
	l.m.algoEvent(algo.Event{Kind: algo.EventWork, Algo: 3, Text: "#3 chase re-priced 1000 -> 1001"})
	if len(l.m.notices) != 0 {
		t.Fatalf("a re-price became a notice: %+v", l.m.notices)
	}
	found := false
	for _, e := range l.m.log.entries() {
		found = found || strings.Contains(e.text, "re-priced 1000 -> 1001")
	}
	if !found {
		t.Fatal("the re-price is not in :log")
	}
	l.m.algoEvent(algo.Event{Kind: algo.EventPaused, Algo: 3, Text: "#3 chase paused: bound"})
	if len(l.m.notices) != 1 || l.m.notices[0].level != common.NoticeWarn {
		t.Fatalf("a pause: notices %+v, want one warning", l.m.notices)
	}
}

// A working order's child acknowledged or cancelled goes to :log; any
// other order's ack stays a notice.
func TestWorkChildAcksStayOffTheStatusLine(t *testing.T) {
	l := newLive(t, 120, 40, false)
	scale, _ := algo.Parse("scale " + perpETH + " buy 0.2 from 1000 to 990 count 2")
	l.m.store.Algos.List = []algo.Algo{{ID: 1, Spec: scale, State: algo.StateWorking, Work: &algo.Progress{},
		Children: []algo.Child{{ClientOrderID: 77, Leg: algo.LegWork, Status: "NEW"}}}}
	l.m.event(feed.Event{Kind: feed.EventOrderAck, Order: &feed.Order{OrderID: 5, ClientOrderID: 77}, Text: "rung accepted"})
	if len(l.m.notices) != 0 {
		t.Fatalf("a rung's ack became a notice: %+v", l.m.notices)
	}
	l.m.event(feed.Event{Kind: feed.EventOrderAck, Order: &feed.Order{OrderID: 6, ClientOrderID: 78}, Text: "mine accepted"})
	if len(l.m.notices) != 1 || l.m.notices[0].text != "mine accepted" {
		t.Fatalf("the trader's own ack: notices %+v", l.m.notices)
	}
}
