package feed

import (
	"context"
	"time"

	"tradedeck/venue"
)

// liqRefreshGap is the least time between two REST position reads asked
// for by the stream: a burst of fills costs one read a second at most.
const liqRefreshGap = time.Second

// The private stream's position pushes carry no liquidation price and no
// collateral; only REST's positions do. A push that changes a position's
// size makes the old liquidation price wrong, so the push clears it and
// asks for a REST read (liqLoop) instead of leaving a stale or missing one
// on screen until the next reconciliation.

// requestLiq asks liqLoop for a REST positions read (coalesced).
func (a *accountState) requestLiq() {
	select {
	case a.liqReq <- struct{}{}:
	default:
	}
}

// liqLoop reads REST positions on request, at most once per liqRefreshGap.
func (a *accountState) liqLoop(ctx context.Context) {
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.liqReq:
		}
		if wait := liqRefreshGap - time.Since(last); wait > 0 && !a.c.sleep(ctx, wait) {
			return
		}
		last = time.Now()
		ps, err := retry(ctx, a.c, func() (venue.Positions, error) { return a.c.rest.Positions(ctx) })
		if err != nil {
			if ctx.Err() == nil {
				a.c.health.restError(pStream, "positions", err)
			}
			continue
		}
		a.mu.Lock()
		a.mergeLiqLocked(ps)
		a.mu.Unlock()
	}
}

// mergeLiqLocked takes REST's liquidation prices for the positions whose
// size is still what REST read (a newer push will ask again), and REST's
// collateral, which the stream never carries.
func (a *accountState) mergeLiqLocked(ps venue.Positions) {
	a.collateral = collateralOf(ps)
	for _, p := range ps.Positions {
		a.takeLiqLocked(p)
	}
	a.version++
	a.changed()
}

// takeLiqLocked takes REST's liquidation price for the position when its
// size is still the one REST read; a newer size waits for its own read.
func (a *accountState) takeLiqLocked(p venue.Position) {
	if cur, ok := a.positions[p.Symbol]; ok && cur.Holding.Equal(p.Holding) {
		cur.EstLiqPrice = p.EstLiqPrice
		a.positions[p.Symbol] = cur
	}
}

// collateralOf is the account-wide part of REST's positions answer.
func collateralOf(ps venue.Positions) Collateral {
	return Collateral{TotalCollateral: ps.TotalCollateral, FreeCollateral: ps.FreeCollateral,
		TotalAccountValue: ps.TotalAccountValue, CurrentMarginRatio: ps.CurrentMarginRatio,
		InitialMarginRatio: ps.InitialMarginRatio, MaintenanceMarginRatio: ps.MaintenanceMarginRatio, Known: true}
}
