package algo

import (
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/trade"
)

// Resting exits: the take-profit LIMIT orders an algo keeps on the book
// (tp, the TP of an OCO or a bracket). Together they never close more
// than the position: on every change of it (a fill, a manual close, a
// bracket's entry filling) they are resized, oldest algo first, or
// cancelled.

// hasRestingTP reports an algo that keeps a take-profit on the book.
func hasRestingTP(a *algoState) bool {
	switch a.spec.Kind {
	case KindTP:
		return !a.spec.TPMarket
	case KindOCO, KindBracket:
		return true
	}
	return false
}

// alignPrice puts a limit price on the tick grid on the side that never
// trades worse than asked: a SELL's price is rounded up, a BUY's down.
func (e *Engine) alignPrice(symbol string, p decimal.Decimal, orderSide trade.Side) decimal.Decimal {
	e.mu.Lock()
	r := e.rules[symbol].rule
	e.mu.Unlock()
	if orderSide == trade.Sell {
		return r.AlignPrice(p, trade.Up)
	}
	return r.AlignPrice(p, trade.Down)
}

// openChildLocked is an algo's open child of a leg (nil: none).
func openChildLocked(a *algoState, leg Leg) *child {
	for i := len(a.children) - 1; i >= 0; i-- {
		if c := a.children[i]; c.leg == leg && c.open() {
			return c
		}
	}
	return nil
}

// positionChanged resizes the resting exits of a symbol, in a goroutine
// (at most one running per symbol, run again when asked meanwhile).
func (e *Engine) positionChanged(symbol string) {
	e.mu.Lock()
	s := e.bySym[symbol]
	if s == nil {
		e.mu.Unlock()
		return
	}
	if s.rebalancing {
		s.rebalanceAgain = true
		e.mu.Unlock()
		return
	}
	s.rebalancing = true
	e.mu.Unlock()
	e.spawn(func() {
		for {
			e.rebalance(symbol)
			e.mu.Lock()
			again := s.rebalanceAgain
			s.rebalanceAgain = false
			if !again {
				s.rebalancing = false
			}
			e.mu.Unlock()
			if !again {
				return
			}
		}
	})
}

// restPlan is what one algo should have resting.
type restPlan struct {
	a     *algoState
	want  decimal.Decimal
	price decimal.Decimal
	cur   *child
	// curLeft and curPrice are cur's remaining quantity and price, read
	// under the engine's lock (the private stream moves cur meanwhile).
	curLeft, curPrice decimal.Decimal
}

// rebalance makes the resting exits of a symbol match its position.
func (e *Engine) rebalance(symbol string) {
	if !e.isReady.Load() {
		return
	}
	s := e.sym(symbol)
	s.lock()
	defer s.unlock()
	for round := 0; round < 3; round++ {
		plans, closed, err := e.planResting(symbol)
		if err != nil {
			e.logf("algo %s: resting exits not resized: %v", symbol, err)
			return
		}
		for _, a := range closed {
			e.finish(a, StateDone, "the position is closed")
		}
		changed := false
		for _, p := range plans {
			if p.cur != nil && p.curLeft.Equal(p.want) && p.curPrice.Equal(p.price) {
				continue
			}
			changed = true
			if p.cur != nil {
				e.cancelChild(p.cur)
				break // fills may have moved the position: plan again
			}
			if p.want.IsPositive() {
				e.placeTP(p)
			}
		}
		if !changed {
			return
		}
	}
}

// placeTP journals and sends a resting take-profit.
func (e *Engine) placeTP(p restPlan) {
	a := p.a
	o := trade.Order{Symbol: a.spec.Symbol, Side: a.side, Type: trade.Limit, Price: p.price, Quantity: p.want, ReduceOnly: a.perp}
	if _, err := e.sendChild(a, LegTP, o, nil, true); err != nil {
		e.emit(Event{Kind: EventFailed, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
			Text: sprintf("#%d take-profit %s @ %s not placed: %s", a.id, p.want, p.price, trade.Explain(err))})
		return
	}
	e.emit(Event{Kind: EventResized, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
		Text: sprintf("#%d take-profit resting: %s %s @ %s", a.id, a.side, p.want, p.price)})
}

// planResting shares the position among the algos' resting take-profits,
// oldest first, and lists the algos whose position is gone.
func (e *Engine) planResting(symbol string) ([]restPlan, []*algoState, error) {
	perp := trade.IsPerp(symbol)
	var pos decimal.Decimal
	var err error
	if perp {
		e.mu.Lock()
		p, seen := e.pos[symbol]
		e.mu.Unlock()
		pos = p
		if !seen {
			pos, err = e.readPosition(symbol)
		}
	} else {
		pos, err = e.freeBase(symbol)
	}
	if err != nil {
		return nil, nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var list []*algoState
	for _, a := range e.algos {
		if a.spec.Symbol == symbol && !a.busy && !a.cancelled && (a.state == StateArmed || a.state == StateWaiting) {
			list = append(list, a)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].id < list[j].id })
	budget := pos.Abs()
	if !perp {
		// Spot: what our own take-profits freeze is ours to share too.
		for _, a := range list {
			if c := openChildLocked(a, LegTP); c != nil {
				budget = budget.Add(c.remaining())
			}
		}
	}
	r := e.rules[symbol].rule
	var plans []restPlan
	var closed []*algoState
	for _, a := range list {
		wrongSide := perp && ((a.side == trade.Sell && !pos.IsPositive()) || (a.side == trade.Buy && !pos.IsNegative()))
		if wrongSide && a.spec.Kind != KindBracket && openChildLocked(a, LegTP) == nil {
			closed = append(closed, a)
			continue
		}
		if !hasRestingTP(a) || (a.spec.Kind == KindBracket && !a.entryFilled.IsPositive()) {
			continue
		}
		want := e.restingWantLocked(a, pos.Abs())
		if wrongSide {
			want = decimal.Zero
		}
		if want.GreaterThan(budget) {
			want = budget
		}
		if !perp || !want.Equal(pos.Abs()) {
			want = r.AlignQty(want, trade.Down)
		}
		if want.LessThan(r.BaseMin) {
			want = decimal.Zero
		}
		budget = budget.Sub(want)
		p := restPlan{a: a, want: want, price: e.tpPriceLocked(a), cur: openChildLocked(a, LegTP)}
		if p.cur != nil {
			p.curLeft, p.curPrice = p.cur.remaining(), p.cur.price
		}
		plans = append(plans, p)
	}
	return plans, closed, nil
}

