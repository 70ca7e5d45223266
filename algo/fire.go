package algo

import (
	"errors"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/trade"
	"tradedeck/venue"
)

// fireLocked starts an algo's exit: its triggers are disarmed at once (an
// algo fires once), and a goroutine of its own does the rest.
func (e *Engine) fireLocked(a *algoState, f *Firing) {
	e.disarmLocked(a)
	a.state = StateTriggered
	a.fired = f
	a.busy = true
	e.spawn(func() { e.exit(a, f, false) })
}

// disarmLocked takes an algo's triggers off its symbol's list.
func (e *Engine) disarmLocked(a *algoState) {
	s := e.bySym[a.spec.Symbol]
	for _, t := range a.triggers {
		t.armed = false
		if s == nil {
			continue
		}
		for i, x := range s.triggers {
			if x == t {
				s.triggers = append(s.triggers[:i:i], s.triggers[i+1:]...)
				break
			}
		}
	}
}

// armLocked puts an algo's triggers on its symbol's list.
func (e *Engine) armLocked(a *algoState) {
	s := e.symLocked(a.spec.Symbol)
	for _, t := range a.triggers {
		if t.armed {
			continue
		}
		t.armed = true
		if s.dec >= 0 {
			t.setScale(s.dec)
		}
		s.triggers = append(s.triggers, t)
	}
}

func (e *Engine) symLocked(symbol string) *symState {
	s := e.bySym[symbol]
	if s == nil {
		s = newSymState(symbol)
		e.bySym[symbol] = s
	}
	return s
}

// exit closes what an algo protects after it fired: it settles the
// resting exits of the symbol first (a cancel acknowledgement is not
// proof: it waits for their final state), then sends the exit sized from
// the live position, journaled before it leaves, and repeats for the
// remainder until the position is closed (bounded, each retry announced).
//
// resumed: the firing was journaled by an engine before this one (a
// restart); the open exit it sent is worked first and nothing is recorded
// twice.
func (e *Engine) exit(a *algoState, f *Firing, resumed bool) {
	s := e.sym(a.spec.Symbol)
	// Last, once this exit is idle: the take-profits settleResting took
	// off the book come back sized to the position now. A position event
	// that arrived before the exit's own read of the position changed
	// nothing then, so none would follow (found by the rehearsal).
	defer e.positionChanged(a.spec.Symbol)
	e.lockExit(s, a)
	defer e.unlockExit(s)
	defer e.idle(a)
	first := !resumed
	if resumed {
		e.mu.Lock()
		c := openChildLocked(a, f.Leg)
		e.mu.Unlock()
		if c != nil && !e.workChild(a, c) {
			return
		}
	} else {
		e.emit(Event{Kind: EventTriggered, Algo: a.id, Symbol: a.spec.Symbol, Time: f.At, Firing: f,
			Text: sprintf("#%d %s %s triggered: %s", a.id, a.spec.Label(), a.spec.Symbol, f.Why)})
	}
	// A resting order whose cancel the venue did not confirm may still
	// trade: the stop closes at once what it surely does not cover
	// (reduce-only, the position less the take-profits' open remaining)
	// and asks about the rest.
	unsettled := e.settleResting(s, a)
	if len(unsettled) > 0 {
		e.emit(Event{Kind: EventRetried, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
			Text: sprintf("#%d %s: %d resting orders' cancel not confirmed: closing what they do not cover now, then asking", a.id, a.spec.Symbol, len(unsettled))})
	}
	for try := 0; ; try++ {
		if e.isCancelled(a) {
			return
		}
		qty, why, err := e.exitSize(a, unsettled)
		if err != nil {
			e.needsDecision(a, "the position could not be read: "+err.Error())
			return
		}
		if !qty.IsPositive() && len(unsettled) > 0 {
			if unsettled = e.stillUnsettled(unsettled); len(unsettled) > 0 {
				e.needsDecision(a, e.unsettledWhy(a, unsettled))
				return
			}
			continue // settled meanwhile: what they held is the stop's again
		}
		if !qty.IsPositive() {
			e.closeExcess(a)
			e.finish(a, StateDone, why)
			return
		}
		if try > e.cfg.Retries {
			e.finish(a, StateFailed, sprintf("%s still open after %d exits; close it by hand", qty, e.cfg.Retries))
			return
		}
		switch {
		case resumed && try == 0:
			e.emit(Event{Kind: EventRetried, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
				Text: sprintf("#%d %s: %s still open after the restart (the exit journaled before it never reached the venue, or did not close it all): sending it now", a.id, a.spec.Symbol, qty)})
		case !first:
			wait := retryWait(try)
			e.emit(Event{Kind: EventRetried, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
				Text: sprintf("#%d %s: %s left after the exit, sending again in %s (try %d of %d)", a.id, a.spec.Symbol, qty, wait, try, e.cfg.Retries)})
			if !e.sleep(a, wait) {
				return
			}
			qty, why, err = e.exitSize(a, unsettled)
			switch {
			case err != nil:
				e.needsDecision(a, "the position could not be read: "+err.Error())
				return
			case !qty.IsPositive() && len(unsettled) > 0:
				continue // asked about at the top of the loop
			case !qty.IsPositive():
				e.finish(a, StateDone, why)
				return
			}
		}
		o := e.exitOrder(a, f.Leg, qty, try, resumed)
		var trig *Firing
		if first {
			trig = f
		}
		c, err := e.sendChild(a, f.Leg, o, trig, true)
		first = false
		if err != nil {
			if errors.Is(err, errUnsettled) {
				e.needsDecision(a, err.Error())
				return
			}
			e.emit(Event{Kind: EventFailed, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
				Text: sprintf("#%d %s exit refused: %s", a.id, a.spec.Symbol, trade.Explain(err))})
			if e.backoff(a, err) {
				return
			}
			continue
		}
		if !e.workChild(a, c) {
			return
		}
	}
}

