package exchange

import (
	"github.com/shopspring/decimal"

	"tradedeck/sim/engine"
	"tradedeck/venue"
)

var bps = decimal.NewFromInt(10000)

// feeRate is the fee fraction an account pays as maker or taker on m.
func (a *Account) feeRate(m *market, maker bool) decimal.Decimal {
	if a.internal {
		return decimal.Zero
	}
	var r decimal.Decimal
	switch {
	case m.perp() && maker:
		r = a.futMaker
	case m.perp():
		r = a.futTaker
	case maker:
		r = a.maker
	default:
		r = a.taker
	}
	return r.Div(bps)
}

// settleFill applies one engine fill to both orders and both accounts.
func (e *Exchange) settleFill(taker, maker *orderState, f engine.Fill, takerDone bool, touched map[*Account]map[string]bool) {
	m := taker.m
	now := e.nowMs()
	m.last = f.Price
	price, qty := m.price(f.Price), m.qty(f.Qty)
	m.recordTrade(PublicTrade{Symbol: m.spec.Symbol, Price: price, Size: qty, Side: taker.Side, Timestamp: now}, f.Price, f.Qty)
	e.publish(TradeEvent{PublicTrade{Symbol: m.spec.Symbol, Price: price, Size: qty, Side: taker.Side, Timestamp: now}})
	for _, side := range []struct {
		o     *orderState
		maker bool
	}{{maker, true}, {taker, false}} {
		o := side.o
		if o == nil {
			continue // an order restored without its state cannot happen; stay safe
		}
		tradeID := e.nextTradeID
		e.nextTradeID++
		fee := e.applyFill(o, price, qty, f.Qty, side.maker, tradeID, now, touched)
		done := (side.maker && f.MakerDone) || (!side.maker && takerDone)
		if done {
			o.Status = StatusFilled
		} else {
			o.Status = StatusPartialFilled
		}
		o.UpdatedMs = now
		e.orderEvent(o, &fillInfo{tradeID: tradeID, price: price, qty: qty, fee: fee, maker: side.maker})
		if side.maker && f.MakerDone {
			e.finish(o, StatusFilled, "")
		}
	}
	e.marketDirty = true
	if !taker.acc.internal || (maker != nil && !maker.acc.internal) {
		e.userChanged()
	}
}

// applyFill books an execution on one order and its account and returns the fee.
func (e *Exchange) applyFill(o *orderState, price, qty decimal.Decimal, qtyFx int64, maker bool, tradeID, now int64, touched map[*Account]map[string]bool) decimal.Decimal {
	a, m := o.acc, o.m
	value := price.Mul(qty)
	o.execFx += qtyFx
	o.Executed = o.Executed.Add(qty)
	o.ExecutedValue = o.ExecutedValue.Add(value)
	rate := a.feeRate(m, maker)
	fee := decimal.Zero
	switch {
	case rate.IsZero():
	case o.FeeAsset == m.base:
		fee = qty.Mul(rate)
	default:
		fee = value.Mul(rate)
	}
	o.TotalFee = o.TotalFee.Add(fee)
	var pnl decimal.Decimal
	if m.perp() {
		pnl = e.applyPerp(a, m, o.Side, price, qty, fee, now)
	}
	if a.internal {
		return fee
	}
	mark := func(tok string) {
		if touched[a] == nil {
			touched[a] = map[string]bool{}
		}
		touched[a][tok] = true
	}
	// release what this fill consumed of the frozen amount
	if o.frozen.IsPositive() {
		var release decimal.Decimal
		switch {
		case o.frozenTok == m.base:
			release = qty
		case o.HasPrice:
			release = o.Price.Mul(qty)
		default:
			release = value
		}
		release = decimal.Min(release, o.frozen)
		o.frozen = o.frozen.Sub(release)
		b := a.bal(o.frozenTok)
		b.frozen = b.frozen.Sub(release)
	}
	if m.perp() {
		q := a.bal(m.quote)
		q.holding = q.holding.Sub(fee).Add(pnl)
		q.updated = now
		mark(m.quote)
	} else {
		base, quote := a.bal(m.base), a.bal(m.quote)
		if o.Side == Buy {
			base.holding = base.holding.Add(qty).Sub(fee)
			quote.holding = quote.holding.Sub(value)
		} else {
			base.holding = base.holding.Sub(qty)
			quote.holding = quote.holding.Add(value).Sub(fee)
		}
		base.updated, quote.updated = now, now
		mark(m.base)
		mark(m.quote)
	}
	a.trades = append(a.trades, &Trade{
		ID: tradeID, OrderID: o.ID, Symbol: o.Symbol, Tag: o.Tag, Side: o.Side, Price: price, Quantity: qty,
		TimeMs: now, Maker: maker, Fee: fee, FeeAsset: o.FeeAsset, RealPnL: pnl, Account: a.appID, ClientOID: o.ClientOrderID,
	})
	return fee
}

func (e *Exchange) announceTouched(touched map[*Account]map[string]bool) {
	now := e.nowMs()
	for a, toks := range touched {
		for _, t := range sortedKeys(toks) {
			e.publish(BalanceEvent{ApplicationID: a.appID, Token: t, Timestamp: now})
		}
	}
}

