package exchange

import (
	"github.com/shopspring/decimal"

	"tradedeck/sim/engine"
	"tradedeck/venue"
)

// topOfBook is the best levels an order is checked against at arrival.
type topOfBook struct {
	bid, ask       engine.Level
	hasBid, hasAsk bool
}

// accept runs every acceptance filter and registers the order (NEW).
func (e *Exchange) accept(a *Account, req OrderRequest) (*orderState, *Error) {
	m, err := e.market(req.Symbol)
	if err != nil {
		return nil, err
	}
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	if m.perp() && !a.internal && a.mode != ModeFutures {
		return nil, errf(venue.CodeRiskTooHigh, "perpetual futures need account_mode FUTURES (now %s)", a.mode)
	}
	var top topOfBook
	top.bid, top.hasBid = m.book.BestBid()
	top.ask, top.hasAsk = m.book.BestAsk()

	o := &orderState{acc: a, m: m}
	o.Symbol, o.Side, o.Type, o.Tag, o.ClientOrderID = req.Symbol, req.Side, req.Type, orderTag(req.Tag), req.ClientOrderID
	o.ApplicationID = a.appID
	if err := o.setPrice(req, top); err != nil {
		return nil, err
	}
	if err := o.setSize(req); err != nil {
		return nil, err
	}
	notional, err := o.checkNotional(req, top)
	if err != nil {
		return nil, err
	}
	if req.ReduceOnly {
		if err := e.reduceOnly(a, m, req.Side, o.Quantity, o.HasQuantity); err != nil {
			return nil, err
		}
		o.ReduceOnly = true
	}
	if req.ClientOrderID != 0 {
		for _, other := range a.open {
			if other.ClientOrderID == req.ClientOrderID {
				return nil, errf(venue.CodeDuplicateRequest, "client_order_id %d is used by open order %d", req.ClientOrderID, other.ID)
			}
		}
	}
	// risk exposure: what the order may cost, frozen until it is done
	if !a.internal {
		if err := e.reserve(o, top.bid, top.hasBid, top.ask, top.hasAsk, notional); err != nil {
			return nil, err
		}
	}
	e.register(o)
	return o, nil
}

func orderTag(tag string) string {
	if tag == "" {
		return "default"
	}
	return tag
}

// checkRequest refuses malformed requests (-1005) before any rule is looked at.
func checkRequest(req OrderRequest) *Error {
	if req.Side != Buy && req.Side != Sell {
		return errf(venue.CodeInvalidParam, "side must be BUY or SELL")
	}
	if !ValidOrderType(req.Type) {
		return errf(venue.CodeInvalidParam, "order_type must be one of LIMIT, MARKET, IOC, FOK, POST_ONLY, ASK, BID")
	}
	if req.ClientOrderID < 0 {
		return errf(venue.CodeInvalidParam, "client_order_id must be between 0 and 9223372036854775807")
	}
	byAmount := req.Type == Market || req.Type == Ask || req.Type == Bid
	switch {
	case req.HasAmount && req.HasQuantity:
		return errf(venue.CodeInvalidParam, "order_amount and order_quantity cannot both be given")
	case req.HasAmount && !byAmount:
		return errf(venue.CodeInvalidParam, "order_amount is only allowed for MARKET, ASK and BID orders")
	case !req.HasAmount && !req.HasQuantity:
		return errf(venue.CodeInvalidParam, "order_quantity is required")
	case req.HasAmount && !req.Amount.IsPositive():
		return errf(venue.CodeInvalidParam, "order_amount must be a positive number")
	case req.HasAmount && -req.Amount.Exponent() > 8 && !req.Amount.Equal(req.Amount.Truncate(8)):
		return errf(venue.CodeInvalidParam, "order_amount has more than 8 decimals")
	case req.HasQuantity && !req.Quantity.IsPositive():
		return errf(venue.CodeInvalidParam, "order_quantity must be a positive number")
	}
	return nil
}

// setPrice sets the order's price: none for MARKET, the best opposite
// level for ASK and BID, else the request's on the tick grid, within the
// symbol's bounds and its percentage of the best opposite price.
func (o *orderState) setPrice(req OrderRequest, top topOfBook) *Error {
	m := o.m
	switch req.Type {
	case Market:
	case Ask, Bid:
		lv, ok, name := top.ask, top.hasAsk, "ask"
		if req.Type == Bid {
			lv, ok, name = top.bid, top.hasBid, "bid"
		}
		if !ok {
			return errf(venue.CodeResourceNotFound, "no best %s on the %s book to price a %s order", name, m.spec.Symbol, req.Type)
		}
		o.priceFx = lv.Price
	default:
		p, err := m.limitPrice(req, top)
		if err != nil {
			return err
		}
		o.priceFx = p
	}
	if o.priceFx > 0 {
		o.Price, o.HasPrice = m.price(o.priceFx), true
	}
	return nil
}

