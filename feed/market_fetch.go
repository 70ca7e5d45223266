package feed

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"tradedeck/feed/book"
	"tradedeck/fixed"
	"tradedeck/venue"
)

// fetchSnapshotLocked starts a REST snapshot of s's book unless one is
// already on its way. It retries with backoff until the book is live, the
// symbol loses focus or the feed stops.
func (m *marketState) fetchSnapshotLocked(s *symState) {
	bs := s.book
	if bs == nil || bs.inflight {
		return
	}
	bs.inflight = true
	gen := bs.gen
	ctx := m.c.runCtx()
	go func() {
		// The venue's next @orderbook push usually comes first and is
		// consistent with the delta stream by construction; REST is the
		// fallback when it does not.
		if w := m.c.cfg.SnapshotWait; w > 0 {
			if !m.c.sleep(ctx, w) {
				return
			}
			m.mu.Lock()
			done := s.book != bs || bs.gen != gen || bs.sync.Live()
			if done && s.book == bs && bs.gen == gen {
				bs.inflight = false
			}
			m.mu.Unlock()
			if done {
				return
			}
		}
		for attempt := 0; ; attempt++ {
			ob, err := m.c.rest.OrderBook(ctx, s.name, m.c.cfg.SnapshotDepth)
			var asks, bids []book.Level
			if err == nil {
				asks, bids, err = bookLevels(ob, s.scale)
			}
			m.mu.Lock()
			if s.book != bs || bs.gen != gen || ctx.Err() != nil {
				m.mu.Unlock()
				return
			}
			if err != nil {
				m.c.health.setErr(mStream, fmt.Sprintf("%s snapshot: %v", s.name, err))
				m.c.logf("%s snapshot failed: %v", s.name, err)
				m.mu.Unlock()
				if !m.c.sleep(ctx, m.c.cfg.Backoff.Delay(attempt, 0.5)) {
					return
				}
				continue
			}
			truncated := len(ob.Asks) >= m.c.cfg.SnapshotDepth || len(ob.Bids) >= m.c.cfg.SnapshotDepth
			need := bs.sync.Snapshot(ob.Timestamp.UnixMilli(), asks, bids, truncated)
			bs.lastUpdate = m.c.cfg.Clock()
			bs.version++
			m.markSym(s, dBook)
			if !need {
				bs.inflight = false
				m.mu.Unlock()
				return
			}
			m.mu.Unlock()
			// The snapshot was older than the buffered deltas: try again
			// shortly, after the venue's next push.
			if !m.c.sleep(ctx, 100*time.Millisecond) {
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
func (m *marketState) startCandlesLocked(symbol, interval string) {
	cs := &candleSeries{symbol: symbol, interval: interval}
	m.candles[CandleKey(symbol, interval)] = cs
	m.markCandles(cs)
	ctx := m.c.runCtx()
	go func() {
		for attempt := 0; ; attempt++ {
			rows, err := m.c.rest.Kline(ctx, venue.KlineRequest{Symbol: symbol, Type: restKlineType(interval), Limit: m.c.cfg.CandleLimit})
			m.mu.Lock()
			if m.candles[CandleKey(symbol, interval)] != cs || ctx.Err() != nil {
				m.mu.Unlock()
				return
			}
			if err != nil {
				m.c.health.setErr(mStream, fmt.Sprintf("%s klines: %v", symbol, err))
				m.mu.Unlock()
				if attempt >= 5 || !m.c.sleep(ctx, m.c.cfg.Backoff.Delay(attempt, 0.5)) {
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
			cs.rows = make([]Candle, 0, min(len(hist)+len(cs.early), m.c.cfg.CandleLimit))
			for _, c := range hist {
				cs.merge(c, m.c.cfg.CandleLimit)
			}
			for _, c := range cs.early {
				cs.merge(c, m.c.cfg.CandleLimit)
			}
			cs.early, cs.loaded = nil, true
			m.markCandles(cs)
			m.mu.Unlock()
			return
		}
	}()
}

// prefillTrades loads the recent public trades so the tape is not empty.
func (m *marketState) prefillTrades(symbol string) {
	rows, err := m.c.rest.MarketTrades(m.c.runCtx(), symbol, 100)
	if err != nil {
		m.c.health.restError(mStream, symbol+" recent trades", err)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.syms[symbol]
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
	m.markSym(s, dTrades)
}

// refreshFutures reads the REST futures info (next funding time, last
// funding rate; the streams carry the rest).
func (m *marketState) refreshFutures(symbol string) {
	fi, err := m.c.rest.FuturesInfo(m.c.runCtx(), symbol)
	if err != nil {
		m.c.health.restError(mStream, symbol+" futures info", err)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.syms[symbol]
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
	m.markSym(s, dFutures)
}
