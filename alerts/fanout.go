package alerts

import (
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
)

// Fanout is the one feed.Observer of a shared feed (the hub behind every
// dashboard and SSH session of a process): it hands each observation to
// the engine of every member, and keeps the union of their symbols
// tracked on the feed.
type Fanout struct {
	engines atomic.Pointer[[]*Engine] // read on the hot path without a lock

	mu      sync.Mutex
	members map[*Member]struct{}
	track   func([]string)
	tracked []string
}

var _ feed.Observer = (*Fanout)(nil)

// NewFanout returns an empty fanout; SetTrack connects it to the feed.
func NewFanout() *Fanout {
	f := &Fanout{members: map[*Member]struct{}{}}
	f.engines.Store(&[]*Engine{})
	return f
}

// SetTrack sets what keeps the members' symbols subscribed (the feed's
// Track) and applies the current union.
func (f *Fanout) SetTrack(track func([]string)) {
	f.mu.Lock()
	f.track = track
	syms := f.tracked
	f.mu.Unlock()
	if track != nil {
		track(syms)
	}
}

// Member is one engine's place in the fanout.
type Member struct {
	f       *Fanout
	engine  *Engine
	symbols []string
}

// Join adds a member; give its Track to the engine's Options.OnSymbols,
// then Attach the engine.
func (f *Fanout) Join() *Member {
	m := &Member{f: f}
	f.mu.Lock()
	f.members[m] = struct{}{}
	f.mu.Unlock()
	return m
}

// Attach starts handing observations to e.
func (m *Member) Attach(e *Engine) {
	m.f.mu.Lock()
	m.engine = e
	m.f.publishLocked()
	m.f.mu.Unlock()
}

// Track records the member's symbols (Options.OnSymbols).
func (m *Member) Track(symbols []string) {
	m.f.mu.Lock()
	m.symbols = slices.Clone(symbols)
	track, syms := m.f.unionLocked()
	m.f.mu.Unlock()
	if track != nil {
		track(syms)
	}
}

// Leave removes the member: its engine sees nothing more.
func (m *Member) Leave() {
	m.f.mu.Lock()
	delete(m.f.members, m)
	m.f.publishLocked()
	track, syms := m.f.unionLocked()
	m.f.mu.Unlock()
	if track != nil {
		track(syms)
	}
}

func (f *Fanout) publishLocked() {
	var es []*Engine
	for m := range f.members {
		if m.engine != nil {
			es = append(es, m.engine)
		}
	}
	f.engines.Store(&es)
}

func (f *Fanout) unionLocked() (func([]string), []string) {
	seen := map[string]bool{}
	var out []string
	for m := range f.members {
		for _, s := range m.symbols {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	f.tracked = out
	return f.track, out
}

// The feed.Observer methods: each engine in turn.

// each hands one observation to every member's engine.
func (f *Fanout) each(observe func(*Engine)) {
	for _, e := range *f.engines.Load() {
		observe(e)
	}
}

func (f *Fanout) ObserveTrade(symbol string, sc feed.Scale, t feed.Trade) {
	f.each(func(e *Engine) { e.ObserveTrade(symbol, sc, t) })
}

func (f *Fanout) ObserveBBO(b feed.BBO) {
	f.each(func(e *Engine) { e.ObserveBBO(b) })
}

func (f *Fanout) ObserveTicker(t feed.Ticker) {
	f.each(func(e *Engine) { e.ObserveTicker(t) })
}

func (f *Fanout) ObserveMark(symbol string, price decimal.Decimal, ts int64) {
	f.each(func(e *Engine) { e.ObserveMark(symbol, price, ts) })
}

func (f *Fanout) ObserveOrder(o feed.Order) {
	f.each(func(e *Engine) { e.ObserveOrder(o) })
}

func (f *Fanout) ObservePosition(p feed.Position) {
	f.each(func(e *Engine) { e.ObservePosition(p) })
}

func (f *Fanout) ObserveHealth(h feed.Health) {
	f.each(func(e *Engine) { e.ObserveHealth(h) })
}
