package feed

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"tradedeck/venue"
)

func orderFromREST(v venue.Order) Order {
	return Order{OrderID: int64(v.OrderID), ClientOrderID: int64(v.ClientOrderID), Symbol: v.Symbol,
		Side: string(v.Side), Type: string(v.Type), Status: string(v.Status), Tag: v.OrderTag,
		Price: v.Price.Decimal, Quantity: v.Quantity.Decimal, Amount: v.Amount.Decimal, Visible: v.Visible,
		Executed: v.Executed, AvgPrice: v.AverageExecutedPrice.Decimal, TotalFee: v.TotalFee, FeeAsset: v.FeeAsset,
		Created: v.CreatedTime.Time, Updated: v.UpdatedTime.Time}
}

func fillFromREST(t venue.Trade) Fill {
	return Fill{TradeID: int64(t.ID), OrderID: int64(t.OrderID), Symbol: t.Symbol, Side: string(t.Side),
		Price: t.ExecutedPrice, Qty: t.ExecutedQuantity, Fee: t.Fee, FeeAsset: t.FeeAsset,
		Maker: bool(t.IsMaker), Time: t.ExecutedTimestamp.Time, RealizedPnL: t.RealizedPnL}
}

// reconcileLoop runs a reconciliation after every private (re)connect, on
// request, and periodically.
func (a *accountState) reconcileLoop(ctx context.Context) {
	var every <-chan time.Time
	if a.c.cfg.ReconcileEvery > 0 {
		t := time.NewTicker(a.c.cfg.ReconcileEvery)
		defer t.Stop()
		every = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.reconcileReq:
		case <-every:
		}
		for attempt := 0; ; attempt++ {
			err := a.reconcile(ctx)
			if err == nil || ctx.Err() != nil {
				break
			}
			a.c.health.restError(pStream, "reconciliation", err)
			if attempt >= 8 {
				a.c.emit(Event{Kind: EventError, Text: "account reconciliation keeps failing: " + err.Error()})
				break
			}
			if !a.c.sleep(ctx, a.c.cfg.Backoff.Delay(attempt, 0.5)) {
				return
			}
		}
	}
}

// retry repeats a REST call that failed for a passing reason (429, 5xx,
// the venue's internal errors) a few times with backoff, so one unlucky
// call does not throw away a whole reconciliation.
func retry[T any](ctx context.Context, c *core, call func() (T, error)) (T, error) {
	for attempt := 0; ; attempt++ {
		v, err := call()
		if err == nil || attempt >= 5 || !venue.IsRetryable(err) || ctx.Err() != nil {
			return v, err
		}
		if !c.sleep(ctx, c.cfg.Backoff.Delay(attempt, 0.5)) {
			return v, ctx.Err()
		}
	}
}

// pages reads every page of a listing (at most max), stopping at the last.
func pages[T any](ctx context.Context, c *core, max int, get func(page int) ([]T, venue.Meta, error)) ([]T, error) {
	type page struct {
		rows []T
		meta venue.Meta
	}
	var all []T
	for p := 1; p <= max; p++ {
		pg, err := retry(ctx, c, func() (page, error) {
			rows, meta, err := get(p)
			return page{rows, meta}, err
		})
		if err != nil {
			return nil, err
		}
		all = append(all, pg.rows...)
		per := int(pg.meta.RecordsPerPage)
		if len(pg.rows) == 0 || per <= 0 || len(pg.rows) < per {
			break
		}
		if pg.meta.Total != nil && p*per >= int(*pg.meta.Total) {
			break
		}
	}
	return all, nil
}

// restAccount is what one reconciliation read from REST.
type restAccount struct {
	start     time.Time // when the reading began
	news      bool      // not the first reconciliation: discoveries are announced
	open      []venue.Order
	done      []venue.Order
	trades    []venue.Trade
	holding   []venue.HoldingV2
	positions venue.Positions
	posErr    error              // positions are optional: a spot account may have none
	info      *venue.AccountInfo // first reconciliation only
}

// reconcile reads the account from REST and merges it: fills and order
// completions that happened while the stream was down are added (and
// announced) exactly once; balances and positions are replaced unless the
// stream updated them during the reconciliation.
func (a *accountState) reconcile(ctx context.Context) error {
	r, err := a.readREST(ctx)
	if err != nil {
		return err
	}
	gone, lost := a.mergeOrders(r)
	if err := a.settleGone(ctx, gone, r.news); err != nil {
		return err
	}
	if err := a.settleLost(ctx, lost); err != nil {
		return err
	}
	a.mergeHoldings(r)
	if n := len(gone) + len(lost); n > 0 {
		a.c.logf("reconciliation settled %d orders", n)
	}
	return nil
}