// reserve runs the risk exposure filter and freezes what the order may
// spend: the quote amount of a BUY (at its limit price, or the MARKET
// limit), the base quantity of a SELL. PURE_SPOT accounts need it
// available; margin accounts may borrow as long as their margin covers
// the new exposure at their leverage.
func (e *Exchange) reserve(o *orderState, bestBid engine.Level, hasBid bool, bestAsk engine.Level, hasAsk bool, notional decimal.Decimal) *Error {
	a, m := o.acc, o.m
	if m.perp() {
		if !e.riskOK(a, decimal.Zero, notional) {
			return errf(venue.CodeRiskTooHigh, "margin too low for %s notional %s at leverage %d", m.spec.Symbol, notional, a.futLeverage)
		}
		return nil
	}
	var tok string
	var need decimal.Decimal
	limit := o.priceFx
	if o.Type == Market {
		limit = m.marketLimit(o.Side)
	}
	if o.Side == Buy {
		tok = m.quote
		switch {
		case o.HasAmount && o.Type == Market:
			need = o.Amount
		default:
			need = m.price(limit).Mul(o.Quantity)
		}
	} else {
		tok = m.base
		switch {
		case o.HasAmount && o.Type == Market:
			if limit == 0 {
				need = decimal.Zero
			} else {
				need = o.Amount.Div(m.price(limit)).Shift(int32(m.qd)).Ceil().Shift(-int32(m.qd))
			}
		default:
			need = o.Quantity
		}
	}
	b := a.bal(tok)
	avail := b.holding.Sub(b.frozen)
	if a.mode == ModePureSpot {
		if need.GreaterThan(avail) {
			return errf(venue.CodeRiskTooHigh, "insufficient %s: available %s, order needs %s", tok, avail, need)
		}
	} else {
		borrow := decimal.Max(decimal.Zero, need.Sub(decimal.Max(avail, decimal.Zero)))
		if borrow.IsPositive() {
			tokSpec, ok := e.tokens[tok]
			if !ok || (!tokSpec.CanShort && o.Side == Sell) {
				return errf(venue.CodeRiskTooHigh, "%s cannot be borrowed", tok)
			}
		}
		if !e.riskOK(a, borrow.Mul(e.tokenPrice(tok)), decimal.Zero) {
			return errf(venue.CodeRiskTooHigh, "margin too low: borrowing %s %s at leverage %d", borrow, tok, a.leverage)
		}
	}
	o.frozen, o.frozenTok = need, tok
	b.frozen = b.frozen.Add(need)
	b.updated = e.nowMs()
	e.publish(BalanceEvent{ApplicationID: a.appID, Token: tok, Timestamp: b.updated})
	return nil
}

// tokenPrice values a token in USDT: 1 for stable coins, else the last
// price of its USDT spot market.
func (e *Exchange) tokenPrice(tok string) decimal.Decimal {
	if t, ok := e.tokens[tok]; ok && t.Stable {
		return one
	}
	if m, ok := e.markets["SPOT_"+tok+"_USDT"]; ok {
		return m.price(m.last)
	}
	if m, ok := e.markets["PERP_"+tok+"_USDT"]; ok {
		return m.markPrice()
	}
	return decimal.Zero
}

// equity is the account's value: token holdings at their prices, minus
// interest owed, plus unrealised PnL of perpetual positions.
func (e *Exchange) equity(a *Account) decimal.Decimal {
	eq := decimal.Zero
	for tok, b := range a.balances {
		eq = eq.Add(b.holding.Sub(b.interest).Mul(e.tokenPrice(tok)))
	}
	for sym, p := range a.positions {
		if m := e.markets[sym]; m != nil && !p.qty.IsZero() {
			eq = eq.Add(p.qty.Mul(m.markPrice().Sub(p.avgOpen)))
		}
	}
	return eq
}

// exposure sums borrowed token values and absolute perpetual notionals.
func (e *Exchange) exposure(a *Account) (spot, perp decimal.Decimal) {
	for tok, b := range a.balances {
		if b.holding.IsNegative() {
			spot = spot.Add(b.holding.Neg().Mul(e.tokenPrice(tok)))
		}
	}
	for sym, p := range a.positions {
		if m := e.markets[sym]; m != nil {
			perp = perp.Add(p.qty.Abs().Mul(m.markPrice()))
		}
	}
	return spot, perp
}

// openPerpNotional is the notional of open perpetual orders' remainders.
func (e *Exchange) openPerpNotional(a *Account) decimal.Decimal {
	n := decimal.Zero
	for _, o := range a.open {
		if o.m.perp() {
			p := o.Price
			if !o.HasPrice {
				p = o.m.markPrice()
			}
			n = n.Add(p.Mul(o.m.qty(o.remainingFx())))
		}
	}
	return n
}

// riskOK checks the initial margin: equity must cover borrowed spot value
// (plus extraSpot) at the margin leverage and perpetual notional of
// positions and open orders (plus extraPerp) at the futures leverage.
func (e *Exchange) riskOK(a *Account, extraSpot, extraPerp decimal.Decimal) bool {
	return e.freeCollateral(a, extraSpot, extraPerp).GreaterThanOrEqual(decimal.Zero)
}

func (e *Exchange) freeCollateral(a *Account, extraSpot, extraPerp decimal.Decimal) decimal.Decimal {
	spot, perp := e.exposure(a)
	perp = perp.Add(e.openPerpNotional(a)).Add(extraPerp)
	spot = spot.Add(extraSpot)
	need := decimal.Zero
	if spot.IsPositive() {
		need = need.Add(spot.Div(decimal.NewFromInt(int64(max(a.leverage, 1)))))
	}
	if perp.IsPositive() {
		need = need.Add(perp.Div(decimal.NewFromInt(int64(max(a.futLeverage, 1)))))
	}
	return e.equity(a).Sub(need)
}

// marginRate is equity over exposure (1000 when there is no exposure, as
// the venue reports an unlevered account).
func (e *Exchange) marginRate(a *Account) decimal.Decimal {
	spot, perp := e.exposure(a)
	total := spot.Add(perp)
	if !total.IsPositive() {
		return decimal.NewFromInt(1000)
	}
	return e.equity(a).DivRound(total, 8)
}
