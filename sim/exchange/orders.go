package exchange

import (
	"slices"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/sim/engine"
	"tradedeck/venue"
)

// orderState is an order with what the venue needs beyond its report.
type orderState struct {
	Order
	acc       *Account
	m         *market
	priceFx   int64           // limit price in the book's scale (0 for MARKET)
	qtyFx     int64           // ordered quantity (0 for MARKET sized by amount)
	execFx    int64           // executed quantity
	frozen    decimal.Decimal // still frozen for this order
	frozenTok string
	jmarked   bool // in the exchange's list of orders the next journal record carries
	// perpetual open orders count into pending long/short quantities
}

func (o *orderState) remainingFx() int64 {
	if o.qtyFx == 0 {
		return 0
	}
	return o.qtyFx - o.execFx
}

// PlaceOrder accepts or refuses an order. On acceptance the order is
// matched at once; its progress is announced as OrderEvents and the
// returned copy is its state right after acceptance (status NEW), as the
// venue's REST reply only acknowledges.
func (e *Exchange) PlaceOrder(a *Account, req OrderRequest) (Order, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	o, err := e.accept(a, req)
	if err != nil {
		e.rejected(a, req, err)
		return Order{}, err
	}
	ack := o.Order
	e.execute(o)
	return ack, nil
}

var one = decimal.NewFromInt(1)

// reduceOnly checks that an order can only shrink the perpetual position:
// opposite to it and, with its open reduce-only orders on that side, no
// larger than it (sized by amount it cannot be checked, so it is refused).
func (e *Exchange) reduceOnly(a *Account, m *market, side Side, qty decimal.Decimal, hasQty bool) *Error {
	if !m.perp() {
		return errf(venue.CodeInvalidParam, "reduce_only is for perpetual symbols")
	}
	if !hasQty {
		return errf(venue.CodeInvalidParam, "a reduce_only order needs order_quantity")
	}
	pos := decimal.Zero
	if p, ok := a.positions[m.spec.Symbol]; ok {
		pos = p.qty
	}
	if side == Buy {
		pos = pos.Neg()
	}
	for _, o := range a.open {
		if o.m == m && o.ReduceOnly && o.Side == side {
			qty = qty.Add(m.qty(o.remainingFx()))
		}
	}
	if !pos.IsPositive() || qty.GreaterThan(pos) {
		return errf(venue.CodeRiskTooHigh, "reduce_only %s order of %s would increase the %s position", side, qty, m.spec.Symbol)
	}
	return nil
}

// rejected announces an order refused by a business rule (filters, risk,
// duplicate client id) as a REJECTED OrderEvent with OrderID 0, so a
// private stream learns of it as well as the REST caller. Malformed
// requests (-1005) are only answered on REST.
func (e *Exchange) rejected(a *Account, req OrderRequest, err *Error) {
	switch err.Code {
	case venue.CodeRiskTooHigh, venue.CodeMinNotional, venue.CodePriceFilter, venue.CodeSizeFilter,
		venue.CodePercentageFilter, venue.CodeDuplicateRequest:
	default:
		return
	}
	if a.internal {
		return
	}
	tag := req.Tag
	if tag == "" {
		tag = "default"
	}
	e.publish(OrderEvent{
		ApplicationID: a.appID, Symbol: req.Symbol, ClientOrderID: req.ClientOrderID, Type: req.Type, Side: req.Side,
		Quantity: req.Quantity, Price: req.Price, Status: StatusRejected, Reason: err.Message, OrderTag: tag,
		Timestamp: e.nowMs(),
	})
}

// feeAsset is where fees are charged: base for BUY and quote for SELL on
// spot; the settlement (quote) token for perpetuals, which have no base
// balance.
func (e *Exchange) feeAsset(m *market, side Side) string {
	if m.perp() || side == Sell {
		return m.quote
	}
	return m.base
}

