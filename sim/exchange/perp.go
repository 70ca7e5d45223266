package exchange

import (
	"github.com/shopspring/decimal"

	"tradedeck/venue"
)

// position is a perpetual position: signed quantity (long > 0) with its
// average open price.
type position struct {
	qty      decimal.Decimal
	avgOpen  decimal.Decimal
	realised decimal.Decimal
	pnl24    decimal.Decimal
	fee24    decimal.Decimal
	settle   decimal.Decimal // price of the last funding settlement
	updated  int64
}

// applyPerp moves a position by a fill and returns the realised PnL.
func (e *Exchange) applyPerp(a *Account, m *market, side Side, price, qty, fee decimal.Decimal, now int64) decimal.Decimal {
	p, ok := a.positions[m.spec.Symbol]
	if !ok {
		p = &position{}
		a.positions[m.spec.Symbol] = p
	}
	delta := qty
	if side == Sell {
		delta = qty.Neg()
	}
	pnl := decimal.Zero
	switch {
	case p.qty.IsZero() || p.qty.Sign() == delta.Sign():
		// opening or adding: weighted average
		newQty := p.qty.Add(delta)
		p.avgOpen = p.avgOpen.Mul(p.qty.Abs()).Add(price.Mul(qty)).DivRound(newQty.Abs(), 16)
		p.qty = newQty
	default:
		closed := decimal.Min(qty, p.qty.Abs())
		if p.qty.IsPositive() {
			pnl = price.Sub(p.avgOpen).Mul(closed)
		} else {
			pnl = p.avgOpen.Sub(price).Mul(closed)
		}
		p.qty = p.qty.Add(delta)
		switch {
		case p.qty.IsZero():
			p.avgOpen = decimal.Zero
		case p.qty.Sign() == delta.Sign():
			p.avgOpen = price // flipped: the rest opened at this price
		}
	}
	p.realised = p.realised.Add(pnl)
	p.pnl24 = p.pnl24.Add(pnl)
	p.fee24 = p.fee24.Add(fee)
	p.updated = now
	if !a.internal {
		e.publish(PositionEvent{ApplicationID: a.appID, Symbol: m.spec.Symbol, Timestamp: now})
	}
	return pnl
}

// Position is a perpetual position as GET /v1/position reports it.
type Position struct {
	Symbol          string
	Holding         decimal.Decimal
	PendingLongQty  decimal.Decimal
	PendingShortQty decimal.Decimal
	SettlePrice     decimal.Decimal
	AverageOpen     decimal.Decimal
	PnL24h          decimal.Decimal
	Fee24h          decimal.Decimal
	MarkPrice       decimal.Decimal
	EstLiqPrice     decimal.Decimal
	UnrealisedPnL   decimal.Decimal
	RealisedPnL     decimal.Decimal
	UpdatedMs       int64
}

// Positions is GET /v1/positions.
type Positions struct {
	CurrentMarginRatio     decimal.Decimal
	InitialMarginRatio     decimal.Decimal
	MaintenanceMarginRatio decimal.Decimal
	TotalCollateral        decimal.Decimal
	FreeCollateral         decimal.Decimal
	TotalAccountValue      decimal.Decimal
	Positions              []Position
}

// maintenanceFraction of the notional keeps a position alive.
var maintenanceFraction = decimal.RequireFromString("0.03")

// Positions lists every perpetual position the account ever held (and
// those with pending orders), by symbol.
func (e *Exchange) Positions(a *Account) Positions {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := Positions{
		CurrentMarginRatio:     e.marginRate(a),
		InitialMarginRatio:     one.DivRound(decimal.NewFromInt(int64(max(a.futLeverage, 1))), 8),
		MaintenanceMarginRatio: maintenanceFraction,
		TotalCollateral:        e.equity(a),
		FreeCollateral:         decimal.Max(decimal.Zero, e.freeCollateral(a, decimal.Zero, decimal.Zero)),
		TotalAccountValue:      e.equity(a),
	}
	syms := map[string]bool{}
	for s := range a.positions {
		syms[s] = true
	}
	for _, o := range a.open {
		if o.m.perp() {
			syms[o.Symbol] = true
		}
	}
	for _, s := range sortedKeys(syms) {
		out.Positions = append(out.Positions, e.position(a, e.markets[s]))
	}
	return out
}

// Position is GET /v1/position/:symbol.
func (e *Exchange) Position(a *Account, symbol string) (Position, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.market(symbol)
	if err != nil {
		return Position{}, err
	}
	if !m.perp() {
		return Position{}, errf(venue.CodeInvalidParam, "%s is not a perpetual symbol", symbol)
	}
	return e.position(a, m), nil
}

