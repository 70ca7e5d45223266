package exchange

import (
	"github.com/shopspring/decimal"

	"tradedeck/sim/engine"
	"tradedeck/venue"
)

// OrderByID returns an order of a with its trades.
func (e *Exchange) OrderByID(a *Account, id int64) (Order, []Trade, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	o, ok := e.orders[id]
	if !ok || o.acc != a {
		return Order{}, nil, errf(venue.CodeResourceNotFound, "order %d not found", id)
	}
	return o.Order, e.orderTrades(a, id), nil
}

// OrderByClientID returns the latest order of a with that client order id.
func (e *Exchange) OrderByClientID(a *Account, cid int64) (Order, []Trade, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(a.orders) - 1; i >= 0; i-- {
		if o := a.orders[i]; o.ClientOrderID == cid {
			return o.Order, e.orderTrades(a, o.ID), nil
		}
	}
	return Order{}, nil, errf(venue.CodeResourceNotFound, "no order with client_order_id %d", cid)
}

// OrderTrades returns the trades of one order of a.
func (e *Exchange) OrderTrades(a *Account, id int64) ([]Trade, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if o, ok := e.orders[id]; !ok || o.acc != a {
		return nil, errf(venue.CodeResourceNotFound, "order %d not found", id)
	}
	return e.orderTrades(a, id), nil
}

func (e *Exchange) orderTrades(a *Account, id int64) []Trade {
	var out []Trade
	for _, t := range a.trades {
		if t.OrderID == id {
			out = append(out, *t)
		}
	}
	return out
}

// TradeByID returns one trade of a.
func (e *Exchange) TradeByID(a *Account, id int64) (Trade, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range a.trades {
		if t.ID == id {
			return *t, nil
		}
	}
	return Trade{}, errf(venue.CodeResourceNotFound, "trade %d not found", id)
}

// OrderFilter selects orders; zero fields match everything. Status may be
// a single status or the groups INCOMPLETE and COMPLETED.
type OrderFilter struct {
	Symbol     string
	Side       Side
	Type       OrderType // LIQUIDATE: the orders closing an account below its maintenance margin
	Tag        string
	Status     string
	Start, End int64
}

func (f *OrderFilter) match(o *orderState) bool {
	if f.Symbol != "" && o.Symbol != f.Symbol || f.Side != "" && o.Side != f.Side ||
		f.Type != "" && o.Type != f.Type || f.Tag != "" && o.Tag != f.Tag || !inRange(o.CreatedMs, f.Start, f.End) {
		return false
	}
	switch f.Status {
	case "":
		return true
	case "INCOMPLETE":
		return o.Status.Open()
	case "COMPLETED":
		return o.Status == StatusCancelled || o.Status == StatusFilled
	}
	return string(o.Status) == f.Status
}

// Orders lists a's matching orders, newest first.
func (e *Exchange) Orders(a *Account, f OrderFilter) []Order {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Order
	for i := len(a.orders) - 1; i >= 0; i-- {
		if o := a.orders[i]; f.match(o) {
			out = append(out, o.Order)
		}
	}
	return out
}

// OpenOrders lists a's open orders, oldest first (internal accounts too).
func (e *Exchange) OpenOrders(a *Account) []Order {
	e.mu.Lock()
	defer e.mu.Unlock()
	ids := make([]int64, 0, len(a.open))
	for id := range a.open {
		ids = append(ids, id)
	}
	sortInt64(ids)
	out := make([]Order, len(ids))
	for i, id := range ids {
		out[i] = a.open[id].Order
	}
	return out
}

// Trades lists a's trades matching symbol and tag within [start, end], newest first.
func (e *Exchange) Trades(a *Account, symbol, tag string, start, end int64) []Trade {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Trade
	for i := len(a.trades) - 1; i >= 0; i-- {
		t := a.trades[i]
		if (symbol == "" || t.Symbol == symbol) && (tag == "" || t.Tag == tag) && inRange(t.TimeMs, start, end) {
			out = append(out, *t)
		}
	}
	return out
}

// Rule is a symbol rule as the venue publishes it.
type Rule struct {
	SymbolSpec
	PriceDecimals int
	QtyDecimals   int
	CreatedMs     int64
}

// Rules lists every symbol rule, sorted by symbol.
func (e *Exchange) Rules() []Rule {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Rule, len(e.marketList))
	for i, m := range e.marketList {
		out[i] = m.rule()
	}
	return out
}

// RuleOf is one symbol's rule.
func (e *Exchange) RuleOf(symbol string) (Rule, *Error) {
	return ofMarket(e, e.market, symbol, (*market).rule)
}

// ofMarket is f of symbol's market, read under the lock; find is e.market,
// or e.perpMarket for what only perpetuals have.
func ofMarket[T any](e *Exchange, find func(string) (*market, *Error), symbol string, f func(*market) T) (T, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := find(symbol)
	if err != nil {
		var zero T
		return zero, err
	}
	return f(m), nil
}

// ofPerps is f of every perpetual market in listing order, read under the
// lock.
func ofPerps[T any](e *Exchange, f func(*market) T) []T {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []T
	for _, m := range e.marketList {
		if m.perp() {
			out = append(out, f(m))
		}
	}
	return out
}

