package feed

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"tradedeck/feed/book"
	"tradedeck/fixed"
	"tradedeck/venue"
	"tradedeck/venue/stream"
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

	book    *bookState // focused symbol only
	trades  *tradeRing // focused symbol only
	bbo     BBO
	ticker  Ticker
	futures Futures
}

// mark sets dirty flags, queueing the symbol for the next Update.
func (s *symState) mark(flags uint8, queue *[]*symState) {
	if s.dirty == 0 {
		*queue = append(*queue, s)
	}
	s.dirty |= flags
}

type bookState struct {
	sync       book.Sync
	gen        uint64 // bumped when the book is dropped or reset: late snapshots are ignored
	inflight   bool   // a snapshot fetch is running
	lastUpdate time.Time
	version    uint64
	shown      SyncState // state in the last Update, to notice changes
}

// tradeRing keeps the newest public trades.
type tradeRing struct {
	rows    []Trade // ring
	next, n int
	version uint64
}

func newTradeRing(n int) *tradeRing { return &tradeRing{rows: make([]Trade, n)} }

func (r *tradeRing) push(t Trade) {
	r.rows[r.next] = t
	r.next = (r.next + 1) % len(r.rows)
	if r.n < len(r.rows) {
		r.n++
	}
	r.version++
}

// newestFirst copies the ring, newest first.
func (r *tradeRing) newestFirst() []Trade {
	out := make([]Trade, r.n)
	for i := 0; i < r.n; i++ {
		out[i] = r.rows[(r.next-1-i+2*len(r.rows))%len(r.rows)]
	}
	return out
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

// merge puts c in place: same start replaces, newer appends.
func (c *candleSeries) merge(k Candle, limit int) {
	n := len(c.rows)
	switch {
	case n == 0 || k.Start > c.rows[n-1].Start:
		c.rows = append(c.rows, k)
		if len(c.rows) > limit {
			c.rows = append(c.rows[:0], c.rows[len(c.rows)-limit:]...)
		}
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
}

func (f *Feed) markCandles(c *candleSeries) {
	if !c.dirty {
		c.dirty = true
		f.dirtyCan = append(f.dirtyCan, c)
	}
}

// admit is what every frame of stream i (0 market, 1 private), read at
// now, goes through before its topic: a malformed frame or a reply is dealt
// with here (false); a push samples the stream's health (true).
func (f *Feed) admit(i int, now time.Time, env *stream.Envelope, perr error) bool {
	if perr != nil {
		f.frameError(i, "malformed frame", perr)
		return false
	}
	if !env.IsPush() {
		f.onReply(i, env)
		return false
	}
	f.mu.Lock()
	f.health[i].sample(now, env.TS)
	f.mu.Unlock()
	return true
}

// onMarketFrame handles one market stream frame (on the reader goroutine).
func (f *Feed) onMarketFrame(frame []byte, env *stream.Envelope, perr error) {
	now := f.cfg.Clock()
	if !f.admit(0, now, env, perr) {
		return
	}
	symb, kind := stream.SplitTopic(env.Topic)
	switch string(kind) {
	case "orderbookupdate":
		f.onBookUpdate(symb, env, now)
	case "orderbook", "orderbook100":
		f.onBookPush(symb, env, now)
	case "bbo":
		f.onBBO(symb, env.Data, env.TS)
	case "bbos":
		stream.EachElem(env.Data, func(el []byte) error { f.onBBO(stream.SymbolOf(el), el, env.TS); return nil })
	case "trade":
		f.onTrade(symb, env)
	case "ticker":
		f.onTicker(env.Data, env.TS)
	case "tickers":
		stream.EachElem(env.Data, func(el []byte) error { f.onTicker(el, env.TS); return nil })
	case "markprice", "indexprice", "estfundingrate", "openinterest":
		f.onFutures(string(kind), env.Data, env.TS)
	case "markprices":
		stream.EachElem(env.Data, func(el []byte) error { f.onFutures("markprice", el, env.TS); return nil })
	default:
		if len(kind) > 6 && string(kind[:6]) == "kline_" {
			f.onKline(env.Data)
		}
	}
}

// sym returns the state of a symbol named by frame bytes (no allocation).
// The map is written only by setRules, before the streams start, so the
// reader goroutines may look it up without the lock; the symState fields
// they then touch are guarded by f.mu as usual.
func (f *Feed) sym(name []byte) *symState { return f.syms[string(name)] }

func (f *Feed) onBookUpdate(name []byte, env *stream.Envelope, now time.Time) {
	s := f.sym(name)
	if s == nil {
		return
	}
	err := stream.DecodeBook(env.Data, s.scale.PriceDec, s.scale.QtyDec, &f.mBook)
	f.mu.Lock()
	defer f.mu.Unlock()
	bs := s.book
	if bs == nil {
		return // no longer focused
	}
	var need bool
	if err != nil {
		// An update we cannot read is an update missed.
		bs.sync.Break()
		need = true
		f.health[0].h.Err = fmt.Sprintf("%s@orderbookupdate: %v", s.name, err)
	} else {
		need = bs.sync.Delta(env.TS, f.mBook.PrevTs, f.mBook.Asks, f.mBook.Bids)
	}
	bs.lastUpdate = now
	bs.version++
	s.mark(dBook, &f.dirty)
	if need {
		f.fetchSnapshotLocked(s)
	}
}

// snapshotTruncated: a pushed snapshot with this many levels on a side may
// have been cut at the topic's depth.
const snapshotTruncated = 100

// onBookPush handles a full book push (@orderbook): it is the snapshot of
// a book that needs one, and the proof of a live book at the same ts.
func (f *Feed) onBookPush(name []byte, env *stream.Envelope, now time.Time) {
	s := f.sym(name)
	if s == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	bs := s.book
	if bs == nil || (bs.sync.Live() && bs.sync.LastTS() != env.TS) {
		return // nothing to sync or to compare
	}
	if err := stream.DecodeBook(env.Data, s.scale.PriceDec, s.scale.QtyDec, &f.mBook); err != nil {
		f.health[0].h.Err = fmt.Sprintf("%s@orderbook: %v", s.name, err)
		f.hlthDirt = true
		return
	}
	d := &f.mBook
	truncated := len(d.Asks) >= snapshotTruncated || len(d.Bids) >= snapshotTruncated
	if bs.sync.Live() {
		if !bs.sync.Verify(env.TS, d.Asks, d.Bids, truncated) {
			f.logf("%s book differed from the venue's snapshot at ts %d: resync", s.name, env.TS)
			bs.version++
			s.mark(dBook, &f.dirty)
			f.fetchSnapshotLocked(s)
		}
		return
	}
	if bs.sync.Snapshot(env.TS, d.Asks, d.Bids, truncated) {
		f.fetchSnapshotLocked(s)
	}
	bs.lastUpdate = now
	bs.version++
	s.mark(dBook, &f.dirty)
}

func (f *Feed) onBBO(name, data []byte, ts int64) {
	s := f.sym(name)
	if s == nil {
		return
	}
	if err := stream.DecodeBBO(data, s.scale.PriceDec, s.scale.QtyDec, &f.mBBO); err != nil {
		f.frameError(0, s.name+"@bbo", err)
		return
	}
	b := BBO{Symbol: s.name, Scale: s.scale, Bid: f.mBBO.Bid, BidSize: f.mBBO.BidSize, Ask: f.mBBO.Ask, AskSize: f.mBBO.AskSize, TS: ts}
	f.mu.Lock()
	s.bbo = b
	s.mark(dBBO, &f.dirty)
	f.mu.Unlock()
	if o := f.cfg.Observer; o != nil {
		o.ObserveBBO(b)
	}
}

func (f *Feed) onTrade(name []byte, env *stream.Envelope) {
	s := f.sym(name)
	if s == nil {
		return
	}
	if err := stream.DecodeTrade(env.Data, s.scale.PriceDec, s.scale.QtyDec, &f.mTrade); err != nil {
		f.frameError(0, s.name+"@trade", err)
		return
	}
	t := Trade{Price: f.mTrade.Price, Qty: f.mTrade.Size, Side: Side(f.mTrade.Side), TS: env.TS}
	f.mu.Lock()
	if s.trades != nil {
		s.trades.push(t)
		s.mark(dTrades, &f.dirty)
	}
	f.mu.Unlock()
	if o := f.cfg.Observer; o != nil {
		o.ObserveTrade(s.name, s.scale, t)
	}
}

func (f *Feed) onTicker(data []byte, ts int64) {
	var t stream.Ticker
	if err := stream.DecodeTicker(data, &t); err != nil {
		f.frameError(0, "ticker", err)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.syms[t.Symbol]
	if s == nil {
		return
	}
	s.ticker = Ticker{Symbol: s.name, Open: t.Open, Close: t.Close, High: t.High, Low: t.Low, Volume: t.Volume, Amount: t.Amount, Count: t.Count, TS: ts}
	s.mark(dTicker, &f.dirty)
	if o := f.cfg.Observer; o != nil {
		o.ObserveTicker(s.ticker)
	}
}

func (f *Feed) onFutures(kind string, data []byte, ts int64) {
	var v stream.FuturesValue
	if err := stream.DecodeFuturesValue(data, &v); err != nil {
		f.frameError(0, kind, err)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.syms[v.Symbol]
	if s == nil {
		return
	}
	fu := &s.futures
	fu.Symbol = s.name
	switch kind {
	case "markprice":
		fu.MarkPrice = v.Price
		if o := f.cfg.Observer; o != nil {
			o.ObserveMark(s.name, v.Price, ts)
		}
	case "indexprice":
		fu.IndexPrice = v.Price
	case "estfundingrate":
		fu.EstFundingRate = v.FundingRate
	case "openinterest":
		fu.OpenInterest = v.OpenInterest
	}
	fu.TS = ts
	s.mark(dFutures, &f.dirty)
}

func (f *Feed) onKline(data []byte) {
	var k stream.Kline
	if err := stream.DecodeKline(data, &k); err != nil {
		f.frameError(0, "kline", err)
		return
	}
	c := Candle{Start: k.StartTime, End: k.EndTime, Open: k.Open, High: k.High, Low: k.Low, Close: k.Close, Volume: k.Volume, Amount: k.Amount}
	f.mu.Lock()
	defer f.mu.Unlock()
	cs := f.candles[CandleKey(k.Symbol, k.Type)]
	if cs == nil {
		return
	}
	if !cs.loaded {
		cs.early = append(cs.early, c)
		return
	}
	cs.merge(c, f.cfg.CandleLimit)
	f.markCandles(cs)
}

// onMarketConnect runs after every market (re)connect: deltas may have
// been missed, so every book starts over from a snapshot.
func (f *Feed) onMarketConnect() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.syms {
		if s.book == nil {
			continue
		}
		s.book.sync.Reset()
		s.book.gen++
		s.book.inflight = false
		s.book.version++
		s.mark(dBook, &f.dirty)
		f.fetchSnapshotLocked(s)
	}
}

// fetchSnapshotLocked starts a REST snapshot of s's book unless one is
// already on its way. It retries with backoff until the book is live, the
// symbol loses focus or the feed stops.
func (f *Feed) fetchSnapshotLocked(s *symState) {
	bs := s.book
	if bs == nil || bs.inflight {
		return
	}
	bs.inflight = true
	gen := bs.gen
	ctx := f.ctx
	go func() {
		// The venue's next @orderbook push usually comes first and is
		// consistent with the delta stream by construction; REST is the
		// fallback when it does not.
		if w := f.cfg.SnapshotWait; w > 0 {
			if !f.sleep(ctx, w) {
				return
			}
			f.mu.Lock()
			done := s.book != bs || bs.gen != gen || bs.sync.Live()
			if done && s.book == bs && bs.gen == gen {
				bs.inflight = false
			}
			f.mu.Unlock()
			if done {
				return
			}
		}
		for attempt := 0; ; attempt++ {
			ob, err := f.rest.OrderBook(ctx, s.name, f.cfg.SnapshotDepth)
			var asks, bids []book.Level
			if err == nil {
				asks, bids, err = bookLevels(ob, s.scale)
			}
			f.mu.Lock()
			if s.book != bs || bs.gen != gen || ctx.Err() != nil {
				f.mu.Unlock()
				return
			}
			if err != nil {
				f.health[0].h.Err = fmt.Sprintf("%s snapshot: %v", s.name, err)
				f.hlthDirt = true
				f.logf("%s snapshot failed: %v", s.name, err)
				f.mu.Unlock()
				if !f.sleep(ctx, f.cfg.Backoff.Delay(attempt, 0.5)) {
					return
				}
				continue
			}
			truncated := len(ob.Asks) >= f.cfg.SnapshotDepth || len(ob.Bids) >= f.cfg.SnapshotDepth
			need := bs.sync.Snapshot(ob.Timestamp.UnixMilli(), asks, bids, truncated)
			bs.lastUpdate = f.cfg.Clock()
			bs.version++
			s.mark(dBook, &f.dirty)
			if !need {
				bs.inflight = false
				f.mu.Unlock()
				return
			}
			f.mu.Unlock()
			// The snapshot was older than the buffered deltas: try again
			// shortly, after the venue's next push.
			if !f.sleep(ctx, 100*time.Millisecond) {
				return
			}
		}
	}()
}

// bookLevels converts a REST snapshot to fixed point.
func bookLevels(ob venue.OrderBook, sc Scale) (asks, bids []book.Level, err error) {
	conv := func(in []venue.BookLevel) ([]book.Level, error) {
		out := make([]book.Level, 0, len(in))
		for _, l := range in {
			p, ok1 := fixed.FromDecimal(l.Price, sc.PriceDec)
			q, ok2 := fixed.FromDecimal(l.Quantity, sc.QtyDec)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("level %s x %s does not fit the symbol's ticks", l.Price, l.Quantity)
			}
			out = append(out, book.Level{Price: p, Qty: q})
		}
		return out, nil
	}
	if asks, err = conv(ob.Asks); err != nil {
		return nil, nil, err
	}
	bids, err = conv(ob.Bids)
	return asks, bids, err
}

// restKlineType maps a stream interval to the REST kline type.
func restKlineType(interval string) string {
	if interval == "1M" {
		return "1mon"
	}
	return interval
}

// startCandlesLocked creates the series and fetches its history.
func (f *Feed) startCandlesLocked(symbol, interval string) {
	cs := &candleSeries{symbol: symbol, interval: interval}
	f.candles[CandleKey(symbol, interval)] = cs
	f.markCandles(cs)
	ctx := f.ctx
	go func() {
		for attempt := 0; ; attempt++ {
			rows, err := f.rest.Kline(ctx, venue.KlineRequest{Symbol: symbol, Type: restKlineType(interval), Limit: f.cfg.CandleLimit})
			f.mu.Lock()
			if f.candles[CandleKey(symbol, interval)] != cs || ctx.Err() != nil {
				f.mu.Unlock()
				return
			}
			if err != nil {
				f.health[0].h.Err = fmt.Sprintf("%s klines: %v", symbol, err)
				f.hlthDirt = true
				f.mu.Unlock()
				if attempt >= 5 || !f.sleep(ctx, f.cfg.Backoff.Delay(attempt, 0.5)) {
					return
				}
				continue
			}
			sort.Slice(rows, func(i, j int) bool { return rows[i].StartTimestamp.Before(rows[j].StartTimestamp.Time) })
			hist := make([]Candle, 0, len(rows)+len(cs.early))
			for _, k := range rows {
				hist = append(hist, Candle{Start: k.StartTimestamp.UnixMilli(), End: k.EndTimestamp.UnixMilli(),
					Open: k.Open, High: k.High, Low: k.Low, Close: k.Close, Volume: k.Volume, Amount: k.Amount})
			}
			cs.rows = nil
			for _, c := range hist {
				cs.merge(c, f.cfg.CandleLimit)
			}
			for _, c := range cs.early {
				cs.merge(c, f.cfg.CandleLimit)
			}
			cs.early, cs.loaded = nil, true
			f.markCandles(cs)
			f.mu.Unlock()
			return
		}
	}()
}

// prefillTrades loads the recent public trades so the tape is not empty.
func (f *Feed) prefillTrades(symbol string) {
	rows, err := f.rest.MarketTrades(f.ctx, symbol, 100)
	if err != nil {
		f.restError(0, symbol+" recent trades", err)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.syms[symbol]
	if s == nil || s.trades == nil || s.trades.n > 0 {
		return // live trades already arrived: they are newer
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].ExecutedTimestamp.Before(rows[j].ExecutedTimestamp.Time) })
	for _, r := range rows {
		p, ok1 := fixed.FromDecimal(r.ExecutedPrice, s.scale.PriceDec)
		q, ok2 := fixed.FromDecimal(r.ExecutedQuantity, s.scale.QtyDec)
		if !ok1 || !ok2 {
			continue
		}
		side := Buy
		if strings.EqualFold(string(r.Side), "SELL") {
			side = Sell
		}
		s.trades.push(Trade{Price: p, Qty: q, Side: side, TS: r.ExecutedTimestamp.UnixMilli()})
	}
	s.mark(dTrades, &f.dirty)
}

// refreshFutures reads the REST futures info (next funding time, last
// funding rate; the streams carry the rest).
func (f *Feed) refreshFutures(symbol string) {
	fi, err := f.rest.FuturesInfo(f.ctx, symbol)
	if err != nil {
		f.restError(0, symbol+" futures info", err)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.syms[symbol]
	if s == nil {
		return
	}
	fu := &s.futures
	fu.Symbol = symbol
	fu.LastFundingRate = fi.LastFundingRate
	fu.NextFunding = fi.NextFundingTime.Time
	if fu.MarkPrice.IsZero() {
		fu.MarkPrice = fi.MarkPrice
	}
	if fu.IndexPrice.IsZero() {
		fu.IndexPrice = fi.IndexPrice
	}
	if fu.EstFundingRate.IsZero() {
		fu.EstFundingRate = fi.EstFundingRate
	}
	if fu.OpenInterest.IsZero() {
		fu.OpenInterest = fi.OpenInterest
	}
	s.mark(dFutures, &f.dirty)
}

// bookSyncState is what the UI is told about a book.
func (f *Feed) bookSyncState(bs *bookState, now time.Time) SyncState {
	if !bs.sync.Live() {
		if bs.sync.EverLive() || bs.sync.Resyncs > 0 {
			return Resyncing
		}
		return Syncing
	}
	if st := f.health[0].h.State; st != Connected || now.Sub(bs.lastUpdate) > f.cfg.BookStaleAfter {
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
