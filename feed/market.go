package feed

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"tradedeck/feed/ws"
	"tradedeck/fixed"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

// View is what one consumer of the feed shows: a focused symbol (full
// book, trades, futures data and the candles of one interval) and a
// watchlist (bbo and ticker). A Feed holds the union of the views held,
// reference-counted: a topic is subscribed while one view needs it.
type View struct {
	Symbol    string
	Interval  string
	Watchlist []string
	// Books are more symbols shown with their book, trades and futures
	// data next to Symbol (a split view of two to four books).
	Books []string
}

// marketState is the market part: every symbol's book, trades, bbo,
// ticker, futures and candles, what is subscribed, and the market stream.
// Its lock guards all of it; health and the event log are called with it
// held, never the other way round.
type marketState struct {
	c    *core
	conn *ws.Conn

	mu         sync.Mutex
	syms       map[string]*symState // every known symbol; written by setRules before the streams start
	subscribed bool                 // the rules are known and the first subscriptions went out
	focusRefs  map[string]int       // symbol -> views focusing it
	candleRefs map[string]int       // CandleKey -> views showing it
	watchRefs  map[string]int       // symbol -> views watching it
	tracked    []string             // symbols kept at full rate for the Observer (Track)
	topics     map[string]bool      // subscribed market topics
	candles    map[string]*candleSeries
	dirty      []*symState // symbols with a dirty flag set
	dirtyCan   []*candleSeries
	anyDirty   atomic.Bool // dirty or dirtyCan is not empty (read without the lock by collect)

	// Scratch of the market reader goroutine (only it touches these).
	mBook  stream.BookData
	mBBO   stream.BBO
	mTrade stream.Trade
}

func (m *marketState) init(c *core) {
	m.c = c
	m.syms = map[string]*symState{}
	m.candles = map[string]*candleSeries{}
	m.focusRefs = map[string]int{}
	m.candleRefs = map[string]int{}
	m.watchRefs = map[string]int{}
	m.topics = map[string]bool{}
}

// markSym sets dirty flags of s, queueing it for the next Update.
func (m *marketState) markSym(s *symState, flags uint8) {
	if s.dirty == 0 {
		m.dirty = append(m.dirty, s)
		m.anyDirty.Store(true)
		m.c.wake.Wake() // the first change of s this frame; collect takes the lock after
	}
	s.dirty |= flags
}

func (m *marketState) markCandles(cs *candleSeries) {
	if !cs.dirty {
		cs.dirty = true
		m.dirtyCan = append(m.dirtyCan, cs)
		m.anyDirty.Store(true)
		m.c.wake.Wake()
	}
}

// setRules records the symbols and their scales.
func (m *marketState) setRules(sorted []venue.SymbolRule) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range sorted {
		sc := Scale{PriceDec: fixed.DecimalsOf(r.QuoteTick), QtyDec: fixed.DecimalsOf(r.BaseTick)}
		if s := m.syms[r.Symbol]; s != nil {
			s.rule, s.scale = r, sc
			continue
		}
		m.syms[r.Symbol] = &symState{name: r.Symbol, rule: r, scale: sc}
	}
}

// swap moves one consumer's needs from old to new: what new adds is held
// first, so a symbol in both is never dropped and fetched again.
func (m *marketState) swap(old, new View) {
	old, new = m.norm(old), m.norm(new)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.adjustLocked(new, +1)
	m.adjustLocked(old, -1)
	m.syncTopicsLocked()
}

// norm gives a view without an interval the default one.
func (m *marketState) norm(v View) View {
	if v.Interval == "" {
		v.Interval = m.c.cfg.Interval
	}
	return v
}

// adjustLocked adds (+1) or removes (-1) v's references. A symbol focused
// for the first time gets its book, trades and futures; a candle series
// its history; the last release drops them.
func (m *marketState) adjustLocked(v View, d int) {
	for _, s := range dedupe(v.Watchlist) {
		refCount(m.watchRefs, s, d)
	}
	for _, s := range dedupe(v.Books) {
		if s != v.Symbol {
			m.focusRefLocked(s, d)
		}
	}
	if v.Symbol == "" {
		return
	}
	m.focusRefLocked(v.Symbol, d)
	key := CandleKey(v.Symbol, v.Interval)
	switch refCount(m.candleRefs, key, d) {
	case 1:
		if d > 0 && m.subscribed && m.syms[v.Symbol] != nil {
			m.startCandlesLocked(v.Symbol, v.Interval)
		}
	case 0:
		delete(m.candles, key)
	}
}

// focusRefLocked counts a view focusing symbol: the first gets its book,
// trades and futures, the last release drops them.
func (m *marketState) focusRefLocked(symbol string, d int) {
	switch refCount(m.focusRefs, symbol, d) {
	case 1:
		if d > 0 && m.subscribed {
			m.startFocusLocked(symbol)
		}
	case 0:
		m.dropFocusLocked(symbol)
	}
}

// refCount adds d to refs[k] and returns the new count (deleting zero).
func refCount(refs map[string]int, k string, d int) int {
	n := refs[k] + d
	if n <= 0 {
		delete(refs, k)
		return 0
	}
	refs[k] = n
	return n
}

// holds reports whether a view focuses symbol.
func (m *marketState) holds(symbol string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.focusRefs[symbol] > 0
}

// holdsCandles reports whether a view shows the candle series key.
func (m *marketState) holdsCandles(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.candleRefs[key] > 0
}

func watchTopics(symbol string) []string {
	return []string{symbol + "@bbo", symbol + "@ticker"}
}

func isPerp(symbol string) bool { return strings.HasPrefix(symbol, "PERP_") }

