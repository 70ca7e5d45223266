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
	out    chan feed.Update
	wake   chan struct{} // cap 1: the box has something
	done   chan struct{} // closed when the session ended

	mu      sync.Mutex
	view    feed.View
	watch   map[string]bool // view.Watchlist and view.Symbol, for the bbo filter
	box     *feed.Update    // merged since the session last took it
	dropped int             // Events dropped while the box was full
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

// Close ends the session and releases what it showed; Updates is closed
// soon after. Safe to call more than once.
func (s *Session) Close() { s.cancel() }

// Done is closed when the session has ended and left the hub.
func (s *Session) Done() <-chan struct{} { return s.done }

func (s *Session) setView(v feed.View) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.view = v
	s.watch = map[string]bool{v.Symbol: true}
	for _, w := range v.Watchlist {
		s.watch[w] = true
	}
}

// run delivers the box to the reader until ctx ends, then leaves the hub.
func (s *Session) run(ctx context.Context) {
	defer close(s.done)
	defer close(s.out)
	defer s.h.leave(s)
	var pending feed.Update
	have, dropped := false, 0
	var send chan<- feed.Update // nil unless an Update waits
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
			if n, ok := s.take(&pending, !have); ok {
				have, send = true, s.out
				dropped = bound(&pending, dropped+n)
			}
		case send <- pending:
			pending, have, dropped, send = feed.Update{}, false, 0, nil
		}
	}
}

// take moves the box into pending (merging when pending still waits for
// the reader). It reports how many Events the box had dropped and whether
// pending holds anything.
func (s *Session) take(pending *feed.Update, fresh bool) (int, bool) {
	s.mu.Lock()
	box, dropped := s.box, s.dropped
	s.box, s.dropped = nil, 0
	s.mu.Unlock()
	if box == nil {
		return 0, !fresh
	}
	if fresh {
		*pending = *box
	} else {
		merge(pending, box, nil)
	}
	return dropped, true
}

// bound keeps the newest MaxEvents of u's Events; when some were dropped
// (dropped so far, returned with those dropped now), the first says so.
func bound(u *feed.Update, dropped int) int {
	if n := len(u.Events) - MaxEvents; n > 0 {
		u.Events = u.Events[n:]
		dropped += n
	}
	if dropped == 0 {
		return 0
	}
	notice := feed.Event{Kind: feed.EventError, Text: fmt.Sprintf("%d "+behind, dropped)}
	if len(u.Events) > 0 && u.Events[0].Kind == feed.EventError && strings.HasSuffix(u.Events[0].Text, behind) {
		u.Events[0] = notice
		return dropped
	}
	u.Events = append([]feed.Event{notice}, u.Events...)
	return dropped
}

const behind = "events dropped: this session fell behind"

// offer merges what of u the session shows into its box and wakes it.
// It never blocks. Called with the hub's lock held.
func (s *Session) offer(u *feed.Update) {
	s.mu.Lock()
	if s.box == nil {
		s.box = &feed.Update{}
	}
	merge(s.box, u, s)
	if n := len(s.box.Events) - MaxEvents; n > 0 {
		s.box.Events = append(s.box.Events[:0], s.box.Events[n:]...)
		s.dropped += n
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// merge puts src into dst, the newer value winning per key; with a
// session (its lock held), only what that session shows.
func merge(dst, src *feed.Update, s *Session) {
	dst.Seq = src.Seq
	all := func(string) bool { return true }
	focus, candles, watched := all, all, all
	if s != nil {
		sym, key := s.view.Symbol, feed.CandleKey(s.view.Symbol, s.view.Interval)
		focus = func(k string) bool { return k == sym }
		candles = func(k string) bool { return k == key }
		watched = func(k string) bool { return s.watch[k] }
	}
	mergeMap(&dst.Books, src.Books, focus)
	mergeMap(&dst.Trades, src.Trades, focus)
	mergeMap(&dst.Futures, src.Futures, focus)
	mergeMap(&dst.Candles, src.Candles, candles)
	mergeMap(&dst.BBOs, src.BBOs, watched)
	mergeMap(&dst.Tickers, src.Tickers, all)
	if src.Account != nil {
		dst.Account = src.Account
	}
	if src.Health != nil {
		dst.Health = src.Health
	}
	dst.Events = append(dst.Events, src.Events...)
}

// mergeMap copies the entries of src that keep accepts into *dst.
func mergeMap[V any](dst *map[string]V, src map[string]V, keep func(string) bool) {
	for k, v := range src {
		if !keep(k) {
			continue
		}
		if *dst == nil {
			*dst = map[string]V{}
		}
		(*dst)[k] = v
	}
}
