// Package hub shares one feed among any number of sessions (the local
// dashboard, `watch`, every SSH viewer): one market and one private
// connection per process, the union of what the sessions show subscribed
// (reference-counted by the feed's views), and the merged latest state so
// that a session that joins late, or focuses a symbol another session
// already shows, gets a complete first frame.
//
// Every session receives its own coalesced Updates at its own pace: the
// hub merges each feed Update into every session's pending value (only
// what that session shows) and never waits for a session; a session that
// reads slowly gets fewer, fuller Updates, one that never reads holds one
// pending Update (bounded: maps keep the latest value per key, Events at
// most MaxEvents).
package hub

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"tradedeck/feed"
)

// MaxEvents bounds the Events a session that does not read holds; older
// ones are dropped and the drop is reported in their place.
const MaxEvents = 1000

// Hub shares one Feed. Create it with New, run it with Run, add sessions
// with Join.
type Hub struct {
	f *feed.Feed

	mu       sync.Mutex
	state    feed.State // every Update folded in, for late joiners
	sessions map[*Session]struct{}
}

// New returns a hub over f (built without a Symbol or Watchlist: the
// sessions' views are what it subscribes). Nothing happens until Run.
func New(f *feed.Feed) *Hub {
	return &Hub{f: f, state: feed.NewState(), sessions: map[*Session]struct{}{}}
}

// Feed is the shared feed (symbol rules, pending orders, health).
func (h *Hub) Feed() *feed.Feed { return h.f }

// Run runs the feed and hands its Updates to the sessions until ctx ends;
// it returns the feed's error.
func (h *Hub) Run(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- h.f.Run(ctx) }()
	for u := range h.f.Updates() {
		h.publish(&u)
	}
	return <-errc
}

// Sessions is how many sessions are joined.
func (h *Hub) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// publish folds u into the state and offers it to every session. It never
// waits for a session.
func (h *Hub) publish(u *feed.Update) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fold(u)
	// Sessions showing the same view (the common case: viewers of one
	// desk's config) share one filtered Update.
	views := map[string]*feed.Update{}
	for s := range h.sessions {
		f := views[s.key]
		if f == nil {
			f = filter(u, s)
			views[s.key] = f
		}
		s.offer(f)
	}
}

// fold applies u to the state, except books, trades and candles of
// symbols no view holds any more (an Update already on its way when the
// last session left): a later joiner must not be seeded with them.
func (h *Hub) fold(u *feed.Update) {
	h.state.Apply(u)
	for k := range u.Books {
		if !h.f.Holds(k) {
			delete(h.state.Books, k)
			delete(h.state.Trades, k)
		}
	}
	for k, c := range u.Candles {
		if !h.f.HoldsCandles(c.Symbol, c.Interval) {
			delete(h.state.Candles, k)
		}
	}
}

// prune forgets the state of a view's symbols no view holds any more.
func (h *Hub) prune(v feed.View) {
	if v.Symbol == "" {
		return
	}
	if !h.f.Holds(v.Symbol) {
		delete(h.state.Books, v.Symbol)
		delete(h.state.Trades, v.Symbol)
	}
	for k, c := range h.state.Candles {
		if c.Symbol == v.Symbol && !h.f.HoldsCandles(c.Symbol, c.Interval) {
			delete(h.state.Candles, k)
		}
	}
}

// seed is what a session showing v needs first: everything the state
// holds for it.
func (h *Hub) seed(v feed.View) *feed.Update {
	st := &h.state
	u := &feed.Update{Seq: st.Seq, Account: st.Account, Health: st.Health,
		Tickers: make(map[string]feed.Ticker, len(st.Tickers)), BBOs: map[string]feed.BBO{}}
	for k, t := range st.Tickers {
		u.Tickers[k] = t
	}
	for _, s := range append([]string{v.Symbol}, v.Watchlist...) {
		if b, ok := st.BBOs[s]; ok {
			u.BBOs[s] = b
		}
	}
	if v.Symbol == "" {
		return u
	}
	if b := st.Books[v.Symbol]; b != nil {
		u.Books = map[string]*feed.Book{v.Symbol: b}
	}
	if t := st.Trades[v.Symbol]; t != nil {
		u.Trades = map[string]*feed.Trades{v.Symbol: t}
	}
	if fu, ok := st.Futures[v.Symbol]; ok {
		u.Futures = map[string]feed.Futures{v.Symbol: fu}
	}
	if c := st.Candles[feed.CandleKey(v.Symbol, v.Interval)]; c != nil {
		u.Candles = map[string]*feed.Candles{feed.CandleKey(v.Symbol, v.Interval): c}
	}
	return u
}

