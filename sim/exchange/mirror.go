package exchange

import (
	"github.com/shopspring/decimal"

	"tradedeck/sim/engine"
	"tradedeck/venue"
)

// Hooks for a venue that mirrors another one (sim/mirror): trades printed
// upstream go into the public history, and they fill resting user orders
// once their queue has passed.

// PrintTrade records a trade printed on another venue in the public
// history (trade tape, candles, last price) and on the trade stream. It
// moves no balance: nobody here took part.
func (e *Exchange) PrintTrade(symbol string, takerSide Side, price, qty decimal.Decimal) *Error {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.market(symbol)
	if err != nil {
		return err
	}
	priceFx, okP := toFixed(price, m.pd)
	qtyFx, okQ := toFixed(qty, m.qd)
	if !okP || !okQ || priceFx <= 0 || qtyFx <= 0 {
		return errf(venue.CodeInvalidParam, "trade %s @ %s does not fit %s's ticks", qty, price, symbol)
	}
	now := e.nowMs()
	m.last = priceFx
	t := PublicTrade{Symbol: symbol, Price: m.price(priceFx), Size: m.qty(qtyFx), Side: takerSide, Timestamp: now}
	m.recordTrade(t, priceFx, qtyFx)
	e.publish(TradeEvent{t})
	e.marketDirty = true
	return nil
}

// FillResting executes up to qty of a user's resting order at the order's
// price against counterparty (an internal account standing for the other
// venue's traders) and returns the quantity executed. The order keeps its
// place on the book for what is left.
func (e *Exchange) FillResting(counterparty *Account, orderID int64, qty decimal.Decimal) (decimal.Decimal, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	o, ok := e.orders[orderID]
	if !ok || !o.Status.Open() || o.acc.internal {
		return decimal.Zero, errf(venue.CodeResourceNotFound, "order %d is not a resting user order", orderID)
	}
	m := o.m
	qFx, _ := toFixed(qty.Truncate(int32(m.qd)), m.qd)
	f, ok := m.book.Take(engine.OrderID(orderID), qFx)
	if !ok {
		return decimal.Zero, errf(venue.CodeResourceNotFound, "order %d is not on the book", orderID)
	}
	taker := &orderState{acc: counterparty, m: m}
	taker.ID, taker.Symbol, taker.Side, taker.Type = e.nextOrderID, o.Symbol, oppositeSide(o.Side), IOC
	taker.Status, taker.FeeAsset = StatusNew, e.feeAsset(m, taker.Side)
	e.nextOrderID++
	f.TakerID, f.TakerOwner = engine.OrderID(taker.ID), counterparty.idx
	touched := map[*Account]map[string]bool{}
	e.settleFill(taker, o, f, true, touched)
	e.finish(taker, StatusFilled, "")
	e.announceTouched(touched)
	e.noteLevel(m, engineSide(o.Side), f.Price)
	e.touch(m)
	e.publish(BookChanged{Symbol: m.spec.Symbol, Timestamp: m.ts})
	return m.qty(f.Qty), nil
}

func oppositeSide(s Side) Side {
	if s == Buy {
		return Sell
	}
	return Buy
}

// RestingUserOrders lists the open orders of every user account, oldest first.
func (e *Exchange) RestingUserOrders() []Order {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Order
	for _, a := range e.accounts {
		if a.internal {
			continue
		}
		for _, o := range a.orders {
			if o.Status.Open() {
				out = append(out, o.Order)
			}
		}
	}
	return out
}

// RestLevel rests an internal order standing for a level of the other
// venue's book: no filters but the tick grid (the other venue's levels
// can be any size), never taking. It fails if it would cross.
func (e *Exchange) RestLevel(maker *Account, symbol string, side Side, price, qty decimal.Decimal) (int64, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.market(symbol)
	if err != nil {
		return 0, err
	}
	pFx, okP := toFixed(price, m.pd)
	qFx, okQ := toFixed(qty, m.qd)
	if !okP || !okQ || pFx <= 0 || qFx <= 0 {
		return 0, errf(venue.CodeInvalidParam, "level %s @ %s does not fit %s's ticks", qty, price, symbol)
	}
	o := &orderState{acc: maker, m: m, priceFx: pFx, qtyFx: qFx}
	o.Symbol, o.Side, o.Type, o.Tag, o.ApplicationID = symbol, side, PostOnly, "mirror", maker.appID
	o.Price, o.HasPrice, o.Quantity, o.HasQuantity, o.Visible = m.price(pFx), true, m.qty(qFx), true, m.qty(qFx)
	e.register(o)
	res, _ := m.book.Submit(engine.Order{ID: engine.OrderID(o.ID), Owner: maker.idx, Side: engineSide(side),
		Kind: engine.PostOnly, Price: pFx, Qty: qFx, Visible: qFx}, nil)
	if !res.Rested {
		e.finish(o, StatusCancelled, "level would cross")
		return 0, errf(venue.CodeInvalidParam, "%s level %s would cross the book", side, price)
	}
	e.noteLevel(m, engineSide(side), pFx)
	e.touch(m)
	e.publish(BookChanged{Symbol: symbol, Timestamp: m.ts})
	return o.ID, nil
}

// SetFundingRate makes a perpetual's estimated funding rate (shown, and
// settled at the next funding time) the one another venue publishes,
// instead of the sim's premium formula.
func (e *Exchange) SetFundingRate(symbol string, rate decimal.Decimal) *Error {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.market(symbol)
	if err != nil {
		return err
	}
	if !m.perp() {
		return errf(venue.CodeInvalidParam, "%s has no funding", symbol)
	}
	m.funding, m.fundingSet = rate, true
	e.marketDirty = true
	return nil
}
