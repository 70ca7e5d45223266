package feed

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/venue/stream"
)

// admit is what every frame of stream i (mStream, pStream), read at now,
// goes through before its topic: a malformed frame or a reply is dealt
// with here (false); a push samples the stream's health (true).
func (hs *healthState) admit(i int, now time.Time, env *stream.Envelope, perr error) bool {
	if perr != nil {
		hs.frameError(i, "malformed frame", perr)
		return false
	}
	if !env.IsPush() {
		hs.reply(i, env)
		return false
	}
	hs.sample(i, now, env.TS)
	return true
}

// elemsErr reports an array push cut short by a malformed element (the
// elements before it were applied) as a malformed frame.
func (m *marketState) elemsErr(err error) {
	if err != nil {
		m.c.health.frameError(mStream, "malformed frame", err)
	}
}

// onFrame handles one market stream frame (on the reader goroutine).
func (m *marketState) onFrame(frame []byte, env *stream.Envelope, perr error) {
	now := m.c.cfg.Clock()
	if !m.c.health.admit(mStream, now, env, perr) {
		return
	}
	symb, kind := stream.SplitTopic(env.Topic)
	switch string(kind) {
	case "orderbookupdate":
		m.onBookUpdate(symb, env, now)
	case "orderbook", "orderbook100":
		m.onBookPush(symb, env, now)
	case "bbo":
		m.onBBO(symb, env.Data, env.TS)
	case "bbos":
		m.elemsErr(stream.EachElem(env.Data, func(el []byte) error { m.onBBO(stream.SymbolOf(el), el, env.TS); return nil }))
	case "trade":
		m.onTrade(symb, env)
	case "ticker":
		m.onTicker(env.Data, env.TS)
	case "tickers":
		m.elemsErr(stream.EachElem(env.Data, func(el []byte) error { m.onTicker(el, env.TS); return nil }))
	case "markprice", "indexprice", "estfundingrate", "openinterest":
		m.onFutures(string(kind), env.Data, env.TS)
	case "markprices":
		m.elemsErr(stream.EachElem(env.Data, func(el []byte) error { m.onFutures("markprice", el, env.TS); return nil }))
	default:
		if len(kind) > 6 && string(kind[:6]) == "kline_" {
			m.onKline(env.Data)
		}
	}
}

// sym returns the state of a symbol named by frame bytes (no allocation).
// The map is written only by setRules, before the streams start, so the
// reader goroutines may look it up without the lock; the symState fields
// they then touch are guarded by m.mu as usual.
func (m *marketState) sym(name []byte) *symState { return m.syms[string(name)] }

func (m *marketState) onBookUpdate(name []byte, env *stream.Envelope, now time.Time) {
	s := m.sym(name)
	if s == nil {
		return
	}
	err := stream.DecodeBook(env.Data, s.scale.PriceDec, s.scale.QtyDec, &m.mBook)
	m.mu.Lock()
	defer m.mu.Unlock()
	bs := s.book
	if bs == nil {
		return // no longer focused
	}
	var need bool
	if err != nil {
		// An update we cannot read is an update missed.
		bs.sync.Break()
		need = true
		m.c.health.setErr(mStream, fmt.Sprintf("%s@orderbookupdate: %v", s.name, err))
	} else {
		need = bs.sync.Delta(env.TS, m.mBook.PrevTs, m.mBook.Asks, m.mBook.Bids)
	}
	if err == nil && !need && len(m.mBook.Asks) == 0 && len(m.mBook.Bids) == 0 {
		m.quietDeltaLocked(s, now)
		return
	}
	bs.lastUpdate = now
	bs.version++
	m.markSym(s, dBook)
	if need {
		m.fetchSnapshotLocked(s)
	}
}

// quietDeltaLocked takes an empty delta of a live book (the venue's
// every-200-ms push when no level moved): the book is as fresh as its
// ts, and unchanged, so it is sent only when that freshness changes its
// state (a stale book live again). unchanged.go says why.
func (m *marketState) quietDeltaLocked(s *symState, now time.Time) {
	bs := s.book
	bs.lastUpdate = now
	if m.bookSyncState(bs, now) != bs.shown {
		bs.version++
		m.markSym(s, dBook)
	}
}

// snapshotTruncated: a pushed snapshot with this many levels on a side may
// have been cut at the topic's depth.
const snapshotTruncated = 100

// onBookPush handles a full book push (@orderbook): it is the snapshot of
// a book that needs one, and the proof of a live book at the same ts.
func (m *marketState) onBookPush(name []byte, env *stream.Envelope, now time.Time) {
	s := m.sym(name)
	if s == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	bs := s.book
	if bs == nil || (bs.sync.Live() && bs.sync.LastTS() != env.TS) {
		return // nothing to sync or to compare
	}
	if err := stream.DecodeBook(env.Data, s.scale.PriceDec, s.scale.QtyDec, &m.mBook); err != nil {
		m.c.health.setErr(mStream, fmt.Sprintf("%s@orderbook: %v", s.name, err))
		return
	}
	d := &m.mBook
	truncated := len(d.Asks) >= snapshotTruncated || len(d.Bids) >= snapshotTruncated
	if bs.sync.Live() {
		if !bs.sync.Verify(env.TS, d.Asks, d.Bids, truncated) {
			m.c.logf("%s book differed from the venue's snapshot at ts %d: resync", s.name, env.TS)
			bs.version++
			m.markSym(s, dBook)
			m.fetchSnapshotLocked(s)
		}
		return
	}
	if bs.sync.Snapshot(env.TS, d.Asks, d.Bids, truncated) {
		m.fetchSnapshotLocked(s)
	}
	bs.lastUpdate = now
	bs.version++
	m.markSym(s, dBook)
}