// Join adds a session showing v; it ends when ctx ends or Close is
// called. Its first Update holds everything the hub has for v.
func (h *Hub) Join(ctx context.Context, v feed.View) *Session {
	ctx, cancel := context.WithCancel(ctx)
	s := &Session{h: h, cancel: cancel, out: make(chan feed.Update, 1), done: make(chan struct{})}
	h.mu.Lock()
	s.setView(h.norm(v))
	h.sessions[s] = struct{}{}
	h.hold(s, feed.View{}, feed.View{})
	s.offer(h.seed(s.view))
	h.mu.Unlock()
	context.AfterFunc(ctx, s.end)
	return s
}

// norm fills a view's interval as the feed does, so the session filters
// the candles the feed keeps.
func (h *Hub) norm(v feed.View) feed.View {
	if v.Interval == "" {
		v.Interval = h.f.DefaultInterval()
	}
	return v
}

// change moves a session to a new view, seeding it with what the state
// already holds for what it now shows.
func (h *Hub) change(s *Session, edit func(*feed.View)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.sessions[s]; !ok {
		return // left
	}
	s.mu.Lock()
	old := s.view
	v := old
	v.Watchlist = append([]string(nil), old.Watchlist...)
	edit(&v)
	v = h.norm(v)
	s.mu.Unlock()
	s.setView(v)
	h.hold(s, old, s.held)
	s.offer(h.seed(v))
}

// hold gives the feed what s now shows (it showed was, the feed held
// old for it). Once the symbol rules are known, a symbol the venue does
// not list is this session's error (said to it alone, once), not every
// session's: the feed is not asked for it.
func (h *Hub) hold(s *Session, was, old feed.View) {
	held, unknown := h.known(s.view)
	h.f.SwapView(old, held)
	h.prune(old)
	s.held = held
	_, told := h.known(was)
	unknown = slices.DeleteFunc(unknown, func(u string) bool { return slices.Contains(told, u) })
	if len(unknown) == 0 {
		return
	}
	text := "unknown symbols: " + strings.Join(unknown, ", ")
	if len(unknown) == 1 {
		text = "unknown symbol " + unknown[0]
	}
	s.offer(&feed.Update{Events: []feed.Event{{Kind: feed.EventError, Time: time.Now(), Text: text}}})
}

// known is v without the symbols the venue does not list (v itself until
// the rules are loaded: the feed reports those at start), and those.
func (h *Hub) known(v feed.View) (feed.View, []string) {
	rules := h.f.Symbols()
	if rules == nil {
		return v, nil
	}
	listed := make(map[string]bool, len(rules))
	for _, r := range rules {
		listed[r.Symbol] = true
	}
	var unknown []string
	if v.Symbol != "" && !listed[v.Symbol] {
		unknown = append(unknown, v.Symbol)
		v.Symbol = ""
	}
	var wl []string
	for _, w := range v.Watchlist {
		if listed[w] {
			wl = append(wl, w)
		} else if w != "" {
			unknown = append(unknown, w)
		}
	}
	v.Watchlist = wl
	return v, unknown
}

// leave removes a session and releases its view.
func (h *Hub) leave(s *Session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.sessions[s]; !ok {
		return
	}
	delete(h.sessions, s)
	h.f.SwapView(s.held, feed.View{})
	h.prune(s.held)
}

// Format prints a Hub by its feed, which redacts what it holds.
func (h *Hub) Format(s fmt.State, verb rune) { fmt.Fprintf(s, "hub.Hub{%v}", h.f) }