func (m *market) rule() Rule {
	return Rule{SymbolSpec: m.spec, PriceDecimals: m.pd, QtyDecimals: m.qd, CreatedMs: m.createdSec}
}

// Symbols lists the symbol names, sorted.
func (e *Exchange) Symbols() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]string, len(e.marketList))
	for i, m := range e.marketList {
		out[i] = m.spec.Symbol
	}
	return out
}

// Level is one price level of a book snapshot.
type Level struct {
	Price    decimal.Decimal
	Quantity decimal.Decimal
}

// Book is a snapshot: asks ascending, bids descending, at venue time Ts (ms).
type Book struct {
	Symbol string
	Asks   []Level
	Bids   []Level
	Ts     int64
}

// Depth returns up to n levels per side (n <= 0: all).
func (e *Exchange) Depth(symbol string, n int) (Book, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.market(symbol)
	if err != nil {
		return Book{}, err
	}
	conv := func(lv []FixedLevel) []Level {
		out := make([]Level, len(lv))
		for i, l := range lv {
			out[i] = Level{Price: m.price(l.Price), Quantity: m.qty(l.Qty)}
		}
		return out
	}
	asks := m.book.Depth(engine.Sell, n, nil)
	bids := m.book.Depth(engine.Buy, n, nil)
	return Book{Symbol: symbol, Asks: conv(asks), Bids: conv(bids), Ts: m.ts}, nil
}

// DepthFixed appends up to n levels per side as fixed-point integers in
// the symbol's scales (see Rule's decimals), for hot paths that stream books.
func (e *Exchange) DepthFixed(symbol string, n int, asks, bids []FixedLevel) (a, b []FixedLevel, ts int64, err *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.market(symbol)
	if err != nil {
		return asks, bids, 0, err
	}
	return m.book.Depth(engine.Sell, n, asks), m.book.Depth(engine.Buy, n, bids), m.ts, nil
}

// BBO is the best bid and ask (zero with ok false when a side is empty).
type BBO struct {
	Bid, BidSize, Ask, AskSize decimal.Decimal
	HasBid, HasAsk             bool
	Ts                         int64
}

// BestBidAsk returns the top of a book.
func (e *Exchange) BestBidAsk(symbol string) (BBO, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.market(symbol)
	if err != nil {
		return BBO{}, err
	}
	var out BBO
	if lv, ok := m.book.BestBid(); ok {
		out.Bid, out.BidSize, out.HasBid = m.price(lv.Price), m.qty(lv.Qty), true
	}
	if lv, ok := m.book.BestAsk(); ok {
		out.Ask, out.AskSize, out.HasAsk = m.price(lv.Price), m.qty(lv.Qty), true
	}
	out.Ts = m.ts
	return out, nil
}

// LastPrice is the last trade price (the initial price before any trade).
func (e *Exchange) LastPrice(symbol string) (decimal.Decimal, *Error) {
	return ofMarket(e, e.market, symbol, func(m *market) decimal.Decimal { return m.price(m.last) })
}

// MarketTrades returns up to limit recent public trades, newest first.
func (e *Exchange) MarketTrades(symbol string, limit int) ([]PublicTrade, *Error) {
	return ofMarket(e, e.market, symbol, func(m *market) []PublicTrade {
		var out []PublicTrade
		for i := len(m.trades) - 1; i >= 0 && len(out) < limit; i-- {
			out = append(out, m.trades[i])
		}
		return out
	})
}

// FuturesInfo is a perpetual's market summary.
type FuturesInfo struct {
	Symbol          string
	IndexPrice      decimal.Decimal
	MarkPrice       decimal.Decimal
	EstFundingRate  decimal.Decimal
	LastFundingRate decimal.Decimal
	NextFundingTime int64
	OpenInterest    decimal.Decimal
	Stats           Stats24h
}

// FuturesInfos lists every perpetual.
func (e *Exchange) FuturesInfos() []FuturesInfo { return ofPerps(e, e.futuresInfo) }

// FuturesInfoOf is one perpetual's summary.
func (e *Exchange) FuturesInfoOf(symbol string) (FuturesInfo, *Error) {
	return ofMarket(e, e.perpMarket, symbol, e.futuresInfo)
}

func (e *Exchange) futuresInfo(m *market) FuturesInfo {
	oi := decimal.Zero
	for _, a := range e.accounts {
		if p, ok := a.positions[m.spec.Symbol]; ok && p.qty.IsPositive() {
			oi = oi.Add(p.qty)
		}
	}
	return FuturesInfo{
		Symbol: m.spec.Symbol, IndexPrice: m.indexPrice(), MarkPrice: m.markPrice(),
		EstFundingRate: m.estFundingRate(), LastFundingRate: m.lastRate, NextFundingTime: e.fundingNext,
		OpenInterest: oi, Stats: m.stats24h(e.nowMs()),
	}
}

// Ticker24h returns the 24h statistics of a symbol.
func (e *Exchange) Ticker24h(symbol string) (Stats24h, *Error) {
	return ofMarket(e, e.market, symbol, func(m *market) Stats24h { return m.stats24h(e.nowMs()) })
}