// limitPrice checks a priced order's price and returns it in the book's scale.
func (m *market) limitPrice(req OrderRequest, top topOfBook) (int64, *Error) {
	if !req.HasPrice {
		return 0, errf(venue.CodeInvalidParam, "order_price is required for %s orders", req.Type)
	}
	if !req.Price.IsPositive() {
		return 0, errf(venue.CodeInvalidParam, "order_price must be a positive number")
	}
	p, ok := toFixed(req.Price, m.pd)
	if !ok {
		return 0, errf(venue.CodePriceFilter, "order_price %s is not a multiple of quote_tick %s", req.Price, m.spec.QuoteTick)
	}
	if p < m.quoteMin || p > m.quoteMax {
		return 0, errf(venue.CodePriceFilter, "order_price %s outside [%s, %s]", req.Price, m.spec.QuoteMin, m.spec.QuoteMax)
	}
	if (p-m.quoteMin)%m.quoteTick != 0 {
		return 0, errf(venue.CodePriceFilter, "order_price %s is not a multiple of quote_tick %s", req.Price, m.spec.QuoteTick)
	}
	// percentage filter vs the best opposite price
	if req.Side == Buy && top.hasAsk && cmpProducts(p, m.rangeOne, top.ask.Price, m.rangeOne+m.rangeFx) > 0 {
		return 0, errf(venue.CodePercentageFilter, "BUY price %s above best ask %s * (1 + %s)", req.Price, m.price(top.ask.Price), m.spec.PriceRange)
	}
	if req.Side == Sell && top.hasBid && cmpProducts(p, m.rangeOne, top.bid.Price, max(m.rangeOne-m.rangeFx, 0)) < 0 {
		return 0, errf(venue.CodePercentageFilter, "SELL price %s below best bid %s * (1 - %s)", req.Price, m.price(top.bid.Price), m.spec.PriceRange)
	}
	return p, nil
}

// setSize sets the quantity (on the step grid, within bounds) or the quote
// amount, and the visible quantity.
func (o *orderState) setSize(req OrderRequest) *Error {
	m := o.m
	if req.HasQuantity {
		q, ok := toFixed(req.Quantity, m.qd)
		if !ok || (q-m.baseMin)%m.baseTick != 0 {
			return errf(venue.CodeSizeFilter, "order_quantity %s is not a multiple of base_tick %s", req.Quantity, m.spec.BaseTick)
		}
		if q < m.baseMin || q > m.baseMax {
			return errf(venue.CodeSizeFilter, "order_quantity %s outside [%s, %s]", req.Quantity, m.spec.BaseMin, m.spec.BaseMax)
		}
		o.qtyFx = q
	} else if req.Type != Market {
		// ASK/BID by amount: the quantity the amount buys at the taken price, on the step grid
		q := req.Amount.Div(o.Price).Shift(int32(m.qd)).Floor().IntPart()
		q -= (q - m.baseMin) % m.baseTick
		if q < m.baseMin || q > m.baseMax {
			return errf(venue.CodeSizeFilter, "order_amount %s buys %s, outside [%s, %s]", req.Amount, m.qty(q), m.spec.BaseMin, m.spec.BaseMax)
		}
		o.qtyFx = q
	}
	if o.qtyFx > 0 {
		o.Quantity, o.HasQuantity = m.qty(o.qtyFx), true
	}
	if req.HasAmount {
		o.Amount, o.HasAmount = req.Amount, true
	}
	o.Visible = o.Quantity
	if req.HasVisible {
		if req.Visible.IsNegative() || (o.HasQuantity && req.Visible.GreaterThan(o.Quantity)) {
			return errf(venue.CodeInvalidParam, "visible_quantity must be between 0 and order_quantity")
		}
		if _, ok := toFixed(req.Visible, m.qd); !ok {
			return errf(venue.CodeSizeFilter, "visible_quantity %s is not a multiple of base_tick %s", req.Visible, m.spec.BaseTick)
		}
		if req.Type != Market && req.Type != IOC && req.Type != FOK {
			o.Visible = req.Visible
		}
	}
	return nil
}

// checkNotional applies min notional: price*quantity must exceed it (for
// MARKET: at the best opposite price, or the amount). It returns the
// notional a user's perpetual order is reserved at (zero otherwise).
func (o *orderState) checkNotional(req OrderRequest, top topOfBook) (decimal.Decimal, *Error) {
	m := o.m
	if req.Type == Market && req.HasAmount {
		if !req.Amount.GreaterThan(m.spec.MinNotional) {
			return decimal.Zero, errf(venue.CodeMinNotional, "order_amount %s must be greater than min_notional %s", req.Amount, m.spec.MinNotional)
		}
		return req.Amount, nil
	}
	p := o.priceFx
	if req.Type == Market {
		lv, ok := top.ask, top.hasAsk
		if req.Side == Sell {
			lv, ok = top.bid, top.hasBid
		}
		p = lv.Price
		if !ok {
			p = 0 // nothing to trade against: the order will be cancelled, not refused
		}
	}
	if p > 0 && m.notionalTooSmall(p, o.qtyFx) {
		n := m.price(p).Mul(o.Quantity)
		return decimal.Zero, errf(venue.CodeMinNotional, "price * quantity %s must be greater than min_notional %s", n, m.spec.MinNotional)
	}
	if m.perp() && !o.acc.internal {
		return m.price(p).Mul(o.Quantity), nil
	}
	return decimal.Zero, nil
}

// register gives an accepted order its id and announces it (NEW).
func (e *Exchange) register(o *orderState) {
	a, m := o.acc, o.m
	now := e.nowMs()
	o.ID = e.nextOrderID
	e.nextOrderID++
	o.Status = StatusNew
	o.CreatedMs, o.UpdatedMs = now, now
	o.FeeAsset = e.feeAsset(m, o.Side)
	e.orders[o.ID] = o
	a.open[o.ID] = o
	if !a.internal {
		a.orders = append(a.orders, o)
		e.userChanged()
	}
	e.orderEvent(o, nil)
	if m.perp() && !a.internal {
		e.publish(PositionEvent{ApplicationID: a.appID, Symbol: m.spec.Symbol, Timestamp: now}) // pending quantities moved
	}
}
