// Package mirror makes the simulated venue a paper venue on a real market:
// instead of synthetic participants it follows an upstream venue's public
// streams and public REST, and matches orders locally against the upstream
// book (docs/paper.md).
//
//   - The upstream book is copied level by level onto the local book as
//     internal orders. A taker walks them as they stand when it arrives;
//     what it takes stays taken until the upstream changes that level.
//   - Upstream trades go into the local public history and fill resting
//     user orders only once the volume traded at their price has passed the
//     quantity queued ahead of them when they came to rest, or at once when
//     the upstream trades through their price.
//   - Mark and index prices and the estimated funding rate (settled
//     locally at funding time) come from the upstream's streams.
//
// Nothing is ever sent upstream but public subscriptions and public REST
// reads: the follower's client holds no key and never signs.
package mirror

import (
	"context"
	"log/slog"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/sim/exchange"
	"tradedeck/venue"
)

// Options configure a Follower.
type Options struct {
	Upstream venue.Endpoints // the venue followed; only its public addresses are used
	// ApplicationID goes into the market stream's path (the real venue
	// names one; it is public, not a key). Empty: "paper".
	ApplicationID string
	Symbols       []string      // symbols to follow; nil: every symbol both venues list
	Reconnect     time.Duration // wait before reconnecting after the stream ends; default 1 s
	Logger        *slog.Logger  // nil: discard
}

// Follower keeps a local exchange in step with the upstream.
type Follower struct {
	opts   Options
	ex     *exchange.Exchange
	client *venue.Client
	book   *exchange.Account // rests the upstream's levels
	tape   *exchange.Account // the other side of fills printed upstream
	log    *slog.Logger

	syms   map[string]*symbol
	orders map[int64]*resting // user orders resting locally, by id

	queries chan func() // run on the follower's goroutine (QueueAhead)

	synced atomic.Int64 // book snapshots applied (tests wait on it)
	trades atomic.Int64 // upstream trades seen
}

// Counters of a Follower.
type Counters struct {
	Snapshots int64 // upstream book snapshots applied
	Trades    int64 // upstream trades seen
}

