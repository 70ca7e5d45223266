package feed

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"tradedeck/feed/coalesce"
	"tradedeck/feed/ws"
	"tradedeck/venue"
)

// Stream names in Health.
const (
	StreamMarket  = "market"
	StreamPrivate = "private"
)

// Feed is the live data of one venue account. Create it with New, start
// it with Run, read Updates. Its methods are safe for concurrent use.
//
// It has three parts, each with its own state and lock: market (symbols,
// books, trades, candles; the market stream), account (orders, fills,
// balances, positions; the private stream and reconciliation) and health
// (the streams' state and rates). They share core: configuration, REST,
// the event log and the observer.
type Feed struct {
	*core
	mkt     marketState
	acct    accountState
	updates chan Update

	viewMu sync.Mutex
	view   View // what Focus, SetInterval and SetWatchlist change

	started atomic.Bool
	rules   atomic.Pointer[[]venue.SymbolRule]
	seq     uint64 // of Updates; the coalescer's goroutine only
}

// New returns a feed; nothing happens until Run.
func New(cfg Config) *Feed {
	realClock := cfg.Clock == nil
	cfg = cfg.withDefaults()
	c := &core{cfg: cfg, rest: cfg.REST, obs: cfg.Observer, wake: coalesce.NewWaker(),
		realClock: realClock, housePoke: make(chan struct{}, 1)}
	c.events.wake = c.wake
	f := &Feed{core: c, updates: make(chan Update)}
	f.mkt.init(c)
	f.view = View{Symbol: cfg.Symbol, Interval: cfg.Interval, Watchlist: dedupe(cfg.Watchlist)}
	f.mkt.swap(View{}, f.view)
	f.acct.init(c)
	c.health.init(c, cfg.Credentials.HasKeys())
	streamCfg := func(name, url string) ws.Config {
		return ws.Config{
			Name: name, URL: url,
			PingEvery: cfg.PingEvery, StaleAfter: cfg.StaleAfter, DeadAfter: cfg.DeadAfter,
			AuthBackoff: cfg.AuthBackoff, Backoff: cfg.Backoff,
			Now: cfg.Clock, After: cfg.After,
		}
	}
	mc := streamCfg(StreamMarket, cfg.Endpoints.MarketStreamURL(cfg.Credentials.ApplicationID))
	mc.OnFrame = f.mkt.onFrame
	mc.OnStatus = func(st ws.Status) {
		if c.health.status(mStream, st) {
			f.mkt.restateBooks() // a book's trust follows its stream's
		}
	}
	mc.OnConnect = f.mkt.onConnect
	f.mkt.conn = ws.New(mc)
	if cfg.Credentials.HasKeys() {
		pc := streamCfg(StreamPrivate, cfg.Endpoints.PrivateStreamURL(cfg.Credentials.ApplicationID))
		pc.Handshake = f.acct.authenticate
		pc.OnFrame = f.acct.onFrame
		pc.OnStatus = func(st ws.Status) { c.health.status(pStream, st) }
		pc.OnConnect = f.acct.onConnect
		f.acct.conn = ws.New(pc)
		f.acct.conn.Subscribe("executionreport", "balance", "positioninfo", "position")
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
	f.ctx.Store(&ctx)
	var wg sync.WaitGroup
	defer close(f.updates) // after every goroutine (the coalescer sends) ended
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	wg.Add(1)
	go func() { defer wg.Done(); coalesce.RunOnDemand(ctx, f.wake, f.cfg.FrameInterval, f.updates, f.collect) }()

	if err := f.loadRules(ctx); err != nil {
		return err
	}
	f.mkt.subscribeAll()

	wg.Add(1)
	go func() { defer wg.Done(); _ = f.mkt.conn.Run(ctx) }() // ends only with ctx's error
	if f.acct.conn != nil {
		wg.Add(1)
		go func() { defer wg.Done(); _ = f.acct.conn.Run(ctx) }() // ends only with ctx's error
		wg.Add(1)
		go func() { defer wg.Done(); f.acct.reconcileLoop(ctx) }()
		wg.Add(1)
		go func() { defer wg.Done(); f.acct.liqLoop(ctx) }()
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
		f.health.restRetry(mStream, "symbol rules", err, wait)
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
	f.mkt.setRules(sorted)
	f.rules.Store(&sorted)
}

// Focus makes symbol the one with full book, trades, candles and futures
// data; the previous one is unsubscribed (unless another view holds it).
func (f *Feed) Focus(symbol string) {
	f.changeView(func(v *View) { v.Symbol = symbol })
}

// SetInterval switches the candles of the focused symbol.
func (f *Feed) SetInterval(interval string) {
	if interval != "" {
		f.changeView(func(v *View) { v.Interval = interval })
	}
}

// SetWatchlist replaces the symbols with bbo and ticker.
func (f *Feed) SetWatchlist(symbols []string) {
	f.changeView(func(v *View) { v.Watchlist = dedupe(symbols) })
}

// changeView changes the feed's own view (the one Config starts).
// SetBooks shows more symbols' books next to the focused one (a split
// view); nil drops them.
func (f *Feed) SetBooks(symbols []string) {
	f.changeView(func(v *View) { v.Books = append([]string(nil), symbols...) })
}

func (f *Feed) changeView(change func(*View)) {
	f.viewMu.Lock()
	defer f.viewMu.Unlock()
	old := f.view
	change(&f.view)
	f.mkt.swap(old, f.view)
}

// SwapView moves one consumer's needs from old to new (View{} holds or
// releases nothing). Views are reference-counted: a topic is subscribed
// when the first view needs it and unsubscribed after the last one stops.
// The Hub holds one view per session.
func (f *Feed) SwapView(old, new View) { f.mkt.swap(old, new) }

// Holds reports whether a view focuses symbol (its book is kept).
func (f *Feed) Holds(symbol string) bool { return f.mkt.holds(symbol) }

// DefaultInterval is the candle interval of a view that names none.
func (f *Feed) DefaultInterval() string { return f.cfg.Interval }

// HoldsCandles reports whether a view shows the candles of symbol at
// interval.
func (f *Feed) HoldsCandles(symbol, interval string) bool {
	return f.mkt.holdsCandles(CandleKey(symbol, interval))
}

// Track keeps the trades, bbo and mark price of symbols subscribed
// whatever the focus and the watchlist (the symbols alerts watch), so the
// Observer sees them at full rate. It replaces the previous set.
func (f *Feed) Track(symbols []string) { f.mkt.setTracked(symbols) }

// Reconcile asks for a REST reconciliation of the account now.
func (f *Feed) Reconcile() { f.acct.requestReconcile() }

// TrackPending shows a just-sent order as PENDING until the venue's
// executionreport (or a REST read) moves it; matched by client order id.
func (f *Feed) TrackPending(o Order) { f.acct.trackPending(o) }

// RejectPending ends a PENDING order at once when the venue refused it
// outright (the REST call failed with a venue error), with an
// EventRejected; an order the venue already acknowledged is not touched.
func (f *Feed) RejectPending(clientOrderID int64, reason string) {
	f.acct.rejectPending(clientOrderID, reason)
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

// Format prints a Feed without its configuration: the credentials it
// holds in unexported fields would otherwise print raw (fmt cannot call
// their redacting methods there), in every verb.
func (f *Feed) Format(s fmt.State, verb rune) {
	fmt.Fprintf(s, "feed.Feed{%s}", f.cfg.Endpoints.BaseURL)
}
