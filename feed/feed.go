package feed

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"tradedeck/feed/coalesce"
	"tradedeck/feed/ws"
	"tradedeck/fixed"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

// Stream names in Health.
const (
	StreamMarket  = "market"
	StreamPrivate = "private"
)

// Feed is the live data of one venue account. Create it with New, start
// it with Run, read Updates. Its methods are safe for concurrent use.
type Feed struct {
	cfg     Config
	rest    *venue.Client
	market  *ws.Conn
	private *ws.Conn // nil without keys
	updates chan Update

	ctx     context.Context // Run's, for background fetches
	started atomic.Bool
	rules   atomic.Pointer[[]venue.SymbolRule]
	loaded  chan struct{} // closed once the symbol rules are loaded

	reconcileReq chan struct{}

	mu       sync.Mutex
	syms     map[string]*symState // every known symbol; written under mu
	focus    string
	interval string
	watch    []string
	tracked  []string // symbols kept at full rate for the Observer (Track)
	candles  map[string]*candleSeries
	acct     account
	health   [2]streamHealth
	events   []Event
	dirty    []*symState // symbols with a dirty flag set
	dirtyCan []*candleSeries
	acctDirt bool
	hlthDirt bool
	seq      uint64
	retired  struct{ gaps, resyncs uint64 } // counts of books no longer focused

	// Scratch of the market reader goroutine (only it touches these).
	mBook  stream.BookData
	mBBO   stream.BBO
	mTrade stream.Trade
}

// New returns a feed; nothing happens until Run.
func New(cfg Config) *Feed {
	cfg = cfg.withDefaults()
	f := &Feed{
		cfg:          cfg,
		rest:         cfg.REST,
		updates:      make(chan Update),
		loaded:       make(chan struct{}),
		reconcileReq: make(chan struct{}, 1),
		syms:         map[string]*symState{},
		focus:        cfg.Symbol,
		interval:     cfg.Interval,
		watch:        dedupe(cfg.Watchlist),
		candles:      map[string]*candleSeries{},
		ctx:          context.Background(),
	}
	f.acct.init()
	f.health[0].h = Health{Stream: StreamMarket, State: Connecting}
	f.health[1].h = Health{Stream: StreamPrivate, State: Stopped}
	streamCfg := func(name, url string) ws.Config {
		return ws.Config{
			Name: name, URL: url,
			PingEvery: cfg.PingEvery, StaleAfter: cfg.StaleAfter, DeadAfter: cfg.DeadAfter,
			AuthBackoff: cfg.AuthBackoff, Backoff: cfg.Backoff,
			Now: cfg.Clock, After: cfg.After,
		}
	}
	mc := streamCfg(StreamMarket, cfg.Endpoints.MarketStreamURL(cfg.Credentials.ApplicationID))
	mc.OnFrame = f.onMarketFrame
	mc.OnStatus = func(st ws.Status) { f.onStatus(0, st) }
	mc.OnConnect = f.onMarketConnect
	f.market = ws.New(mc)
	if cfg.Credentials.HasKeys() {
		pc := streamCfg(StreamPrivate, cfg.Endpoints.PrivateStreamURL(cfg.Credentials.ApplicationID))
		pc.Handshake = f.authenticate
		pc.OnFrame = f.onPrivateFrame
		pc.OnStatus = func(st ws.Status) { f.onStatus(1, st) }
		pc.OnConnect = f.onPrivateConnect
		f.private = ws.New(pc)
		f.private.Subscribe("executionreport", "balance", "positioninfo", "position")
		f.health[1].h.State = Connecting
	}
	return f
}

// Updates is what the UI reads: at most one Update per frame interval,
// carrying only what changed. The feed never waits for the reader; while
// it is busy, changes merge into the next Update and Events accumulate.
// The channel is closed when Run returns.
func (f *Feed) Updates() <-chan Update { return f.updates }

// Symbols returns the symbol rules loaded at start (nil until loaded).
func (f *Feed) Symbols() []venue.SymbolRule {
	if p := f.rules.Load(); p != nil {
		return *p
	}
	return nil
}

