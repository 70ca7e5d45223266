package ui

// The protective-orders engine on screen (issue 25): the screens' seam to
// the engine (Algos), and the coalescer that brings its events and
// snapshots to the UI goroutine. The engine's calls may do I/O (Preview
// reads the venue; a view's calls cross a local socket), so none of them
// runs in Update or View: snapshots are taken on the coalescer's
// goroutine, the actions in commands.

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"tradedeck/algo"
	"tradedeck/feed"
	"tradedeck/panes/common"
)

// Algos is what the screens use of the account's protective-orders engine
// (consumer side): *algo.Engine in the process that runs it, and the
// view of the engine another process runs (its calls go over the local
// socket): algo.Service.
type Algos = algo.Service

// AlgoPlace is implemented by an Algos that knows where the engine runs
// (a view over the socket: common.EngineView while the other process
// answers, common.EngineNone once it is gone, with a line saying why).
// An Algos without it runs here: common.EngineStarting until its Ready
// channel (if it has one) is closed, then common.EngineHere.
type AlgoPlace interface {
	Place() (common.EngineState, string)
}

type readier interface{ Ready() <-chan struct{} }

// algoRefresh is how often the snapshot is taken again while unfinished
// algos exist: a trail's level and the distances follow the market
// between events. Not per event, not per frame.
const algoRefresh = time.Second

// algoFeed coalesces the engine's events and snapshots for the UI: its
// goroutine takes a snapshot after each burst of events (and every
// algoRefresh while algos are live, with no tick otherwise), and the UI
// takes whatever is pending when woken, at most one wake-up outstanding:
// a burst of events costs one hand-off, and nothing runs while nothing
// happens.
type algoFeed struct {
	src    Algos
	ready  chan struct{} // cap 1: something is pending
	cancel context.CancelFunc
	once   sync.Once

	mu      sync.Mutex
	events  []algo.Event
	state   common.AlgoState
	changed bool

	ticks atomic.Int64 // refresh ticks taken (tests count them)
}

func newAlgoFeed(src Algos) *algoFeed {
	return &algoFeed{src: src, ready: make(chan struct{}, 1)}
}

// start runs the goroutine (once) until stop.
func (f *algoFeed) start() {
	f.once.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		f.cancel = cancel
		events, unsubscribe := f.src.Subscribe(256)
		go f.run(ctx, events, unsubscribe)
	})
}

func (f *algoFeed) stop() {
	if f.cancel != nil {
		f.cancel()
	}
}

func (f *algoFeed) run(ctx context.Context, events <-chan algo.Event, unsubscribe func()) {
	defer unsubscribe()
	var readyCh <-chan struct{}
	if r, ok := f.src.(readier); ok {
		readyCh = r.Ready()
	}
	f.refresh(readyCh)
	// The ticker runs only while the snapshot can move on its own: an
	// engine with nothing live changes only with an event, and its
	// ticks woke the process once a second to find that out.
	t := time.NewTicker(algoRefresh)
	defer t.Stop()
	ticking := f.live()
	if !ticking {
		t.Stop()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			f.mu.Lock()
			f.events = append(f.events, ev)
			f.mu.Unlock()
			f.drain(events)
		case <-readyCh:
			readyCh = nil
		case <-t.C:
			f.ticks.Add(1)
			if !f.live() {
				t.Stop()
				ticking = false
				continue
			}
		}
		f.refresh(readyCh)
		if !ticking && f.live() {
			t.Reset(algoRefresh)
			ticking = true
		}
	}
}

// drain takes the events already waiting, so a burst makes one snapshot.
func (f *algoFeed) drain(events <-chan algo.Event) {
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			f.mu.Lock()
			f.events = append(f.events, ev)
			f.mu.Unlock()
		default:
			return
		}
	}
}