// marketLimit is the worst price a MARKET order may reach: price_range
// past the best opposite price, on the tick grid; 0 when that side is empty.
func (m *market) marketLimit(side Side) int64 {
	if side == Buy {
		lv, ok := m.book.BestAsk()
		if !ok {
			return 0
		}
		cap, ok := fixed.MulDiv(lv.Price, m.rangeOne+m.rangeFx, m.rangeOne) // floor
		if !ok {
			return m.quoteMax
		}
		cap -= (cap - m.quoteMin) % m.quoteTick
		return min(cap, m.quoteMax)
	}
	lv, ok := m.book.BestBid()
	if !ok {
		return 0
	}
	f := max(m.rangeOne-m.rangeFx, 0)
	floor, _ := fixed.MulDiv(lv.Price, f, m.rangeOne)
	if cmpProducts(floor, m.rangeOne, lv.Price, f) < 0 {
		floor++ // ceil
	}
	if rem := (floor - m.quoteMin) % m.quoteTick; rem != 0 {
		floor += m.quoteTick - rem
	}
	return max(floor, m.quoteMin, 1)
}

// execute submits an accepted order to the book and settles what happened.
func (e *Exchange) execute(o *orderState) {
	m := o.m
	eo := engine.Order{ID: engine.OrderID(o.ID), Owner: o.acc.idx, Side: engineSide(o.Side), Price: o.priceFx, Qty: o.qtyFx}
	switch o.Type {
	case Limit, Ask, Bid:
		eo.Kind = engine.Limit
		eo.Visible, _ = toFixed(o.Visible, m.qd)
	case PostOnly:
		eo.Kind = engine.PostOnly
		eo.Visible, _ = toFixed(o.Visible, m.qd)
	case IOC:
		eo.Kind = engine.IOC
	case FOK:
		eo.Kind = engine.FOK
	case Market, Liquidate:
		eo.Kind = engine.Market
		eo.Price = m.marketLimit(o.Side)
		if eo.Price == 0 {
			e.finish(o, StatusCancelled, "no liquidity on the opposite side")
			return
		}
		if o.HasAmount {
			amt, _ := toFixed(o.Amount.Truncate(int32(m.pd+m.qd)), m.pd+m.qd)
			eo.QuoteAmt = amt
		}
	}
	res, fills := m.book.Submit(eo, e.fills[:0])
	e.fills = fills[:0]
	if res.Rejected && len(fills) == 0 {
		reason := "rejected by the matching engine"
		if o.Type == PostOnly {
			reason = "POST_ONLY order would take liquidity"
		}
		e.finish(o, StatusCancelled, reason)
		return
	}
	for i, f := range fills { // the makers' levels, best first, each level once
		if i == 0 || f.Price != fills[i-1].Price {
			e.noteLevel(m, eo.Side.Opposite(), f.Price)
		}
	}
	if res.Rested {
		e.noteLevel(m, eo.Side, eo.Price)
	}
	final := finalStatus(o, res, eo, fills)
	touched := map[*Account]map[string]bool{}
	for i, f := range fills {
		maker := e.orders[int64(f.MakerID)]
		lastTaker := i == len(fills)-1 && final == StatusFilled
		e.settleFill(o, maker, f, lastTaker, touched)
	}
	switch final {
	case StatusCancelled:
		e.finish(o, StatusCancelled, cancelReason(o.Type))
	case StatusFilled:
		e.finish(o, StatusFilled, "")
	}
	e.announceTouched(touched)
	if len(fills) > 0 || res.Rested {
		e.touch(m)
		e.publish(BookChanged{Symbol: m.spec.Symbol, Timestamp: m.ts})
	}
}