// New returns a follower of opts.Upstream for ex.
func New(ex *exchange.Exchange, opts Options) *Follower {
	if opts.Reconnect <= 0 {
		opts.Reconnect = time.Second
	}
	if opts.ApplicationID == "" {
		opts.ApplicationID = "paper"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	f := &Follower{opts: opts, ex: ex, log: log, syms: map[string]*symbol{}, orders: map[int64]*resting{}, queries: make(chan func()),
		client: venue.NewClient(opts.Upstream, venue.Credentials{}), // no key: it cannot sign
		book:   ex.InternalAccount("mirror-book"), tape: ex.InternalAccount("mirror-tape")}
	want := map[string]bool{}
	for _, s := range opts.Symbols {
		want[s] = true
	}
	for _, r := range ex.Rules() {
		if len(want) == 0 || want[r.Symbol] {
			f.syms[r.Symbol] = newSymbol(r)
		}
	}
	return f
}

// QueueAhead tells what must still trade upstream at a resting user
// order's price before it fills; false when the order is not followed
// (not resting, unknown, or the follower is not running within ctx).
func (f *Follower) QueueAhead(ctx context.Context, orderID int64) (decimal.Decimal, bool) {
	type answer struct {
		ahead decimal.Decimal
		ok    bool
	}
	ch := make(chan answer, 1)
	q := func() {
		o := f.orders[orderID]
		if o == nil || o.needAhead {
			ch <- answer{}
			return
		}
		ch <- answer{o.ahead, true}
	}
	select {
	case f.queries <- q:
	case <-ctx.Done():
		return decimal.Zero, false
	}
	a := <-ch
	return a.ahead, a.ok
}

// Counters returns the follower's counters.
func (f *Follower) Counters() Counters {
	return Counters{Snapshots: f.synced.Load(), Trades: f.trades.Load()}
}

// Run follows the upstream until ctx ends, reconnecting when the stream
// drops. Everything happens on this goroutine: upstream frames and the
// exchange's order events are handled in the order they arrive.
func (f *Follower) Run(ctx context.Context) {
	events, unsubscribe := f.ex.Subscribe()
	defer func() { unsubscribe() }()
	f.trackExisting()
	for ctx.Err() == nil {
		st, err := f.connect(ctx)
		if err != nil {
			f.log.Warn("mirror: upstream stream", "err", err)
		} else {
			events, unsubscribe = f.follow(ctx, st, events, unsubscribe)
			st.close()
		}
		for _, s := range f.syms {
			s.unsync()
		}
		select {
		case <-ctx.Done():
		case <-time.After(f.opts.Reconnect):
		}
	}
}

// follow handles one connection's frames and the exchange's events until
// the connection ends; it returns the (possibly renewed) subscription.
func (f *Follower) follow(ctx context.Context, st *stream, events <-chan exchange.Event, unsubscribe func()) (<-chan exchange.Event, func()) {
	f.snapshotAll(ctx)
	for {
		select {
		case <-ctx.Done():
			return events, unsubscribe
		case fr, ok := <-st.frames:
			if !ok {
				return events, unsubscribe
			}
			f.onFrame(ctx, fr)
		case q := <-f.queries:
			q()
		case ev, ok := <-events:
			if !ok { // too slow for the exchange: subscribe again and re-read the open orders
				events, unsubscribe = f.ex.Subscribe()
				f.trackExisting()
				continue
			}
			if oe, isOrder := ev.(exchange.OrderEvent); isOrder {
				f.onOrderEvent(oe)
			}
		}
	}
}

// snapshotAll (re)reads the book of every symbol not in sync.
func (f *Follower) snapshotAll(ctx context.Context) {
	for _, name := range f.symbolNames() {
		if s := f.syms[name]; !s.synced {
			f.snapshot(ctx, s)
		}
	}
}

func (f *Follower) symbolNames() []string {
	names := make([]string, 0, len(f.syms))
	for n := range f.syms {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// snapshot reads one upstream book over public REST and lays it onto the
// local book, then applies the updates that arrived meanwhile.
func (f *Follower) snapshot(ctx context.Context, s *symbol) {
	ob, err := f.client.OrderBook(ctx, s.name, 0)
	if err != nil {
		f.log.Warn("mirror: upstream book", "symbol", s.name, "err", err)
		return
	}
	f.layBook(ctx, s, ob)
}

// layBook makes an upstream book the local one and applies the updates
// that arrived while it was read.
func (f *Follower) layBook(ctx context.Context, s *symbol, ob venue.OrderBook) {
	up := [2]map[int64]int64{{}, {}}
	for i, side := range [][]venue.BookLevel{ob.Bids, ob.Asks} {
		for _, l := range side {
			if p, q, ok := s.fx(l.Price, l.Quantity); ok && q > 0 {
				up[i][p] = q
			}
		}
	}
	f.replaceBook(s, up)
	s.synced, s.lastTs, s.first = true, ob.Timestamp.UnixMilli(), true
	f.synced.Add(1)
	pending := s.pending
	s.pending = nil
	for _, u := range pending {
		f.applyUpdate(ctx, s, u)
	}
	for _, o := range f.orders { // orders restored before the book was known queue behind it all
		if o.symbol == s.name && o.needAhead {
			o.ahead, o.needAhead = s.levelQty(o.side, o.priceFx), false
		}
	}
}

// onFrame dispatches one upstream push.
func (f *Follower) onFrame(ctx context.Context, fr frame) {
	name, kind, _ := strings.Cut(fr.Topic, "@")
	s := f.syms[name]
	if s == nil {
		return
	}
	switch kind {
	case "orderbookupdate":
		u, err := decodeUpdate(fr)
		if err != nil {
			f.log.Warn("mirror: book update", "symbol", name, "err", err)
			s.unsync()
			f.snapshot(ctx, s)
			return
		}
		if !s.synced {
			s.buffer(u)
			if len(s.pending)%snapshotRetryEvery == 0 { // the last read failed: try again now and then
				f.snapshot(ctx, s)
			}
			return
		}
		f.applyUpdate(ctx, s, u)
	case "trade":
		t, err := decodeTrade(fr)
		if err == nil {
			f.trades.Add(1)
			f.onTrade(s, t)
		}
	case "estfundingrate":
		if r, err := decodeFundingRate(fr); err == nil {
			if err := f.ex.SetFundingRate(name, r); err != nil {
				f.log.Warn("mirror: funding rate", "symbol", name, "err", err)
			}
		}
	case "markprice", "indexprice":
		if p, err := decodePrice(fr); err == nil {
			set := f.ex.SetIndexPrice
			if kind == "markprice" {
				set = f.ex.SetMarkPrice
			}
			if err := set(name, p); err != nil {
				f.log.Warn("mirror: "+kind, "symbol", name, "err", err)
			}
		}
	}
}

// applyUpdate chains an update to the book by timestamps (docs/sim-streams.md):
// updates at or before the book's time are old; the first after a
// snapshot must start at or before it, later ones exactly at the last.
func (f *Follower) applyUpdate(ctx context.Context, s *symbol, u update) {
	if u.ts <= s.lastTs {
		return
	}
	if (s.first && u.prevTs > s.lastTs) || (!s.first && u.prevTs != s.lastTs) {
		f.log.Info("mirror: gap in the upstream book stream; reading the book again", "symbol", s.name)
		s.unsync()
		f.snapshot(ctx, s)
		return
	}
	s.first, s.lastTs = false, u.ts
	f.changeLevels(s, u)
}

// symbol is one followed symbol: the upstream's levels, the local
// internal orders standing for them, and the stream's sync state.
type symbol struct {
	name   string
	perp   bool
	pd, qd int
	maxQty decimal.Decimal // largest order the engine takes: bigger levels are split

	up    [2]map[int64]int64   // upstream levels by side (0 bids, 1 asks): price -> qty, fixed point
	local [2]map[int64][]int64 // local order ids standing for each upstream level

	synced  bool
	first   bool // no update applied since the snapshot
	lastTs  int64
	pending []update // updates received before the snapshot
}

func newSymbol(r exchange.Rule) *symbol {
	kind, _, _, _ := exchange.SplitSymbol(r.Symbol)
	return &symbol{name: r.Symbol, perp: kind == "PERP", pd: r.PriceDecimals, qd: r.QtyDecimals, maxQty: r.BaseMax,
		up: [2]map[int64]int64{{}, {}}, local: [2]map[int64][]int64{{}, {}}}
}

// maxPending bounds the updates held while a snapshot is read.
const maxPending = 4096

// snapshotRetryEvery: a book whose read failed is read again after this
// many updates (10 s at the venue's 200 ms cadence).
const snapshotRetryEvery = 50

func (s *symbol) buffer(u update) {
	if len(s.pending) >= maxPending { // a snapshot read later than these makes them moot
		s.pending = s.pending[:0]
	}
	s.pending = append(s.pending, u)
}

func (s *symbol) unsync() { s.synced, s.pending = false, nil }

// fx converts a price and quantity to the symbol's fixed point.
func (s *symbol) fx(price, qty decimal.Decimal) (int64, int64, bool) {
	p, okP := fixed.FromDecimal(price, s.pd)
	q, okQ := fixed.FromDecimal(qty, s.qd)
	return p, q, okP && okQ && p > 0
}

func (s *symbol) levelQty(side exchange.Side, priceFx int64) decimal.Decimal {
	return fixed.ToDecimal(s.up[sideIndex(side)][priceFx], s.qd)
}

func sideIndex(side exchange.Side) int {
	if side == exchange.Buy {
		return 0
	}
	return 1
}

// Upstream is the REST base URL of the venue followed.
func (f *Follower) Upstream() string { return f.opts.Upstream.BaseURL }
