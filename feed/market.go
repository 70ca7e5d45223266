package feed

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"tradedeck/feed/ws"
	"tradedeck/fixed"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

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
	focus      string
	interval   string
	watch      []string
	tracked    []string // symbols kept at full rate for the Observer (Track)
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
	m.focus = c.cfg.Symbol
	m.interval = c.cfg.Interval
	m.watch = dedupe(c.cfg.Watchlist)
}

// markSym sets dirty flags of s, queueing it for the next Update.
func (m *marketState) markSym(s *symState, flags uint8) {
	if s.dirty == 0 {
		m.dirty = append(m.dirty, s)
		m.anyDirty.Store(true)
	}
	s.dirty |= flags
}

func (m *marketState) markCandles(cs *candleSeries) {
	if !cs.dirty {
		cs.dirty = true
		m.dirtyCan = append(m.dirtyCan, cs)
		m.anyDirty.Store(true)
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

// setFocus makes symbol the one with full book, trades, candles and
// futures data; the previous one is unsubscribed.
func (m *marketState) setFocus(symbol string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if symbol == m.focus {
		return
	}
	old := m.focus
	m.focus = symbol
	if !m.subscribed {
		return // subscribed once the rules are loaded
	}
	if old != "" {
		m.conn.Unsubscribe(m.notNeeded(focusTopics(old, m.interval))...)
		if !m.watched(old) {
			m.conn.Unsubscribe(m.notNeeded(watchTopics(old))...)
		}
		m.dropFocusLocked(old)
	}
	if symbol != "" {
		m.focusLocked()
	}
}

// setInterval switches the candles of the focused symbol.
func (m *marketState) setInterval(interval string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if interval == "" || interval == m.interval {
		return
	}
	old := m.interval
	m.interval = interval
	if !m.subscribed || m.focus == "" {
		return
	}
	m.conn.Unsubscribe(m.focus + "@kline_" + old)
	delete(m.candles, CandleKey(m.focus, old))
	m.conn.Subscribe(m.focus + "@kline_" + interval)
	m.startCandlesLocked(m.focus, interval)
}

// setWatchlist replaces the symbols with bbo and ticker.
func (m *marketState) setWatchlist(symbols []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	symbols = dedupe(symbols)
	old := m.watch
	m.watch = symbols
	if !m.subscribed {
		return
	}
	keep := map[string]bool{}
	for _, s := range symbols {
		keep[s] = true
	}
	for _, s := range old {
		if !keep[s] && s != m.focus {
			m.conn.Unsubscribe(m.notNeeded(watchTopics(s))...)
		}
	}
	for _, s := range symbols {
		if m.syms[s] != nil {
			m.conn.Subscribe(watchTopics(s)...)
		}
	}
}

func (m *marketState) watched(symbol string) bool {
	for _, s := range m.watch {
		if s == symbol {
			return true
		}
	}
	return false
}

func watchTopics(symbol string) []string {
	return []string{symbol + "@bbo", symbol + "@ticker"}
}

func isPerp(symbol string) bool { return strings.HasPrefix(symbol, "PERP_") }

func focusTopics(symbol, interval string) []string {
	t := []string{symbol + "@orderbookupdate", symbol + "@orderbook", symbol + "@trade", symbol + "@kline_" + interval}
	if isPerp(symbol) {
		t = append(t, symbol+"@markprice", symbol+"@indexprice", symbol+"@estfundingrate", symbol+"@openinterest")
	}
	return t
}

// subscribeAll subscribes the watchlist and the focus once the rules are
// known.
func (m *marketState) subscribeAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.subscribed = true
	if !m.c.cfg.NoAllTickers {
		m.conn.Subscribe("tickers")
	}
	var unknown []string
	for _, s := range m.watch {
		if m.syms[s] != nil {
			m.conn.Subscribe(watchTopics(s)...)
		} else {
			unknown = append(unknown, s)
		}
	}
	if len(unknown) > 0 {
		m.c.emit(Event{Kind: EventError, Text: "unknown symbols in the watchlist: " + strings.Join(unknown, ", ")})
	}
	m.subscribeTrackedLocked()
	if m.focus != "" {
		m.focusLocked()
	}
}

func (m *marketState) focusLocked() {
	s := m.syms[m.focus]
	if s == nil {
		m.c.emit(Event{Kind: EventError, Symbol: m.focus, Text: "unknown symbol " + m.focus})
		return
	}
	m.conn.Subscribe(watchTopics(m.focus)...)
	m.conn.Subscribe(focusTopics(m.focus, m.interval)...)
	s.book = &bookState{lastUpdate: m.c.cfg.Clock()} // Age counts from the focus until data comes
	s.trades = newTradeRing(m.c.cfg.TradeRing)
	m.markSym(s, dBook|dTrades)
	m.fetchSnapshotLocked(s)
	m.startCandlesLocked(m.focus, m.interval)
	go m.prefillTrades(s.name)
	if isPerp(m.focus) {
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
	delete(m.candles, CandleKey(symbol, m.interval))
}

// tick is the market's share of housekeeping: every second each book is
// restated (its Age moves even when nothing else does), in between only
// those whose sync state changed. It returns the gap and resync counts of
// the books held, and the focused perpetual.
func (m *marketState) tick(now time.Time, everyBook bool) (gaps, resyncs uint64, focus string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.syms {
		if s.book == nil {
			continue
		}
		gaps += s.book.sync.Gaps
		resyncs += s.book.sync.Resyncs
		if everyBook || m.bookSyncState(s.book, now) != s.book.shown {
			m.markSym(s, dBook)
		}
	}
	return gaps, resyncs, m.focus
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

// trackTopics are the full-rate topics of a tracked symbol.
func trackTopics(symbol string) []string {
	t := []string{symbol + "@trade", symbol + "@bbo"}
	if isPerp(symbol) {
		t = append(t, symbol+"@markprice")
	}
	return t
}

// setTracked replaces the symbols kept subscribed whatever the focus and
// the watchlist.
func (m *marketState) setTracked(symbols []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	symbols = dedupe(symbols)
	old := m.tracked
	m.tracked = symbols
	if !m.subscribed {
		return // subscribed once the rules are loaded
	}
	keep := map[string]bool{}
	for _, s := range symbols {
		keep[s] = true
	}
	for _, s := range old {
		if !keep[s] {
			m.conn.Unsubscribe(m.notNeeded(trackTopics(s))...)
		}
	}
	m.subscribeTrackedLocked()
}

func (m *marketState) subscribeTrackedLocked() {
	for _, s := range m.tracked {
		if m.syms[s] != nil {
			m.conn.Subscribe(trackTopics(s)...)
		}
	}
}

// notNeeded filters topics about to be unsubscribed, keeping those a
// tracked symbol still needs.
func (m *marketState) notNeeded(topics []string) []string {
	if len(m.tracked) == 0 {
		return topics
	}
	need := map[string]bool{}
	for _, s := range m.tracked {
		for _, t := range trackTopics(s) {
			need[t] = true
		}
	}
	if m.focus != "" {
		for _, t := range focusTopics(m.focus, m.interval) {
			need[t] = true
		}
		for _, t := range watchTopics(m.focus) {
			need[t] = true
		}
	}
	for _, s := range m.watch {
		for _, t := range watchTopics(s) {
			need[t] = true
		}
	}
	out := topics[:0:0]
	for _, t := range topics {
		if !need[t] {
			out = append(out, t)
		}
	}
	return out
}