// finalStatus is where a submitted order ends up: resting (NEW or
// PARTIAL_FILLED), FILLED, or CANCELLED for what could not execute.
func finalStatus(o *orderState, res engine.Result, eo engine.Order, fills []engine.Fill) Status {
	switch {
	case res.Rested && res.Filled > 0:
		return StatusPartialFilled
	case res.Rested:
		return StatusNew
	case o.qtyFx > 0 && res.Remaining == 0:
		return StatusFilled
	case o.qtyFx == 0 && len(fills) > 0 && !amountCanContinue(o.m, o.Side, eo, fills):
		return StatusFilled
	}
	return StatusCancelled
}

// cancelReason says why the unexecuted rest of an order was cancelled.
func cancelReason(t OrderType) string {
	switch t {
	case FOK:
		return "FOK order cannot be fully executed"
	case Market:
		return "MARKET order passed the book or price_range; remainder cancelled"
	case IOC:
		return "IOC order not fully executed; remainder cancelled"
	case Liquidate:
		return "liquidation could not close all of it within price_range"
	}
	return "remaining quantity cancelled"
}

// amountCanContinue reports whether a MARKET order by amount stopped with
// enough amount left to buy another step at the best opposite price within
// its limit (then it ran out of book: cancelled, not filled).
func amountCanContinue(m *market, side Side, eo engine.Order, fills []engine.Fill) bool {
	lv, ok := m.book.BestAsk()
	if side == Sell {
		lv, ok = m.book.BestBid()
	}
	if !ok || (side == Buy && lv.Price > eo.Price) || (side == Sell && lv.Price < eo.Price) {
		return true
	}
	left := eo.QuoteAmt
	for _, f := range fills {
		left -= f.Price * f.Qty
	}
	return left >= lv.Price
}

func engineSide(s Side) engine.Side {
	if s == Buy {
		return engine.Buy
	}
	return engine.Sell
}

// finish closes an order: releases what it still froze, sets its final
// status and announces it. Filled orders were announced by their last fill.
func (e *Exchange) finish(o *orderState, st Status, reason string) {
	a := o.acc
	if o.frozen.IsPositive() {
		b := a.bal(o.frozenTok)
		b.frozen = b.frozen.Sub(o.frozen)
		b.updated = e.nowMs()
		o.frozen = decimal.Zero
		e.publish(BalanceEvent{ApplicationID: a.appID, Token: o.frozenTok, Timestamp: b.updated})
	}
	o.Status, o.Reason, o.UpdatedMs = st, reason, e.nowMs()
	delete(a.open, o.ID)
	if a.internal {
		delete(e.orders, o.ID)
	} else {
		e.trimHistory(a)
	}
	if o.m.perp() && !a.internal {
		e.publish(PositionEvent{ApplicationID: a.appID, Symbol: o.Symbol, Timestamp: o.UpdatedMs})
	}
	if !a.internal {
		e.userChanged()
		e.orderChanged(o)
	}
	if st != StatusFilled {
		e.orderEvent(o, nil)
	}
}

// fillInfo is the execution an OrderEvent reports.
type fillInfo struct {
	tradeID int64
	price   decimal.Decimal
	qty     decimal.Decimal
	fee     decimal.Decimal
	maker   bool
}

func (e *Exchange) orderEvent(o *orderState, f *fillInfo) {
	if o.acc.internal {
		return
	}
	e.orderChanged(o)
	ev := OrderEvent{
		ApplicationID: o.ApplicationID, Symbol: o.Symbol, ClientOrderID: o.ClientOrderID, OrderID: o.ID,
		Type: o.Type, Side: o.Side, Quantity: o.Quantity, Price: o.Price,
		FeeAsset: o.FeeAsset, TotalExecutedQuantity: o.Executed, Status: o.Status, Reason: o.Reason,
		OrderTag: o.Tag, TotalFee: o.TotalFee, Timestamp: o.UpdatedMs,
	}
	if avg, ok := o.AvgPrice(); ok {
		ev.AvgPrice = avg
	}
	if f != nil {
		ev.TradeID, ev.ExecutedPrice, ev.ExecutedQuantity, ev.Fee, ev.Maker = f.tradeID, f.price, f.qty, f.fee, f.maker
	}
	e.publish(ev)
}

