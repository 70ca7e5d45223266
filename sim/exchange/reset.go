package exchange

// ResetAccounts starts every user account over as the universe defines it
// (`:paper reset`): open orders cancelled, orders, trades, positions and
// histories gone, mode and leverage the universe's, balances its demo
// deposits. Transfers between accounts are forgotten too. The journal
// records the reset as one record that clears before it applies.
func (e *Exchange) ResetAccounts() {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.nowMs()
	for _, spec := range e.u.Accounts {
		a := e.byName[spec.Name]
		if a == nil || a.internal {
			continue
		}
		for _, id := range sortedOpenIDs(a) {
			e.cancel(a.open[id], "paper account reset")
		}
		for _, o := range a.orders {
			delete(e.orders, o.ID)
		}
		for tok := range a.balances {
			e.publish(BalanceEvent{ApplicationID: a.appID, Token: tok, Timestamp: now})
		}
		for sym := range a.positions {
			e.publish(PositionEvent{ApplicationID: a.appID, Symbol: sym, Timestamp: now})
		}
		a.mode, a.leverage, a.futLeverage = spec.AccountMode, spec.Leverage, spec.FuturesLeverage
		if a.leverage == 0 {
			a.leverage = 3
		}
		if a.futLeverage == 0 {
			a.futLeverage = 10
		}
		a.balances, a.positions = map[string]*balance{}, map[string]*position{}
		a.orders, a.trades, a.assets, a.interest, a.funding = nil, nil, nil, nil, nil
		a.jmarks = journalMarks{}
		for _, tok := range sortedKeys(spec.Balances) {
			e.creditDeposit(a, tok, spec.Balances[tok], now)
		}
	}
	e.transfers, e.jtransfers = nil, 0
	for _, o := range e.jorders { // the orders cancelled above are gone with the rest
		o.jmarked = false
	}
	e.jorders = e.jorders[:0]
	e.jreset = true
	e.userChanged()
}

func sortedOpenIDs(a *Account) []int64 {
	ids := make([]int64, 0, len(a.open))
	for id := range a.open {
		ids = append(ids, id)
	}
	sortInt64(ids)
	return ids
}
