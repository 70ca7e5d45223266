package hub

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"tradedeck/feed"
)

// Session is one consumer of the hub: it shows one View and reads its own
// coalesced Updates. It has the feed's consumer methods (Updates, Focus,
// SetInterval, SetWatchlist), so a dashboard uses it as it would a Feed.
type Session struct {
	h      *Hub
	cancel context.CancelFunc
	// out holds at most one Update, the one the screen has not taken
	// yet; the hub puts it there itself (no goroutine per session to
	// hand it over: one wake-up per frame fewer for every screen).
	out  chan feed.Update
	done chan struct{} // closed when the session ended

	mu    sync.Mutex
	view  feed.View       // what the session shows
	held  feed.View       // what the feed holds for it: view without unknown symbols
	key   string          // the view, as a map key: sessions with equal keys share filtered Updates
	watch map[string]bool // view.Watchlist and view.Symbol, for the bbo filter
	books map[string]bool // view.Symbol and view.Books: book, trades and futures
	// inOut is what out holds (or held when the screen took it: the
	// next offer finds out empty and starts afresh).
	inOut  frame
	closed bool // out is closed: the session ended
}

// Updates is what the session's screen reads: at most one Update per hub
// frame, merged while the reader is busy. Closed when the session ends.
func (s *Session) Updates() <-chan feed.Update { return s.out }

// View is what the session shows.
func (s *Session) View() feed.View {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view
}

// Focus shows symbol's book, trades, candles and futures data.
func (s *Session) Focus(symbol string) {
	s.h.change(s, func(v *feed.View) { v.Symbol = symbol })
}

// SetInterval switches the candles of the focused symbol.
func (s *Session) SetInterval(interval string) {
	if interval != "" {
		s.h.change(s, func(v *feed.View) { v.Interval = interval })
	}
}

// SetWatchlist replaces the symbols with bbo and ticker.
func (s *Session) SetWatchlist(symbols []string) {
	s.h.change(s, func(v *feed.View) { v.Watchlist = append([]string(nil), symbols...) })
}

// SetBooks shows more symbols' books (and trades and futures data) next
// to the focused one: a split view; nil drops them.
func (s *Session) SetBooks(symbols []string) {
	s.h.change(s, func(v *feed.View) { v.Books = append([]string(nil), symbols...) })
}

// Close ends the session and releases what it showed; Updates is closed
// soon after. Safe to call more than once.
func (s *Session) Close() { s.cancel() }

// Done is closed when the session has ended and left the hub.
func (s *Session) Done() <-chan struct{} { return s.done }

func (s *Session) setView(v feed.View) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.view = v
	s.key = v.Symbol + "|" + v.Interval + "|" + strings.Join(v.Watchlist, ",") + "|" + strings.Join(v.Books, ",")
	s.watch = map[string]bool{v.Symbol: true}
	for _, w := range v.Watchlist {
		s.watch[w] = true
	}
	s.books = map[string]bool{v.Symbol: true}
	for _, b := range v.Books {
		s.books[b], s.watch[b] = true, true
	}
}

// end runs once the session's context ends: it leaves the hub, then
// closes Updates (an Update not taken by then is dropped, as the screen
// is gone), then Done.
func (s *Session) end() {
	s.h.leave(s) // no offer after this
	s.mu.Lock()
	s.closed = true
	select {
	case <-s.out:
	default:
	}
	close(s.out)
	s.mu.Unlock()
	close(s.done)
}

// frame is an Update on its way to a session's screen: what the hub
// offered since the screen last read, merged. Until something is merged
// into it, it may be shared with the sessions showing the same view (the
// hub filters each feed Update once per distinct view), so it is copied
// before its first change.
type frame struct {
	u       *feed.Update
	shared  bool
	dropped int  // Events dropped while the screen did not read
	noticed bool // u.Events[0] says how many were dropped
}

// add merges later into f, the newer value winning per key.
func (f *frame) add(later frame) {
	if f.u == nil {
		*f = later
		return
	}
	if f.shared {
		f.u, f.shared = clone(f.u), false
	}
	src := later.u
	if later.noticed { // its notice is folded into f's
		c := *src
		c.Events = c.Events[1:]
		src = &c
	}
	merge(f.u, src, nil)
	f.dropped += later.dropped
	f.bound()
}