// retryWait spaces the re-sends of an exit's remainder: a book emptied
// by a gap gets a moment to refill, and the venue is never spammed (50,
// 100, 200, 400, 800 ms...; at most 2 s).
func retryWait(try int) time.Duration {
	return min(50*time.Millisecond<<max(try-1, 0), 2*time.Second)
}

// exitOrder is the exit after a firing: MARKET, or a stop-limit's LIMIT
// on its first try (later tries are MARKET only when its policy says so).
func (e *Engine) exitOrder(a *algoState, leg Leg, qty decimal.Decimal, try int, resumed bool) trade.Order {
	o := trade.Order{Symbol: a.spec.Symbol, Side: a.side, Type: trade.Market, Quantity: qty, ReduceOnly: a.perp}
	if a.spec.Kind == KindStop && a.spec.Limit.IsPositive() && ((try == 0 && !resumed) || a.spec.After.MarketAfter == 0) {
		o.Type, o.Price = trade.Limit, e.alignPrice(a.spec.Symbol, a.spec.Limit, a.side)
	}
	return o
}

// workChild waits for an exit child's final state, applying a stop-limit's
// post-trigger policy; false: stop working the algo (cancelled).
func (e *Engine) workChild(a *algoState, c *child) bool {
	var deadline <-chan struct{}
	if c.typ == trade.Limit && a.spec.After.MarketAfter > 0 {
		t := e.newAlgoTimer(a, a.spec.After.MarketAfter, false)
		defer t.stop()
		deadline = t.C
	}
	for {
		done, cancelled := e.waitChild(c, deadline)
		if cancelled {
			return false
		}
		if done {
			return true
		}
		// The policy's time is up: cancel what is left, wait for the
		// final state, then the loop sends the rest at MARKET.
		e.emit(Event{Kind: EventRetried, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
			Text: sprintf("#%d %s stop-limit not filled after %s: replacing the rest by MARKET", a.id, a.spec.Symbol, a.spec.After.MarketAfter)})
		e.cancelChild(c)
		deadline = nil
	}
}

// waitChild waits until c is final (done), the deadline passes, or the
// algo is cancelled; it reads the order from REST every Poll in case the
// private stream missed it.
func (e *Engine) waitChild(c *child, deadline <-chan struct{}) (done, cancelled bool) {
	e.waiting(c.a, true) // and any wake-up of the clock was acted on
	defer e.waiting(c.a, false)
	poll := time.NewTicker(e.cfg.Poll)
	defer poll.Stop()
	for {
		e.mu.Lock()
		open, gone := c.open(), c.a.cancelled
		e.mu.Unlock()
		if !open {
			return true, false
		}
		if gone {
			return false, true
		}
		select {
		case <-c.news:
		case <-poll.C:
			e.lookupChild(c)
		case <-deadline:
			return false, false
		case <-e.runCtx.Done():
			return false, true
		}
	}
}