// Cancel cancels an open order of a by id; the symbol must match.
func (e *Exchange) Cancel(a *Account, symbol string, orderID int64) *Error {
	e.mu.Lock()
	defer e.mu.Unlock()
	o, ok := a.open[orderID]
	if !ok || o.Symbol != symbol {
		return e.notOpen(a, orderID, symbol)
	}
	e.cancel(o, "cancelled by user")
	return nil
}

func (e *Exchange) notOpen(a *Account, orderID int64, symbol string) *Error {
	if o, ok := e.orders[orderID]; ok && o.acc == a && o.Symbol == symbol {
		return errf(venue.CodeResourceNotFound, "order %d is already %s", orderID, o.Status)
	}
	return errf(venue.CodeResourceNotFound, "order %d not found for %s", orderID, symbol)
}

// CancelByClientID cancels the latest open order of a with that client
// order id on symbol.
func (e *Exchange) CancelByClientID(a *Account, symbol string, clientID int64) *Error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var latest *orderState
	for _, o := range a.open {
		if o.ClientOrderID == clientID && o.Symbol == symbol && (latest == nil || o.ID > latest.ID) {
			latest = o
		}
	}
	if latest == nil {
		return errf(venue.CodeResourceNotFound, "no open order with client_order_id %d on %s", clientID, symbol)
	}
	e.cancel(latest, "cancelled by user")
	return nil
}

// CancelAll cancels every open order of a on symbol and returns how many.
func (e *Exchange) CancelAll(a *Account, symbol string) (int, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.market(symbol); err != nil {
		return 0, err
	}
	var ids []int64
	for id, o := range a.open {
		if o.Symbol == symbol {
			ids = append(ids, id)
		}
	}
	sortInt64(ids)
	for _, id := range ids {
		e.cancel(a.open[id], "cancelled by user (cancel all)")
	}
	return len(ids), nil
}

func (e *Exchange) cancel(o *orderState, reason string) {
	m := o.m
	if r, ok := m.book.Cancel(engine.OrderID(o.ID)); ok {
		e.noteLevel(m, r.Side, r.Price)
		e.touch(m)
		e.publish(BookChanged{Symbol: m.spec.Symbol, Timestamp: m.ts})
	}
	e.finish(o, StatusCancelled, reason)
}

func sortInt64(v []int64) { slices.Sort(v) }

// MaxHistory bounds the completed orders and the trades kept per account,
// so a bot paper-trading for weeks does not grow the sim (or its state
// file) without end; the oldest go first.
const MaxHistory = 50_000

// trimHistory drops the oldest completed orders and oldest trades of a
// once they exceed MaxHistory by a tenth (amortised: rarely copies).
func (e *Exchange) trimHistory(a *Account) {
	if len(a.orders) > MaxHistory+MaxHistory/10 {
		drop := len(a.orders) - MaxHistory
		kept := a.orders[:0]
		for i, o := range a.orders {
			if i < drop && !o.Status.Open() {
				delete(e.orders, o.ID)
				continue
			}
			kept = append(kept, o)
		}
		clear(a.orders[len(kept):])
		a.orders = kept
	}
	if len(a.trades) > MaxHistory+MaxHistory/10 {
		a.jmarks.trades = max(0, a.jmarks.trades-(len(a.trades)-MaxHistory))
		n := copy(a.trades, a.trades[len(a.trades)-MaxHistory:])
		clear(a.trades[n:])
		a.trades = a.trades[:n]
	}
}

// notionalTooSmall reports whether price*quantity does not exceed min_notional.
func (m *market) notionalTooSmall(priceFx, qtyFx int64) bool {
	if m.minNotionalOK {
		return cmpProducts(priceFx, qtyFx, m.minNotionalFx, 1) <= 0
	}
	return !m.price(priceFx).Mul(m.qty(qtyFx)).GreaterThan(m.spec.MinNotional)
}