// bookTopics are a focused symbol's topics besides its candles.
func bookTopics(symbol string) []string {
	t := []string{symbol + "@orderbookupdate", symbol + "@orderbook", symbol + "@trade"}
	if isPerp(symbol) {
		t = append(t, symbol+"@markprice", symbol+"@indexprice", symbol+"@estfundingrate", symbol+"@openinterest")
	}
	return t
}

// trackTopics are the full-rate topics of a tracked symbol.
func trackTopics(symbol string) []string {
	t := []string{symbol + "@trade", symbol + "@bbo"}
	if isPerp(symbol) {
		t = append(t, symbol+"@markprice")
	}
	return t
}

// syncTopicsLocked subscribes what the held views and the tracked symbols
// need and unsubscribes what none needs any more.
func (m *marketState) syncTopicsLocked() {
	if !m.subscribed {
		return
	}
	want := map[string]bool{}
	add := func(ts []string) {
		for _, t := range ts {
			want[t] = true
		}
	}
	if !m.c.cfg.NoAllTickers {
		want["tickers"] = true
	}
	// A watchlist shows a bbo and a ticker per symbol: the all-symbol
	// topics (once a second) carry them for a fraction of the per-symbol
	// streams' messages (a 10 ms bbo each); only a focused symbol needs
	// those.
	for s := range m.watchRefs {
		if m.syms[s] == nil {
			continue
		}
		want["bbos"] = true
		if m.c.cfg.NoAllTickers {
			want[s+"@ticker"] = true
		}
	}
	for s := range m.focusRefs {
		if m.syms[s] != nil {
			add(watchTopics(s))
			add(bookTopics(s))
		}
	}
	for key := range m.candleRefs {
		if s, iv, _ := strings.Cut(key, "@"); m.syms[s] != nil {
			want[s+"@kline_"+iv] = true
		}
	}
	for _, s := range m.tracked {
		if m.syms[s] != nil {
			add(trackTopics(s))
		}
	}
	for _, s := range m.syms {
		s.showBBO = want[s.name+"@bbo"] || (want["bbos"] && m.watchRefs[s.name] > 0)
	}
	var gone, fresh []string
	for t := range m.topics {
		if !want[t] {
			gone = append(gone, t)
		}
	}
	for t := range want {
		if !m.topics[t] {
			fresh = append(fresh, t)
		}
	}
	sort.Strings(gone)
	sort.Strings(fresh)
	m.topics = want
	if len(gone) > 0 {
		m.conn.Unsubscribe(gone...)
	}
	if len(fresh) > 0 {
		m.conn.Subscribe(fresh...)
	}
}

// subscribeAll starts what the views held so far need, once the rules
// are known.
func (m *marketState) subscribeAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.subscribed = true
	var unknown []string
	for s := range m.watchRefs {
		if m.syms[s] == nil {
			unknown = append(unknown, s)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		m.c.emit(Event{Kind: EventError, Text: "unknown symbols in the watchlist: " + strings.Join(unknown, ", ")})
	}
	m.syncTopicsLocked()
	for s := range m.focusRefs {
		m.startFocusLocked(s)
	}
	for key := range m.candleRefs {
		if s, iv, _ := strings.Cut(key, "@"); m.syms[s] != nil {
			m.startCandlesLocked(s, iv)
		}
	}
}

// startFocusLocked gives a newly focused symbol its book and trades and
// starts their snapshots.
func (m *marketState) startFocusLocked(symbol string) {
	s := m.syms[symbol]
	if s == nil {
		m.c.emit(Event{Kind: EventError, Symbol: symbol, Text: "unknown symbol " + symbol})
		return
	}
	s.book = &bookState{lastUpdate: m.c.cfg.Clock()} // Age counts from the focus until data comes
	s.trades = newTradeRing(m.c.cfg.TradeRing)
	m.markSym(s, dBook|dTrades)
	m.fetchSnapshotLocked(s)
	go m.prefillTrades(s.name)
	if isPerp(symbol) {
		go m.refreshFutures(s.name)
	}
}

func (m *marketState) dropFocusLocked(symbol string) {
	s := m.syms[symbol]
	if s == nil {
		return
	}
	if s.book != nil {
		m.c.health.retire(s.book.sync.Gaps, s.book.sync.Resyncs)
		s.book.gen++
	}
	s.book, s.trades = nil, nil
}

// setTracked replaces the symbols kept subscribed whatever the views.
func (m *marketState) setTracked(symbols []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tracked = dedupe(symbols)
	m.syncTopicsLocked()
}

// tick is the market's share of housekeeping: a book whose sync state
// changed (stale: no delta for BookStaleAfter) is restated, and a stale
// one every second too (its Age moves). It returns the gap and resync
// counts of the books held, the focused perpetuals, and the moment the
// first live book goes stale if no delta comes (zero: none is live).
func (m *marketState) tick(now time.Time, everyBook bool) (gaps, resyncs uint64, perps []string, staleAt time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.syms {
		if s.book == nil {
			continue
		}
		gaps += s.book.sync.Gaps
		resyncs += s.book.sync.Resyncs
		st := m.bookSyncState(s.book, now)
		if st != s.book.shown || everyBook && st == Stale {
			m.markSym(s, dBook)
		}
		if st == Live {
			// Stale once older than BookStaleAfter (bookSyncState's >).
			if at := s.book.lastUpdate.Add(m.c.cfg.BookStaleAfter + 1); staleAt.IsZero() || at.Before(staleAt) {
				staleAt = at
			}
		}
		if isPerp(s.name) {
			perps = append(perps, s.name)
		}
	}
	return gaps, resyncs, perps, staleAt
}

// restateBooks marks every book changed: a book's trust follows its
// stream's.
func (m *marketState) restateBooks() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.syms {
		if s.book != nil {
			m.markSym(s, dBook)
		}
	}
}