// readREST reads orders, trades, balances and positions. The first
// reconciliation reads history (silently, bounded); later ones read
// everything since the previous one began, with a margin for clocks, so
// nothing that happened in between can be cut off.
func (a *accountState) readREST(ctx context.Context) (*restAccount, error) {
	r := &restAccount{start: a.c.cfg.Clock()}
	a.mu.Lock()
	since, primed := a.reconciled, a.primed
	a.mu.Unlock()
	r.news = primed
	tradePages := 20
	if since.IsZero() {
		since = r.start.Add(-a.c.cfg.ReconcileLookback)
	} else {
		since = since.Add(-time.Minute)
		tradePages = 400
	}
	if err := a.readOrders(ctx, r, since); err != nil {
		return nil, err
	}
	rest := a.c.rest
	var err error
	r.trades, err = pages(ctx, a.c, tradePages, func(p int) ([]venue.Trade, venue.Meta, error) {
		return rest.ListTrades(ctx, venue.TradeFilter{Start: since, Page: p})
	})
	if err != nil {
		return nil, fmt.Errorf("recent trades: %w", err)
	}
	r.holding, err = retry(ctx, a.c, func() ([]venue.HoldingV2, error) { return rest.HoldingV2(ctx, false) })
	if err != nil {
		return nil, fmt.Errorf("holding: %w", err)
	}
	r.positions, r.posErr = retry(ctx, a.c, func() (venue.Positions, error) { return rest.Positions(ctx) })
	if !primed {
		if ai, err := rest.AccountInfo(ctx); err == nil {
			r.info = &ai
		}
	}
	return r, nil
}

// readOrders reads the open orders and those completed since.
func (a *accountState) readOrders(ctx context.Context, r *restAccount, since time.Time) error {
	rest := a.c.rest
	var err error
	r.open, err = pages(ctx, a.c, 40, func(p int) ([]venue.Order, venue.Meta, error) {
		return rest.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusIncomplete, Page: p})
	})
	if err != nil {
		return fmt.Errorf("open orders: %w", err)
	}
	r.done, err = pages(ctx, a.c, 4, func(p int) ([]venue.Order, venue.Meta, error) {
		return rest.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusCompleted, Start: since, Page: p})
	})
	if err != nil {
		return fmt.Errorf("completed orders: %w", err)
	}
	return nil
}

// mergeOrders merges the fills and orders REST listed. It returns the
// open orders REST no longer lists (they ended while we were not looking,
// unless they changed since the reading began) and the pending orders the
// venue never acknowledged in time: both are looked up one by one.
func (a *accountState) mergeOrders(r *restAccount) (gone, lost []int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	trades := r.trades
	sort.Slice(trades, func(i, j int) bool { return trades[i].ExecutedTimestamp.Before(trades[j].ExecutedTimestamp.Time) })
	for _, t := range trades {
		a.addFillLocked(fillFromREST(t), r.news)
	}
	// Completed orders first (oldest first, so history ends newest first):
	// a cancel that happened while the stream was down is announced here.
	done := r.done
	sort.Slice(done, func(i, j int) bool { return done[i].UpdatedTime.Before(done[j].UpdatedTime.Time) })
	for _, v := range done {
		a.applyOrderLocked(orderFromREST(v), r.news)
	}
	inREST := map[int64]bool{}
	for _, v := range r.open {
		o := orderFromREST(v)
		inREST[o.OrderID] = true
		a.applyOrderLocked(o, r.news)
	}
	for id := range a.open {
		if !inREST[id] && a.touched[id].Before(r.start) {
			gone = append(gone, id)
		}
	}
	for cid, p := range a.pending {
		if r.start.Sub(p.Created) >= a.c.cfg.PendingTimeout {
			lost = append(lost, cid)
		}
	}
	return gone, lost
}

// settleGone reads the final state of open orders REST no longer lists.
func (a *accountState) settleGone(ctx context.Context, gone []int64, news bool) error {
	for _, id := range gone {
		v, err := retry(ctx, a.c, func() (venue.Order, error) { return a.c.rest.GetOrder(ctx, id) })
		if err != nil {
			if venue.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("order %d: %w", id, err)
		}
		a.mu.Lock()
		a.applyOrderLocked(orderFromREST(v), news)
		a.mu.Unlock()
	}
	return nil
}