// bound keeps the newest MaxEvents Events; when some were dropped, the
// first Event says how many.
func (f *frame) bound() {
	start := 0
	if f.noticed {
		start = 1
	}
	if n := len(f.u.Events) - start - MaxEvents; n > 0 {
		f.dropped += n
		f.u.Events = append(f.u.Events[:start], f.u.Events[start+n:]...)
	}
	if f.dropped == 0 {
		return
	}
	notice := feed.Event{Kind: feed.EventError, Time: f.u.Events[len(f.u.Events)-1].Time,
		Text: fmt.Sprintf("%d events dropped: this session fell behind", f.dropped)}
	if f.noticed {
		f.u.Events[0] = notice
		return
	}
	f.u.Events = append([]feed.Event{notice}, f.u.Events...)
	f.noticed = true
}

// clone copies u's maps and Events, so merging into it leaves u alone.
func clone(u *feed.Update) *feed.Update {
	c := &feed.Update{Seq: u.Seq, Account: u.Account, Health: u.Health, Events: append([]feed.Event(nil), u.Events...)}
	mergeMap(&c.Books, u.Books, nil)
	mergeMap(&c.Trades, u.Trades, nil)
	mergeMap(&c.Futures, u.Futures, nil)
	mergeMap(&c.Candles, u.Candles, nil)
	mergeMap(&c.BBOs, u.BBOs, nil)
	mergeMap(&c.Tickers, u.Tickers, nil)
	return c
}

// offer puts u (already filtered to what the session shows, possibly
// shared with other sessions) in the session's Updates, merged into the
// Update still there if the screen has not taken it. It never blocks:
// only offer sends on out, under the session's lock, after emptying it.
// Called with the hub's lock held.
func (s *Session) offer(u *feed.Update) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	select {
	case <-s.out:
		// Not taken: it is ours again (the screen never saw its maps),
		// and u merges into it.
		s.inOut.add(frame{u: u, shared: true})
	default:
		s.inOut = frame{u: u, shared: true}
	}
	s.out <- *s.inOut.u
}

// filter is what of u a session showing v receives.
func filter(u *feed.Update, s *Session) *feed.Update {
	out := &feed.Update{}
	merge(out, u, s)
	return out
}

// merge puts src into dst, the newer value winning per key; with a
// session (its lock held), only what that session shows.
func merge(dst, src *feed.Update, s *Session) {
	dst.Seq = src.Seq
	var focus, candles, watched func(string) bool // nil: all
	if s != nil {
		sym, key := s.view.Symbol, feed.CandleKey(s.view.Symbol, s.view.Interval)
		focus = func(k string) bool { return k == sym || s.books[k] }
		candles = func(k string) bool { return k == key }
		watched = func(k string) bool { return s.watch[k] }
	}
	mergeMap(&dst.Books, src.Books, focus)
	mergeMap(&dst.Trades, src.Trades, focus)
	mergeMap(&dst.Futures, src.Futures, focus)
	mergeMap(&dst.Candles, src.Candles, candles)
	if s != nil && len(s.watch) < len(src.BBOs) {
		// A watchlist is usually smaller than the bbos of an Update (the
		// all-symbol topic carries every symbol's): look its symbols up.
		for k := range s.watch {
			if v, ok := src.BBOs[k]; ok {
				put(&dst.BBOs, k, v)
			}
		}
	} else {
		mergeMap(&dst.BBOs, src.BBOs, watched)
	}
	mergeMap(&dst.Tickers, src.Tickers, nil)
	if src.Account != nil {
		dst.Account = src.Account
	}
	if src.Health != nil {
		dst.Health = src.Health
	}
	dst.Events = append(dst.Events, src.Events...)
}

func put[V any](m *map[string]V, k string, v V) {
	if *m == nil {
		*m = map[string]V{}
	}
	(*m)[k] = v
}

// mergeMap copies the entries of src that keep accepts (nil: all) into
// *dst.
func mergeMap[V any](dst *map[string]V, src map[string]V, keep func(string) bool) {
	for k, v := range src {
		if keep != nil && !keep(k) {
			continue
		}
		put(dst, k, v)
	}
}
