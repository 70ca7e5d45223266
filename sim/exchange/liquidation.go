package exchange

// liquidateBelowMaintenance closes the positions of every user account
// whose equity fell below the maintenance margin (maintenanceFraction of
// its exposure): its open orders are cancelled, each perpetual position is
// closed and each borrowed token bought back with LIQUIDATE orders, which
// execute like MARKET orders (taker fees, price_range limit) and are
// reported like any order.
func (e *Exchange) liquidateBelowMaintenance() {
	for _, a := range e.accounts {
		if a.internal {
			continue
		}
		spot, perp := e.exposure(a)
		total := spot.Add(perp)
		if !total.IsPositive() || e.equity(a).GreaterThanOrEqual(total.Mul(maintenanceFraction)) {
			continue
		}
		e.liquidate(a)
	}
}

func (e *Exchange) liquidate(a *Account) {
	ids := make([]int64, 0, len(a.open))
	for id := range a.open {
		ids = append(ids, id)
	}
	sortInt64(ids)
	for _, id := range ids {
		e.cancel(a.open[id], "cancelled: account below maintenance margin")
	}
	for _, sym := range sortedKeys(a.positions) {
		p, m := a.positions[sym], e.markets[sym]
		if m == nil || p.qty.IsZero() {
			continue
		}
		side := Sell
		if p.qty.IsNegative() {
			side = Buy
		}
		if q, ok := toFixed(p.qty.Abs(), m.qd); ok {
			e.liquidationOrder(a, m, side, q)
		}
	}
	for _, tok := range sortedKeys(a.balances) {
		b := a.balances[tok]
		m := e.markets["SPOT_"+tok+"_USDT"]
		if m == nil || !b.holding.IsNegative() {
			continue
		}
		q := b.holding.Neg().Shift(int32(m.qd)).Ceil().IntPart()
		if q < m.baseMin {
			q = m.baseMin
		} else if rem := (q - m.baseMin) % m.baseTick; rem != 0 {
			q += m.baseTick - rem
		}
		e.liquidationOrder(a, m, Buy, min(q, m.baseMax))
	}
}

// liquidationOrder sends a LIQUIDATE order for an account, past the
// acceptance filters (the venue itself sends it).
func (e *Exchange) liquidationOrder(a *Account, m *market, side Side, qtyFx int64) {
	if m.marketLimit(side) == 0 {
		return // nothing to trade against: try again on the next tick
	}
	now := e.nowMs()
	o := &orderState{acc: a, m: m, qtyFx: qtyFx}
	o.ID = e.nextOrderID
	e.nextOrderID++
	o.Symbol, o.Side, o.Type, o.Tag, o.Status = m.spec.Symbol, side, Liquidate, "liquidation", StatusNew
	o.Quantity, o.HasQuantity, o.Visible = m.qty(qtyFx), true, m.qty(qtyFx)
	o.FeeAsset, o.ApplicationID = e.feeAsset(m, side), a.appID
	o.CreatedMs, o.UpdatedMs = now, now
	e.orders[o.ID] = o
	a.open[o.ID] = o
	a.orders = append(a.orders, o)
	e.orderEvent(o, nil)
	e.execute(o)
	e.userChanged()
}