// settleLost looks up pending orders by client id: one the venue has is
// applied, one it does not know never reached it and ends as rejected.
func (a *accountState) settleLost(ctx context.Context, lost []int64) error {
	for _, cid := range lost {
		v, err := retry(ctx, a.c, func() (venue.Order, error) { return a.c.rest.GetOrderByClientID(ctx, cid) })
		a.mu.Lock()
		switch {
		case err == nil:
			a.applyOrderLocked(orderFromREST(v), true)
		case venue.IsNotFound(err):
			if p := a.pending[cid]; p != nil {
				a.endPendingLocked(p, "the venue has no order with this client id",
					fmt.Sprintf("%s %s order (client id %d) never reached the venue", p.Symbol, p.Side, cid))
			}
		}
		a.mu.Unlock()
		if err != nil && !venue.IsNotFound(err) {
			return fmt.Errorf("order by client id %d: %w", cid, err)
		}
	}
	return nil
}

// mergeHoldings replaces balances and positions with REST's, except those
// the stream updated since the reading began, and ends the reconciliation.
func (a *accountState) mergeHoldings(r *restAccount) {
	a.mu.Lock()
	defer a.mu.Unlock()
	seenTok := map[string]bool{}
	for _, h := range r.holding {
		seenTok[h.Token] = true
		if a.balTouched[h.Token].After(r.start) {
			continue // the stream is newer
		}
		a.balances[h.Token] = Balance{Token: h.Token, Holding: h.Holding, Frozen: h.Frozen, Interest: h.Interest,
			OutstandingHolding: h.OutstandingHolding, PendingExposure: h.PendingExposure, Updated: h.UpdatedTime.Time}
	}
	for tok := range a.balances {
		if !seenTok[tok] && !a.balTouched[tok].After(r.start) {
			delete(a.balances, tok)
		}
	}
	if r.posErr == nil {
		a.mergePositionsLocked(r)
	} else if !errors.Is(r.posErr, context.Canceled) {
		a.c.health.setErr(pStream, "positions: "+r.posErr.Error())
	}
	if info := r.info; info != nil {
		app := info.Application
		a.margin = Margin{Mode: string(app.AccountMode), MarginRate: info.MarginRate, Leverage: app.Leverage, FuturesLeverage: app.FuturesLeverage,
			TakerFeeRate: app.TakerFeeRate, MakerFeeRate: app.MakerFeeRate,
			FuturesTakerFeeRate: app.FuturesTakerFeeRate, FuturesMakerFeeRate: app.FuturesMakerFeeRate}
	}
	a.reconciled = r.start // the next one reads from here on
	a.primed = true
	a.version++
	a.changed()
	a.c.health.dirty.Store(true) // Reconciled shows on the health line
	a.c.wake.Wake()
}

func (a *accountState) mergePositionsLocked(r *restAccount) {
	ps := r.positions
	a.collateral = collateralOf(ps)
	seenSym := map[string]bool{}
	for _, p := range r.positions.Positions {
		seenSym[p.Symbol] = true
		if a.posTouched[p.Symbol].After(r.start) {
			a.takeLiqLocked(p) // the stream's newer push wins, but carries no liquidation price
			continue
		}
		pos := Position{Symbol: p.Symbol, Holding: p.Holding, PendingLong: p.PendingLongQty,
			PendingShort: p.PendingShortQty, AvgOpenPrice: p.AverageOpenPrice, SettlePrice: p.SettlePrice,
			MarkPrice: p.MarkPrice, EstLiqPrice: p.EstLiqPrice, PnL24h: p.PnL24h, Fee24h: p.Fee24h, Updated: p.Timestamp.Time}
		if a.c.obs != nil {
			a.c.obs.ObservePosition(pos)
		}
		if p.Holding.IsZero() && p.PendingLongQty.IsZero() && p.PendingShortQty.IsZero() {
			delete(a.positions, p.Symbol)
			continue
		}
		a.positions[p.Symbol] = pos
	}
	for sym := range a.positions {
		if !seenSym[sym] && !a.posTouched[sym].After(r.start) {
			delete(a.positions, sym)
		}
	}
}