// Run loads the symbol rules, connects the streams and runs until ctx
// ends. It returns ctx's error, or an error when the symbol rules cannot
// be loaded before ctx ends.
func (f *Feed) Run(ctx context.Context) error {
	if !f.started.CompareAndSwap(false, true) {
		return errors.New("feed: Run called twice")
	}
	f.mu.Lock()
	f.ctx = ctx
	f.mu.Unlock()
	var wg sync.WaitGroup
	defer close(f.updates) // after every goroutine (the coalescer sends) ended
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	tick, stop := coalesce.Ticker(f.cfg.FrameInterval)
	defer stop()
	wg.Add(1)
	go func() { defer wg.Done(); coalesce.Run(ctx, tick, f.updates, f.collect) }()

	if err := f.loadRules(ctx); err != nil {
		return err
	}
	f.mu.Lock()
	f.subscribeAllLocked()
	f.mu.Unlock()

	wg.Add(1)
	go func() { defer wg.Done(); f.market.Run(ctx) }()
	if f.private != nil {
		wg.Add(1)
		go func() { defer wg.Done(); f.private.Run(ctx) }()
		wg.Add(1)
		go func() { defer wg.Done(); f.reconcileLoop(ctx) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); f.housekeeping(ctx) }()
	<-ctx.Done()
	return ctx.Err()
}

// loadRules fetches the symbol rules, retrying with backoff: without them
// no price can be read.
func (f *Feed) loadRules(ctx context.Context) error {
	b := f.cfg.Backoff
	if b.Min <= 0 {
		b.Min = 500 * time.Millisecond
	}
	if b.Max <= 0 {
		b.Max = 30 * time.Second
	}
	for attempt := 0; ; attempt++ {
		rules, err := f.rest.SymbolRules(ctx)
		if err == nil {
			f.setRules(rules)
			return nil
		}
		wait := b.Delay(attempt, 0.5)
		f.restRetry(0, "symbol rules", err, wait)
		select {
		case <-ctx.Done():
			return fmt.Errorf("feed: symbol rules not loaded: %w", err)
		case <-f.cfg.After(wait):
		}
	}
}

func (f *Feed) setRules(rules []venue.SymbolRule) {
	sorted := append([]venue.SymbolRule(nil), rules...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Symbol < sorted[j].Symbol })
	f.mu.Lock()
	for _, r := range sorted {
		sc := Scale{PriceDec: fixed.DecimalsOf(r.QuoteTick), QtyDec: fixed.DecimalsOf(r.BaseTick)}
		if s := f.syms[r.Symbol]; s != nil {
			s.rule, s.scale = r, sc
			continue
		}
		f.syms[r.Symbol] = &symState{name: r.Symbol, rule: r, scale: sc}
	}
	f.mu.Unlock()
	f.rules.Store(&sorted)
	select {
	case <-f.loaded:
	default:
		close(f.loaded)
	}
}

// Focus makes symbol the one with full book, trades, candles and futures
// data; the previous one is unsubscribed.
func (f *Feed) Focus(symbol string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if symbol == f.focus {
		return
	}
	old := f.focus
	f.focus = symbol
	if !f.isLoaded() {
		return // subscribed once the rules are loaded
	}
	if old != "" {
		f.market.Unsubscribe(f.notNeeded(f.focusTopics(old, f.interval))...)
		if !f.watched(old) {
			f.market.Unsubscribe(f.notNeeded(watchTopics(old))...)
		}
		f.dropFocusLocked(old)
	}
	if symbol != "" {
		f.focusLocked()
	}
}

// SetInterval switches the candles of the focused symbol.
func (f *Feed) SetInterval(interval string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if interval == "" || interval == f.interval {
		return
	}
	old := f.interval
	f.interval = interval
	if !f.isLoaded() || f.focus == "" {
		return
	}
	f.market.Unsubscribe(f.focus + "@kline_" + old)
	delete(f.candles, CandleKey(f.focus, old))
	f.market.Subscribe(f.focus + "@kline_" + interval)
	f.startCandlesLocked(f.focus, interval)
}