// live reports whether the last snapshot has unfinished algos (or the
// engine's place may change).
func (f *algoFeed) live() bool {
	if _, ok := f.src.(AlgoPlace); ok {
		return true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.state.List {
		if !a.State.Final() {
			return true
		}
	}
	return f.state.Engine == common.EngineStarting
}

// refresh takes a snapshot and wakes the UI when it differs from the last
// one or events wait: the engine here is asked every algoRefresh while it
// runs, and an idle engine's snapshot is the same every time (it woke
// the program, the panes and a View once a second for nothing).
func (f *algoFeed) refresh(notReady <-chan struct{}) {
	st := common.AlgoState{Shown: true, Engine: common.EngineHere}
	if p, ok := f.src.(AlgoPlace); ok {
		st.Engine, st.Where = p.Place()
	} else if notReady != nil {
		st.Engine = common.EngineStarting
	}
	if st.Engine != common.EngineNone {
		st.List = f.src.Snapshot()
		prot := f.src.Protection()
		st.Protection = make(map[string]algo.Protection, len(prot))
		for _, p := range prot {
			st.Protection[p.Symbol] = p
		}
	}
	f.mu.Lock()
	same := f.state.Version > 0 && sameAlgoState(&f.state, &st)
	if !same {
		st.Version = f.state.Version + 1
		f.state, f.changed = st, true
	}
	wake := !same || len(f.events) > 0
	f.mu.Unlock()
	if !wake {
		return
	}
	select {
	case f.ready <- struct{}{}:
	default: // a wake-up is outstanding: the UI takes this too
	}
}

// sameAlgoState: b shows what a does (Version aside). Deep: a trail's
// level or a trigger's distance moving is a change.
func sameAlgoState(a, b *common.AlgoState) bool {
	return a.Shown == b.Shown && a.Engine == b.Engine && a.Where == b.Where &&
		reflect.DeepEqual(a.List, b.List) && reflect.DeepEqual(a.Protection, b.Protection)
}

// take hands the UI what is pending.
func (f *algoFeed) take() (evs []algo.Event, st common.AlgoState, changed bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	evs, f.events = f.events, nil
	st, changed = f.state, f.changed
	f.changed = false
	return evs, st, changed
}

// algosReadyMsg: the coalescer has something pending.
type algosReadyMsg struct{}

// wait blocks until something is pending (one command per wake-up, not
// per event).
func (f *algoFeed) wait() tea.Cmd {
	return func() tea.Msg {
		<-f.ready
		return algosReadyMsg{}
	}
}

// takeAlgos applies what the coalescer holds: the snapshot to the Store
// (announced to the panes), the events as notices.
func (m *Model) takeAlgos() tea.Cmd {
	f := m.algoFeed
	evs, st, changed := f.take()
	cmds := []tea.Cmd{f.wait()}
	if changed {
		m.store.Algos = st
		m.helpBar.invalidate()
		cmds = append(cmds, m.toPanes(common.AlgosMsg{}), m.toDialogs(common.AlgosMsg{}))
	}
	for _, ev := range evs {
		m.algoEvent(ev)
	}
	return batch(cmds)
}

// algoEvent shows an engine event as a notice (the alert channels, bell
// and desktop notifications, are the host's: docs/alerts.md).
func (m *Model) algoEvent(ev algo.Event) {
	level := common.NoticeInfo
	switch ev.Kind {
	case algo.EventWork:
		// A re-price, a slice, a rung: the Algos tab shows the progress;
		// a chaser re-pricing every second would bury every other notice.
		m.logNotice(level, "algo "+ev.Text)
		return
	case algo.EventTriggered, algo.EventRetried, algo.EventPartial, algo.EventPaused:
		level = common.NoticeWarn
	case algo.EventFailed, algo.EventNeedsDecision, algo.EventExcess, algo.EventInterrupted:
		level = common.NoticeError
	case algo.EventDone:
		level = common.NoticeSuccess
	}
	text := "algo " + ev.Text
	if ev.Kind == algo.EventNeedsDecision {
		text += " — decide in the Algos tab (r)"
	}
	m.notify(level, text)
}

// workChild reports an order a working order sent (known from the last
// snapshot): its acknowledgement and cancel go to :log only, as a ladder
// of 100 rungs would otherwise put 100 notices on the status line.
// Its fills are still announced.
func (m *Model) workChild(o *feed.Order) bool {
	if o == nil || o.ClientOrderID == 0 {
		return false
	}
	for i := range m.store.Algos.List {
		a := &m.store.Algos.List[i]
		if a.Work == nil {
			continue
		}
		for j := range a.Children {
			if a.Children[j].ClientOrderID == o.ClientOrderID {
				return true
			}
		}
	}
	return false
}

// Close ends the session's subscription to the engine (the host calls it
// when the screen goes away).
func (m *Model) Close() {
	if m.algoFeed != nil {
		m.algoFeed.stop()
	}
}