// restingWantLocked is how much an algo's take-profit should close now.
func (e *Engine) restingWantLocked(a *algoState, avail decimal.Decimal) decimal.Decimal {
	var want decimal.Decimal
	switch {
	case a.spec.Kind == KindBracket:
		want = a.entryFilled
	case a.spec.Size.Qty.IsPositive():
		want = a.spec.Size.Qty
	case a.spec.Size.Percent.IsPositive():
		want = avail.Add(a.exited).Mul(a.spec.Size.Percent).Div(hundred)
	default:
		want = avail.Add(a.exited)
	}
	return want.Sub(a.exited)
}

func (e *Engine) tpPriceLocked(a *algoState) decimal.Decimal {
	p := a.spec.TP
	if a.spec.Kind == KindTP {
		p = a.spec.Trigger
	}
	r := e.rules[a.spec.Symbol].rule
	if a.side == trade.Sell {
		return r.AlignPrice(p, trade.Up)
	}
	return r.AlignPrice(p, trade.Down)
}

// settleResting cancels the open resting orders of the symbol before an
// exit is sized (a resting reduce-only or a frozen spot balance would make
// the exit too small or refused), and a bracket's own open entry, and
// waits for their final state. A take-profit that filled meanwhile counts
// toward the exit: success, not an error. It returns those whose cancel
// the venue has not confirmed: they may still trade.
func (e *Engine) settleResting(s *symState, a *algoState) []*child {
	e.mu.Lock()
	var open []*child
	for _, b := range e.algos {
		if b.spec.Symbol != s.name || !hasRestingTP(b) {
			continue
		}
		if c := openChildLocked(b, LegTP); c != nil {
			open = append(open, c)
		}
	}
	if c := openChildLocked(a, LegEntry); c != nil {
		open = append(open, c)
	}
	e.mu.Unlock()
	var unsettled []*child
	for _, c := range open {
		e.cancelChild(c)
		e.mu.Lock()
		still := c.open()
		e.mu.Unlock()
		if still {
			unsettled = append(unsettled, c)
		}
	}
	return unsettled
}

// stillUnsettled reads the unsettled resting orders again and keeps those
// still open.
func (e *Engine) stillUnsettled(list []*child) []*child {
	var out []*child
	for _, c := range list {
		e.lookupChild(c)
		e.mu.Lock()
		if c.open() {
			out = append(out, c)
		}
		e.mu.Unlock()
	}
	return out
}

// heldLocked is what the unsettled take-profits may still close of the
// position a's exit closes (their open remaining, reduce-only, same
// side): the exit leaves it to them, so the two never add up to more than
// the position. On spot the free balance already leaves out what a
// resting order froze.
func heldLocked(a *algoState, unsettled []*child) decimal.Decimal {
	held := decimal.Zero
	if !a.perp {
		return held
	}
	for _, c := range unsettled {
		if c.leg == LegTP && c.side == a.side && c.open() {
			held = held.Add(c.remaining())
		}
	}
	return held
}

// unsettledWhy is the question an exit leaves when resting orders it
// could not cancel may still trade.
func (e *Engine) unsettledWhy(a *algoState, unsettled []*child) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var parts []string
	for _, c := range unsettled {
		if c.leg == LegEntry {
			parts = append(parts, sprintf("its entry %d (it may still open %s more)", c.cid, c.remaining()))
			continue
		}
		parts = append(parts, sprintf("take-profit %d of algo #%d (%s @ %s still open)", c.cid, c.a.id, c.remaining(), c.price))
	}
	return sprintf("the stop closed %s, what the take-profits surely do not cover; the venue has not confirmed the cancel of %s: "+
		"cancel it by hand and resume (the stop closes the rest), or close the rest yourself", a.exited, strings.Join(parts, ", "))
}

// tpFilled ends an algo whose take-profit filled what it had to.
func (e *Engine) tpFilled(a *algoState, c *child) {
	e.mu.Lock()
	done := false
	switch a.spec.Kind {
	case KindTP, KindOCO:
		done = true
	case KindBracket:
		done = a.entryDone && a.exited.GreaterThanOrEqual(a.entryFilled)
	}
	busy := a.busy
	e.mu.Unlock()
	if done && !busy {
		e.finish(a, StateDone, sprintf("take-profit filled %s at %s", c.executed, c.avg))
		return
	}
	e.positionChanged(a.spec.Symbol)
}