// exitSize is what the next exit of a fired algo closes: its target less
// what the exits filled, capped by the live position (perpetuals) or the
// free base balance (spot), on the lot grid. Zero with the reason when
// nothing is left. What the unsettled take-profits may still close is
// left to them (heldLocked).
func (e *Engine) exitSize(a *algoState, unsettled []*child) (decimal.Decimal, string, error) {
	pos, err := e.livePosition(a)
	if err != nil {
		return decimal.Zero, "", err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	full := pos.Abs()
	if a.perp && ((a.side == trade.Sell && !pos.IsPositive()) || (a.side == trade.Buy && !pos.IsNegative())) {
		return decimal.Zero, "the position is closed", nil
	}
	if a.target.IsZero() {
		a.target = e.plannedLocked(a, full)
	}
	left := a.target.Sub(a.exited)
	if avail := decimal.Max(full.Sub(heldLocked(a, unsettled)), decimal.Zero); left.GreaterThan(avail) {
		left = avail
	}
	r := e.rules[a.spec.Symbol].rule
	if !a.perp || !left.Equal(full) {
		left = r.AlignQty(left, trade.Down)
	}
	if !left.IsPositive() || left.LessThan(r.BaseMin) {
		if a.exited.IsPositive() {
			return decimal.Zero, sprintf("closed %s", a.exited), nil
		}
		return decimal.Zero, "nothing to close", nil
	}
	return left, "", nil
}

// plannedLocked is the size an algo closes when it first fires: its
// quantity, its percent of the position, the whole position, or for a
// bracket what its entry filled.
func (e *Engine) plannedLocked(a *algoState, avail decimal.Decimal) decimal.Decimal {
	switch {
	case a.spec.Kind == KindBracket:
		return a.entryFilled
	case a.spec.Size.Qty.IsPositive():
		return a.spec.Size.Qty
	case a.spec.Size.Percent.IsPositive():
		return avail.Mul(a.spec.Size.Percent).Div(hundred)
	}
	return avail
}

// livePosition is the position an exit is sized from: the stream's for a
// perpetual (read from REST when the stream has not told it yet, and
// after an exit completed: a close is never re-sent on "no fill seen
// yet"), the free base balance from REST for spot.
func (e *Engine) livePosition(a *algoState) (decimal.Decimal, error) {
	e.mu.Lock()
	p, seen := e.pos[a.spec.Symbol]
	fresh := seen && !a.exited.IsPositive() && len(a.children) == 0
	e.mu.Unlock()
	if a.perp && fresh {
		return p, nil
	}
	if a.perp {
		return e.readPosition(a.spec.Symbol)
	}
	return e.freeBase(a.spec.Symbol)
}

func (e *Engine) readPosition(symbol string) (decimal.Decimal, error) {
	ctx, cancel := e.call(true)
	defer cancel()
	ps, err := e.cfg.Venue.Positions(ctx)
	if err != nil {
		return decimal.Zero, err
	}
	h := decimal.Zero
	for _, p := range ps.Positions {
		if p.Symbol == symbol {
			h = p.Holding
		}
	}
	e.mu.Lock()
	e.pos[symbol], e.posSeen[symbol] = h, true
	e.mu.Unlock()
	return h, nil
}

// freeBase is the spot base balance not frozen by open orders.
func (e *Engine) freeBase(symbol string) (decimal.Decimal, error) {
	ctx, cancel := e.call(true)
	defer cancel()
	hs, err := e.cfg.Venue.HoldingV2(ctx, false)
	if err != nil {
		return decimal.Zero, err
	}
	base := trade.Base(symbol)
	for _, h := range hs {
		if h.Token == base {
			return h.Holding.Sub(h.Frozen), nil
		}
	}
	return decimal.Zero, nil
}

// backoff waits after a refused exit, on the engine's clock: a rate
// limit waits the next window (never spamming), other refusals a second.
// true: give up (the engine stops).
func (e *Engine) backoff(a *algoState, err error) bool {
	d := time.Second
	var ae *venue.APIError
	if errors.As(err, &ae) && ae.RateLimited() {
		d = 1100 * time.Millisecond
	}
	return !e.sleep(a, d)
}

func (e *Engine) isCancelled(a *algoState) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return a.cancelled
}

// idle marks an algo no longer worked by a goroutine.
func (e *Engine) idle(a *algoState) {
	e.mu.Lock()
	a.busy, a.clockWoke = false, false
	e.mu.Unlock()
}

// closeExcess checks, once an exit is done, that it did not close more
// than the position (both legs of an OCO filled, a manual close racing
// the stop on a venue that let the exit through): a position now on the
// other side is the excess, closed at once, reduce-only, and said loudly.
func (e *Engine) closeExcess(a *algoState) {
	if !a.perp {
		return
	}
	e.mu.Lock()
	exited := a.exited.IsPositive()
	e.mu.Unlock()
	if !exited {
		return
	}
	pos, err := e.readPosition(a.spec.Symbol)
	if err != nil || pos.IsZero() || (a.side == trade.Sell) == pos.IsPositive() {
		return
	}
	o := trade.Order{Symbol: a.spec.Symbol, Side: a.side.Opposite(), Type: trade.Market, Quantity: pos.Abs(), ReduceOnly: true}
	e.emit(Event{Kind: EventExcess, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
		Text: sprintf("#%d %s: the exits closed more than the position, which is now %s: closing the excess %s %s reduce-only", a.id, a.spec.Symbol, pos, o.Side, o.Quantity)})
	c, err := e.sendChild(a, LegFix, o, nil, true)
	if err != nil {
		e.emit(Event{Kind: EventFailed, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
			Text: sprintf("#%d %s: the excess %s was not closed: %s; close it by hand", a.id, a.spec.Symbol, pos, trade.Explain(err))})
		return
	}
	e.waitChild(c, nil)
}