func (e *Exchange) position(a *Account, m *market) Position {
	out := Position{Symbol: m.spec.Symbol, MarkPrice: m.markPrice()}
	if p, ok := a.positions[m.spec.Symbol]; ok {
		out.Holding, out.AverageOpen, out.SettlePrice = p.qty, p.avgOpen, p.settle
		out.PnL24h, out.Fee24h, out.RealisedPnL, out.UpdatedMs = p.pnl24, p.fee24, p.realised, p.updated
		out.UnrealisedPnL = p.qty.Mul(out.MarkPrice.Sub(p.avgOpen))
		if out.SettlePrice.IsZero() {
			out.SettlePrice = p.avgOpen
		}
		if !p.qty.IsZero() {
			// the price at which equity falls to the maintenance margin, all else equal
			eq := e.equity(a)
			notional := p.qty.Abs().Mul(out.MarkPrice)
			room := eq.Sub(notional.Mul(maintenanceFraction))
			liq := out.MarkPrice.Sub(room.DivRound(p.qty, 16))
			out.EstLiqPrice = decimal.Max(decimal.Zero, liq).Round(int32(m.pd))
		}
	}
	for _, o := range a.open {
		if o.m == m {
			r := m.qty(o.remainingFx())
			if o.Side == Buy {
				out.PendingLongQty = out.PendingLongQty.Add(r)
			} else {
				out.PendingShortQty = out.PendingShortQty.Add(r)
			}
		}
	}
	if out.UpdatedMs == 0 {
		out.UpdatedMs = e.nowMs()
	}
	return out
}

// SetMarkPrice is the market generator's hook for a perpetual's mark price.
func (e *Exchange) SetMarkPrice(symbol string, price decimal.Decimal) *Error {
	return e.setPrice(symbol, price, true)
}

// SetIndexPrice is the market generator's hook for the index price.
func (e *Exchange) SetIndexPrice(symbol string, price decimal.Decimal) *Error {
	return e.setPrice(symbol, price, false)
}

func (e *Exchange) setPrice(symbol string, price decimal.Decimal, mark bool) *Error {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.market(symbol)
	if err != nil {
		return err
	}
	if !price.IsPositive() {
		return errf(venue.CodeInvalidParam, "price must be positive")
	}
	if mark {
		m.mark, m.markSet = price, true
	} else {
		m.index, m.indexSet = price, true
	}
	e.publish(PriceEvent{Symbol: symbol, Mark: m.markPrice(), Index: m.indexPrice(), Timestamp: e.nowMs()})
	return nil
}

// MarkIndex returns the mark and index price of a symbol.
func (e *Exchange) MarkIndex(symbol string) (mark, index decimal.Decimal, err *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.market(symbol)
	if err != nil {
		return decimal.Zero, decimal.Zero, err
	}
	return m.markPrice(), m.indexPrice(), nil
}

var (
	fundingCap      = decimal.RequireFromString("0.003")
	fundingBaseline = decimal.RequireFromString("0.0001")
)

// estFundingRate: the premium of mark over index plus the usual 0.01%
// baseline, capped at +-0.3% per interval, 8 decimals.
func (m *market) estFundingRate() decimal.Decimal {
	if m.fundingSet { // another venue's published estimate (a mirror's upstream)
		return m.funding
	}
	idx := m.indexPrice()
	if !idx.IsPositive() {
		return fundingBaseline
	}
	r := m.markPrice().Sub(idx).DivRound(idx, 10).Add(fundingBaseline)
	r = decimal.Min(fundingCap, decimal.Max(fundingCap.Neg(), r))
	return r.Round(8)
}

// FundingRateRecord is one row of funding rate history.
type FundingRateRecord struct {
	Symbol          string
	Rate            decimal.Decimal
	TimestampMs     int64
	NextFundingTime int64
}

// FundingRate is the current funding record of a perpetual.
type FundingRate struct {
	Symbol            string
	EstRate           decimal.Decimal
	EstRateTimestamp  int64
	LastRate          decimal.Decimal
	LastRateTimestamp int64
	NextFundingTime   int64
}

// FundingRates lists every perpetual's funding record.
func (e *Exchange) FundingRates() []FundingRate { return ofPerps(e, e.fundingRate) }

// FundingRateOf is one perpetual's funding record.
func (e *Exchange) FundingRateOf(symbol string) (FundingRate, *Error) {
	return ofMarket(e, e.perpMarket, symbol, e.fundingRate)
}

func (e *Exchange) perpMarket(symbol string) (*market, *Error) {
	m, err := e.market(symbol)
	if err != nil {
		return nil, err
	}
	if !m.perp() {
		return nil, errf(venue.CodeInvalidParam, "%s is not a perpetual symbol", symbol)
	}
	return m, nil
}

