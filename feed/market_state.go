package feed

import (
	"sort"
	"time"

	"tradedeck/feed/book"
	"tradedeck/venue"
)

// Dirty flags of a symbol: what changed since the last Update.
const (
	dBook uint8 = 1 << iota
	dTrades
	dBBO
	dTicker
	dFutures
)

// symState is everything the feed holds about one symbol.
type symState struct {
	name  string
	rule  venue.SymbolRule
	scale Scale
	dirty uint8

	showBBO bool       // a view or Track shows its bbo (the all-symbol bbos carry every symbol's)
	book    *bookState // focused symbol only
	trades  *tradeRing // focused symbol only
	bbo     BBO
	ticker  Ticker
	futures Futures
}

type bookState struct {
	sync       book.Sync
	gen        uint64 // bumped when the book is dropped or reset: late snapshots are ignored
	inflight   bool   // a snapshot fetch is running
	lastUpdate time.Time
	version    uint64
	shown      SyncState // state in the last Update, to notice changes
}

// tradeRing keeps the newest public trades, newest first, on a shelf
// filled from its end towards its start. A snapshot is the shelf from the
// newest trade on, and a push writes only the row before the newest, so
// no later push changes a snapshot: collecting copies nothing (it copied
// the ring, 200 rows, for every batch of trades). A full shelf moves its
// newest rows to the end of a new one, once every shelfRows-1 rings' worth
// of trades.
type tradeRing struct {
	shelf   []Trade
	start   int // the newest trade's row
	n, max  int // rows held, at most max
	version uint64
}

// shelfRows is how many rings' worth of rows a shelf holds.
const shelfRows = 4

func newTradeRing(n int) *tradeRing {
	n = max(n, 1)
	return &tradeRing{shelf: make([]Trade, shelfRows*n), start: shelfRows * n, max: n}
}

func (r *tradeRing) push(t Trade) {
	if r.start == 0 {
		keep := min(r.n, r.max-1)
		shelf := make([]Trade, len(r.shelf))
		copy(shelf[len(shelf)-keep:], r.shelf[:keep])
		r.shelf, r.start, r.n = shelf, len(shelf)-keep, keep
	}
	r.start--
	r.shelf[r.start] = t
	r.n = min(r.n+1, r.max)
	r.version++
}

// newestFirst is the ring, newest first: shared with every snapshot taken
// since the shelf's last move, so it must be read, never written.
func (r *tradeRing) newestFirst() []Trade {
	return r.shelf[r.start : r.start+r.n : r.start+r.n]
}

// candleSeries is REST history merged with live kline pushes.
type candleSeries struct {
	symbol, interval string
	rows             []Candle // oldest first
	early            []Candle // pushes that came before the history
	loaded           bool
	version          uint64
	dirty            bool
}

// merge puts c in place: same start replaces, newer appends. It reports
// whether the series changed (a kline repeated as it is changes nothing).
func (c *candleSeries) merge(k Candle, limit int) bool {
	n := len(c.rows)
	switch {
	case n > 0 && k.Start == c.rows[n-1].Start && k.same(c.rows[n-1]):
		return false
	case n >= limit && k.Start > c.rows[n-1].Start:
		// Full: slide in place rather than let append double the array
		// (Updates carry copies, so nothing else holds it).
		copy(c.rows, c.rows[n-limit+1:])
		c.rows = c.rows[:limit]
		c.rows[limit-1] = k
	case n == 0 || k.Start > c.rows[n-1].Start:
		c.rows = append(c.rows, k)
	case k.Start == c.rows[n-1].Start:
		c.rows[n-1] = k
	default:
		i := sort.Search(n, func(i int) bool { return c.rows[i].Start >= k.Start })
		if i < n && c.rows[i].Start == k.Start {
			c.rows[i] = k
		} else {
			c.rows = append(c.rows, Candle{})
			copy(c.rows[i+1:], c.rows[i:])
			c.rows[i] = k
		}
	}
	c.version++
	return true
}

// bookSyncState is what the UI is told about a book.
func (m *marketState) bookSyncState(bs *bookState, now time.Time) SyncState {
	if !bs.sync.Live() {
		if bs.sync.EverLive() || bs.sync.Resyncs > 0 {
			return Resyncing
		}
		return Syncing
	}
	if m.c.health.market() != Connected || now.Sub(bs.lastUpdate) > m.c.cfg.BookStaleAfter {
		return Stale
	}
	return Live
}

func levelsOf(in []book.Level, depth int) []Level {
	if len(in) > depth {
		in = in[:depth]
	}
	out := make([]Level, len(in))
	for i, l := range in {
		out[i] = Level{Price: l.Price, Qty: l.Qty}
	}
	return out
}