func (m *marketState) onBBO(name, data []byte, ts int64) {
	s := m.sym(name)
	if s == nil {
		return
	}
	if err := stream.DecodeBBO(data, s.scale.PriceDec, s.scale.QtyDec, &m.mBBO); err != nil {
		m.c.health.frameError(mStream, s.name+"@bbo", err)
		return
	}
	b := BBO{Symbol: s.name, Scale: s.scale, Bid: m.mBBO.Bid, BidSize: m.mBBO.BidSize, Ask: m.mBBO.Ask, AskSize: m.mBBO.AskSize, TS: ts}
	m.mu.Lock()
	if !s.showBBO {
		m.mu.Unlock()
		return // in the all-symbol topic, but nobody shows it
	}
	if !s.bbo.sameQuote(b) {
		m.markSym(s, dBBO)
	}
	s.bbo = b
	m.mu.Unlock()
	if m.c.obs != nil {
		m.c.obs.ObserveBBO(b)
	}
}

func (m *marketState) onTrade(name []byte, env *stream.Envelope) {
	s := m.sym(name)
	if s == nil {
		return
	}
	if err := stream.DecodeTrade(env.Data, s.scale.PriceDec, s.scale.QtyDec, &m.mTrade); err != nil {
		m.c.health.frameError(mStream, s.name+"@trade", err)
		return
	}
	t := Trade{Price: m.mTrade.Price, Qty: m.mTrade.Size, Side: Side(m.mTrade.Side), TS: env.TS}
	m.mu.Lock()
	if s.trades != nil {
		s.trades.push(t)
		m.markSym(s, dTrades)
	}
	m.mu.Unlock()
	if m.c.obs != nil {
		m.c.obs.ObserveTrade(s.name, s.scale, t)
	}
}

func (m *marketState) onTicker(data []byte, ts int64) {
	var t stream.Ticker
	if err := stream.DecodeTicker(data, &t); err != nil {
		m.c.health.frameError(mStream, "ticker", err)
		return
	}
	s := m.syms[t.Symbol]
	if s == nil {
		return
	}
	tk := Ticker{Symbol: s.name, Open: t.Open, Close: t.Close, High: t.High, Low: t.Low, Volume: t.Volume, Amount: t.Amount, Count: t.Count, TS: ts}
	m.mu.Lock()
	if !s.ticker.sameStats(tk) {
		m.markSym(s, dTicker)
	}
	s.ticker = tk
	m.mu.Unlock()
	if m.c.obs != nil {
		m.c.obs.ObserveTicker(tk)
	}
}

func (m *marketState) onFutures(kind string, data []byte, ts int64) {
	var v stream.FuturesValue
	if err := stream.DecodeFuturesValue(data, &v); err != nil {
		m.c.health.frameError(mStream, kind, err)
		return
	}
	s := m.syms[v.Symbol]
	if s == nil {
		return
	}
	m.mu.Lock()
	fu := &s.futures
	var field *decimal.Decimal
	val := v.Price
	switch kind {
	case "markprice":
		field = &fu.MarkPrice
	case "indexprice":
		field = &fu.IndexPrice
	case "estfundingrate":
		field, val = &fu.EstFundingRate, v.FundingRate
	case "openinterest":
		field, val = &fu.OpenInterest, v.OpenInterest
	}
	if fu.Symbol != s.name || field != nil && !sameDec(*field, val) {
		m.markSym(s, dFutures)
	}
	fu.Symbol = s.name
	if field != nil {
		*field = val
	}
	fu.TS = ts
	m.mu.Unlock()
	if kind == "markprice" && m.c.obs != nil {
		m.c.obs.ObserveMark(s.name, v.Price, ts)
	}
}

func (m *marketState) onKline(data []byte) {
	var k stream.Kline
	if err := stream.DecodeKline(data, &k); err != nil {
		m.c.health.frameError(mStream, "kline", err)
		return
	}
	c := Candle{Start: k.StartTime, End: k.EndTime, Open: k.Open, High: k.High, Low: k.Low, Close: k.Close, Volume: k.Volume, Amount: k.Amount}
	m.mu.Lock()
	defer m.mu.Unlock()
	cs := m.candles[CandleKey(k.Symbol, k.Type)]
	if cs == nil {
		return
	}
	if !cs.loaded {
		cs.early = append(cs.early, c)
		return
	}
	if cs.merge(c, m.c.cfg.CandleLimit) {
		m.markCandles(cs)
	}
}

// onConnect runs after every market (re)connect: deltas may have
// been missed, so every book starts over from a snapshot.
func (m *marketState) onConnect() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.syms {
		if s.book == nil {
			continue
		}
		s.book.sync.Reset()
		s.book.gen++
		s.book.inflight = false
		s.book.version++
		m.markSym(s, dBook)
		m.fetchSnapshotLocked(s)
	}
}