func (e *Exchange) fundingRate(m *market) FundingRate {
	return FundingRate{
		Symbol: m.spec.Symbol, EstRate: m.estFundingRate(), EstRateTimestamp: e.nowMs(),
		LastRate: m.lastRate, LastRateTimestamp: m.lastRateMs, NextFundingTime: e.fundingNext,
	}
}

// FundingRateHistory returns funding history rows of a symbol, newest
// first, within [start, end] (0 = open), or only the newest when both are 0.
func (e *Exchange) FundingRateHistory(symbol string, start, end int64) ([]FundingRateRecord, *Error) {
	return ofMarket(e, e.perpMarket, symbol, func(m *market) []FundingRateRecord {
		var out []FundingRateRecord
		for i := len(m.fundHist) - 1; i >= 0; i-- {
			r := m.fundHist[i]
			if inRange(r.TimestampMs, start, end) {
				out = append(out, r)
			}
			if start == 0 && end == 0 {
				break
			}
		}
		return out
	})
}

func inRange(t, start, end int64) bool {
	return (start == 0 || t >= start) && (end == 0 || t <= end)
}

// FundingFee is one funding payment of an account.
type FundingFee struct {
	ID          int64
	Symbol      string
	Rate        decimal.Decimal
	MarkPrice   decimal.Decimal
	Fee         decimal.Decimal // absolute amount
	PaymentType string          // Receive or Pay
	Status      string
	CreatedMs   int64
}

// FundingFees returns an account's funding payments, newest first.
func (e *Exchange) FundingFees(a *Account, symbol string, start, end int64) []FundingFee {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []FundingFee
	for i := len(a.funding) - 1; i >= 0; i-- {
		f := a.funding[i]
		if (symbol == "" || f.Symbol == symbol) && inRange(f.CreatedMs, start, end) {
			out = append(out, f)
		}
	}
	return out
}

// settleFunding pays funding on every perpetual position at the interval
// boundary ts: longs pay shorts when the rate is positive.
func (e *Exchange) settleFunding(ts int64) {
	interval := int64(e.u.FundingIntervalHours) * 3600_000
	for _, m := range e.marketList {
		if !m.perp() {
			continue
		}
		rate := m.estFundingRate()
		mark := m.markPrice()
		m.lastRate, m.lastRateMs = rate, ts
		m.fundHist = append(m.fundHist, FundingRateRecord{Symbol: m.spec.Symbol, Rate: rate, TimestampMs: ts, NextFundingTime: ts + interval})
		for _, a := range e.accounts {
			p, ok := a.positions[m.spec.Symbol]
			if !ok || p.qty.IsZero() || a.internal {
				continue
			}
			amount := p.qty.Mul(mark).Mul(rate) // > 0: the account pays
			q := a.bal(m.quote)
			q.holding = q.holding.Sub(amount)
			q.updated = ts
			p.settle = mark
			p.pnl24 = p.pnl24.Sub(amount)
			kind := "Pay"
			if amount.IsNegative() {
				kind = "Receive"
			}
			e.nextAssetID++
			a.funding = append(a.funding, FundingFee{ID: e.nextAssetID, Symbol: m.spec.Symbol, Rate: rate, MarkPrice: mark,
				Fee: amount.Abs(), PaymentType: kind, Status: "COMPLETED", CreatedMs: ts})
			e.publish(BalanceEvent{ApplicationID: a.appID, Token: m.quote, Timestamp: ts})
			e.publish(PositionEvent{ApplicationID: a.appID, Symbol: m.spec.Symbol, Timestamp: ts})
		}
		e.publish(FundingEvent{Symbol: m.spec.Symbol, Rate: rate, Timestamp: ts})
	}
	e.userChanged()
	e.marketDirty = true
}

// Tick runs what is due at the venue's current time: funding settlements
// every funding interval, hourly margin interest, liquidation of accounts
// below their maintenance margin, and the reset of the 24h position
// counters at UTC midnight. The sim calls it every second;
// tests call it after moving their clock.
func (e *Exchange) Tick() {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.nowMs()
	interval := int64(e.u.FundingIntervalHours) * 3600_000
	for now >= e.fundingNext {
		e.settleFunding(e.fundingNext)
		e.fundingNext += interval
	}
	for now >= e.interestNext {
		e.accrueInterest(e.interestNext)
		e.interestNext += 3600_000
	}
	e.liquidateBelowMaintenance()
	if day := now / 86400_000 * 86400_000; day > e.dayStart {
		e.dayStart = day
		for _, a := range e.accounts {
			for _, p := range a.positions {
				p.pnl24, p.fee24 = decimal.Zero, decimal.Zero
			}
		}
	}
}