// SetWatchlist replaces the symbols with bbo and ticker.
func (f *Feed) SetWatchlist(symbols []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	symbols = dedupe(symbols)
	old := f.watch
	f.watch = symbols
	if !f.isLoaded() {
		return
	}
	keep := map[string]bool{}
	for _, s := range symbols {
		keep[s] = true
	}
	for _, s := range old {
		if !keep[s] && s != f.focus {
			f.market.Unsubscribe(f.notNeeded(watchTopics(s))...)
		}
	}
	for _, s := range symbols {
		if f.known(s) {
			f.market.Subscribe(watchTopics(s)...)
		}
	}
}

// Reconcile asks for a REST reconciliation of the account now.
func (f *Feed) Reconcile() {
	select {
	case f.reconcileReq <- struct{}{}:
	default:
	}
}

func (f *Feed) isLoaded() bool {
	select {
	case <-f.loaded:
		return true
	default:
		return false
	}
}

func (f *Feed) known(symbol string) bool { return f.syms[symbol] != nil }

func (f *Feed) watched(symbol string) bool {
	for _, s := range f.watch {
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

func (f *Feed) focusTopics(symbol, interval string) []string {
	t := []string{symbol + "@orderbookupdate", symbol + "@orderbook", symbol + "@trade", symbol + "@kline_" + interval}
	if isPerp(symbol) {
		t = append(t, symbol+"@markprice", symbol+"@indexprice", symbol+"@estfundingrate", symbol+"@openinterest")
	}
	return t
}

// subscribeAllLocked subscribes the watchlist and the focus once the
// rules are known.
func (f *Feed) subscribeAllLocked() {
	if !f.cfg.NoAllTickers {
		f.market.Subscribe("tickers")
	}
	var unknown []string
	for _, s := range f.watch {
		if f.known(s) {
			f.market.Subscribe(watchTopics(s)...)
		} else {
			unknown = append(unknown, s)
		}
	}
	if len(unknown) > 0 {
		f.emitLocked(Event{Kind: EventError, Text: "unknown symbols in the watchlist: " + strings.Join(unknown, ", ")})
	}
	f.subscribeTrackedLocked()
	if f.focus != "" {
		f.focusLocked()
	}
}

func (f *Feed) focusLocked() {
	s := f.syms[f.focus]
	if s == nil {
		f.emitLocked(Event{Kind: EventError, Symbol: f.focus, Text: "unknown symbol " + f.focus})
		return
	}
	f.market.Subscribe(watchTopics(f.focus)...)
	f.market.Subscribe(f.focusTopics(f.focus, f.interval)...)
	s.book = &bookState{lastUpdate: f.cfg.Clock()} // Age counts from the focus until data comes
	s.trades = newTradeRing(f.cfg.TradeRing)
	s.mark(dBook|dTrades, &f.dirty)
	f.fetchSnapshotLocked(s)
	f.startCandlesLocked(f.focus, f.interval)
	go f.prefillTrades(s.name)
	if isPerp(f.focus) {
		go f.refreshFutures(s.name)
	}
}

func (f *Feed) dropFocusLocked(symbol string) {
	s := f.syms[symbol]
	if s == nil {
		return
	}
	if s.book != nil {
		f.retired.gaps += s.book.sync.Gaps
		f.retired.resyncs += s.book.sync.Resyncs
		s.book.gen++
	}
	s.book, s.trades = nil, nil
	delete(f.candles, CandleKey(symbol, f.interval))
}

func (f *Feed) emitLocked(e Event) {
	if e.Time.IsZero() {
		e.Time = f.cfg.Clock()
	}
	f.events = append(f.events, e)
	f.logf("%s", e.Text)
}

func (f *Feed) logf(format string, args ...any) {
	if f.cfg.Log == nil {
		return
	}
	fmt.Fprintf(f.cfg.Log, f.cfg.Clock().UTC().Format("15:04:05.000")+" feed: "+format+"\n", args...)
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// sleep waits d on the feed's timer, false when ctx ended first.
func (f *Feed) sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-f.cfg.After(d):
		return true
	}
}
