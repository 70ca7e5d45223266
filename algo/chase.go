package algo

import (
	"errors"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo/store"
	"tradedeck/desk"
	"tradedeck/fixed"
	"tradedeck/trade"
)

// Chase: a LIMIT (or POST_ONLY) order pegged to the best price of its
// side, Offset ticks behind, re-priced when the best moves away from it by
// more than Threshold ticks, never past its leash (then it rests there or
// ends, the user's choice). The venue has no amend: a re-price is a
// cancel, the cancelled order's final state, then a new order sized from
// what really filled. A POST_ONLY order the venue refuses for crossing is
// placed once more a tick further back, then waits for the book to move.
//
// The decision is taken on every bbo of the symbol on the feed's goroutine
// (chaseDecide: int64 only, no allocation); acting on it is the runner's.

// chaseState is a chase's peg, in the symbol's fixed point (dec).
type chaseState struct {
	buy       bool
	dec       int
	tick      int64
	leash     int64
	offset    int64 // price units
	threshold int64 // price units
	quit      bool  // LeashCancel

	peg        int64 // the open order's price (0: none open)
	placedBest int64 // the best when it was placed
	reprices   int
	asked      int64 // the child the runner asked to cancel
	refusals   int   // POST_ONLY refusals at refusedBest
	refusedAt  int64
	bookRead   time.Time // the last REST read of the best (restBest)
}

func (ch *chaseState) init(a *algoState, dec int) {
	w := a.spec.Work
	ch.buy = w.Side == trade.Buy
	ch.quit = w.AtLeash == LeashCancel
	if dec < 0 {
		dec = fixed.DecimalsOf(a.work.rule.QuoteTick)
	}
	ch.scale(a, dec)
}

// scale converts the chase's prices to dec decimals (the feed's scale).
func (ch *chaseState) scale(a *algoState, dec int) {
	w := a.spec.Work
	ch.dec = dec
	ch.tick = max(toFixed(a.work.rule.QuoteTick, dec, true), 1)
	ch.leash = toFixed(w.Leash, dec, !ch.buy) // a buy's leash rounds down, a sell's up: never past it
	ch.offset = int64(w.Offset) * ch.tick
	ch.threshold = int64(w.Threshold) * ch.tick
}

// chaseAction is what a bbo asks of a chase.
type chaseAction uint8

const (
	chaseHold chaseAction = iota // nothing to do
	chaseMove                    // place (or re-place) at the target
	chaseQuit                    // past the leash with LeashCancel: cancel and end
)

// chaseDecide is the re-price decision on one bbo: the target price (the
// best of the chase's side, offset behind, back ticks further back after
// a POST_ONLY refusal, never past the leash) and whether to act. An order
// is re-priced only when the best moved away from it (up for a buy, down
// for a sell) by more than the threshold since it was placed: a chaser at
// the top of the book is not moved by its own price.
func chaseDecide(buy bool, best, placedBest, peg, offset, threshold, leash, back int64, quitAtLeash bool) (chaseAction, int64) {
	var target int64
	past := false
	if buy {
		target = best - offset - back
		if target > leash {
			target, past = leash, true
		}
	} else {
		target = best + offset + back
		if target < leash {
			target, past = leash, true
		}
	}
	if past && quitAtLeash {
		return chaseQuit, target
	}
	if peg == 0 {
		return chaseMove, target
	}
	if target == peg {
		return chaseHold, target
	}
	moved := best - placedBest
	if !buy {
		moved = -moved
	}
	if moved > threshold {
		return chaseMove, target
	}
	return chaseHold, target
}

// chaseBBOLocked runs a symbol's chasers on a fresh bbo: a chaser whose
// decision is to act is woken. It allocates nothing.
func (e *Engine) chaseBBOLocked(s *symState) {
	for _, a := range s.chasers {
		if a.state != StateWorking {
			continue
		}
		ch := &a.work.chase
		best := s.bid
		if !ch.buy {
			best = s.ask
		}
		if best <= 0 {
			continue
		}
		if ch.dec != s.dec {
			ch.scale(a, s.dec)
		}
		if act, _ := chaseDecide(ch.buy, best, ch.placedBest, ch.peg, ch.offset, ch.threshold, ch.leash, 0, ch.quit); act != chaseHold {
			a.work.poke()
		}
	}
}

// runChase is a chase's runner.
func (e *Engine) runChase(a *algoState) {
	for {
		switch e.phase(a) {
		case phaseStopped:
			return
		case phaseRun:
			st, why := e.chaseStep(a)
			if st != 0 {
				e.workFinish(a, st, why)
				return
			}
		}
		if !e.idleWait(a, e.cfg.Poll) {
			return
		}
	}
}

// chaseView is what one step of a chase reads under the engine's lock.
type chaseView struct {
	best    int64
	fresh   bool
	open    *child
	last    *child
	left    decimal.Decimal
	refused bool // the last child ended CANCELLED, unfilled, not by us: a POST_ONLY refused for crossing
	outside bool // the last child was cancelled outside the engine (another screen, the venue's own cancel)
}

// refusedForCrossing tells a POST_ONLY order the venue refused for
// crossing from one cancelled outside the engine: both end CANCELLED
// unfilled, announced NEW first; only the venue's reason tells them
// apart (the simulator: "POST_ONLY order would take liquidity" against
// "cancelled by user"). A reason that says neither is taken as a cancel
// from outside: the chase pauses and asks rather than re-place an order
// someone cancelled.
func refusedForCrossing(c *child) bool {
	if c.typ != trade.PostOnly || !c.executed.IsZero() {
		return false
	}
	r := strings.ToLower(c.reason)
	for _, w := range [...]string{"post_only", "post only", "post-only", "would take", "cross"} {
		if strings.Contains(r, w) {
			return true
		}
	}
	return false
}

func (e *Engine) chaseViewLocked(a *algoState) chaseView {
	var v chaseView
	ch := &a.work.chase
	if s := e.bySym[a.spec.Symbol]; s != nil && s.dec >= 0 {
		src := SourceBid
		if !ch.buy {
			src = SourceAsk
		}
		v.best, _, v.fresh = s.price(src, e.cfg.Now(), e.cfg.MaxAge)
		if ch.dec != s.dec {
			ch.scale(a, s.dec)
		}
	}
	v.open = openChildLocked(a, LegWork)
	for i := len(a.children) - 1; i >= 0; i-- {
		if a.children[i].leg == LegWork && a.children[i].status != ChildNotSent {
			v.last = a.children[i]
			break
		}
	}
	if v.open != nil && ch.peg == 0 {
		// adopted after a restart: pegged where it rests
		ch.peg = toFixed(v.open.price, ch.dec, false)
		ch.placedBest = ch.peg + ch.offset
		if !ch.buy {
			ch.placedBest = ch.peg - ch.offset
		}
	}
	if v.open == nil {
		ch.peg = 0
		if l := v.last; l != nil && l.status == "CANCELLED" && l.cid != ch.asked {
			// not cancelled by us: the venue refused a POST_ONLY for
			// crossing, or someone cancelled it outside the engine
			v.refused = refusedForCrossing(l)
			v.outside = !v.refused
		}
	}
	v.left = a.spec.Work.Quantity.Sub(a.exited)
	return v
}

// chaseStep acts once on the chase's market; a non-zero state ends it.
func (e *Engine) chaseStep(a *algoState) (State, string) {
	w := a.work
	w.act.Lock()
	defer w.act.Unlock()
	if e.phase(a) != phaseRun {
		return 0, ""
	}
	e.mu.Lock()
	v := e.chaseViewLocked(a)
	ch := &w.chase
	r := w.rule
	e.mu.Unlock()
	if v.open == nil && !v.left.IsPositive() {
		return StateDone, "filled"
	}
	if v.open != nil {
		e.pollOpen(a) // the stream may have missed its end
	}
	if v.outside {
		return e.chaseCancelledOutside(a, v.last)
	}
	if !v.fresh && v.open == nil {
		e.restBest(a, &v)
	}
	if !v.fresh {
		return 0, "" // no fresh best: the order rests where it is
	}
	e.mu.Lock()
	var back int64
	if v.refused {
		if v.best == ch.refusedAt {
			ch.refusals++
		} else {
			ch.refusals, ch.refusedAt = 1, v.best
		}
		back = ch.tick
	}
	refusals := ch.refusals
	act, target := chaseDecide(ch.buy, v.best, ch.placedBest, ch.peg, ch.offset, ch.threshold, ch.leash, back, ch.quit)
	dec := ch.dec
	e.mu.Unlock()
	if v.refused && refusals > 1 {
		return 0, "" // refused twice at this best: wait for the book to move
	}
	switch act {
	case chaseHold:
		return 0, ""
	case chaseQuit:
		return StateCancelled, sprintf("the best %s is past the leash %s", fixed.ToDecimal(v.best, dec), a.spec.Work.Leash)
	}
	if c := v.open; c != nil {
		e.mu.Lock()
		ch.asked = c.cid
		e.mu.Unlock()
		e.cancelChildAs(c, false)
		e.mu.Lock()
		stillOpen := c.open()
		ch.reprices++
		// The cancel took a round trip or more: the new order is sized
		// from what the old one really filled and priced at the best now.
		v = e.chaseViewLocked(a)
		e.mu.Unlock()
		if stillOpen {
			if e.runCtx.Err() == nil {
				e.needsDecision(a, sprintf("re-price: the venue has not confirmed the cancel of %d", c.cid))
			}
			return 0, ""
		}
		if !v.fresh {
			e.restBest(a, &v)
		}
		if !v.fresh {
			return 0, "" // placed on the next fresh best
		}
		e.mu.Lock()
		_, target = chaseDecide(ch.buy, v.best, 0, 0, ch.offset, ch.threshold, ch.leash, 0, ch.quit)
		dec = ch.dec
		e.mu.Unlock()
	}
	return e.chasePlace(a, v, target, dec, r)
}

// restBest reads the best of a chase's side from the venue's book when
// the stream's is older than MaxAge and the chase has no order on the
// book: a quiet market pushes no bbo while nothing changes, and the chase
// places now rather than on the next change. Only while the market stream
// is live (a dead stream holds the chase), at most one read a second.
func (e *Engine) restBest(a *algoState, v *chaseView) {
	now := e.cfg.Now()
	ch := &a.work.chase
	e.mu.Lock()
	due := e.marketLive.Load() && now.Sub(ch.bookRead) >= time.Second
	if due {
		ch.bookRead = now
	}
	e.mu.Unlock()
	if !due {
		return
	}
	src := SourceBid
	if !ch.buy {
		src = SourceAsk
	}
	ctx, cancel := e.callWork()
	best, err := e.venuePrice(ctx, a.spec.Symbol, src)
	cancel()
	if err != nil || !best.IsPositive() {
		return
	}
	e.mu.Lock()
	v.best, v.fresh = toFixed(best, ch.dec, !ch.buy), true
	e.mu.Unlock()
}

// chaseCancelledOutside pauses a chase whose order was cancelled outside
// the engine, loudly, instead of putting back what someone took off the
// book; Resume works the book again. The reason is read from the venue
// first when the stream did not give one (a POST_ONLY refusal says so).
func (e *Engine) chaseCancelledOutside(a *algoState, c *child) (State, string) {
	e.mu.Lock()
	noReason := c.reason == ""
	e.mu.Unlock()
	if noReason && c.typ == trade.PostOnly {
		ctx, cancel := e.callFor(c.leg, false)
		o, err := e.cfg.Venue.GetOrderByClientID(ctx, c.cid)
		cancel()
		if err == nil && o.Reason != "" {
			e.mu.Lock()
			c.reason = o.Reason
			e.mu.Unlock()
			e.journalChild(c)
			a.work.poke() // decided again with the venue's reason
			return 0, ""
		}
	}
	e.mu.Lock()
	why := sprintf("its order %d was cancelled outside the engine", c.cid)
	if c.reason != "" {
		why += " (" + c.reason + ")"
	}
	why += "; resume to work the book again"
	if a.state != StateWorking {
		e.mu.Unlock()
		return 0, ""
	}
	a.state, a.reason, a.updated = StatePaused, why, e.cfg.Now()
	a.work.userPause = true
	a.work.chase.asked = c.cid // accounted for: Resume does not ask again
	row := e.algoRowLocked(a)
	e.mu.Unlock()
	if err := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.UpdateAlgo(row) }); err != nil {
		e.logf("algo #%d: journal: %v", a.id, err)
	}
	e.emit(Event{Kind: EventInterrupted, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
		Text: sprintf("#%d chase %s paused: %s", a.id, a.spec.Symbol, why)})
	return 0, ""
}

// chasePlace sends the chase's order at target for what is left.
func (e *Engine) chasePlace(a *algoState, v chaseView, target int64, dec int, r trade.Rule) (State, string) {
	w := a.work
	qty := r.AlignQty(v.left, trade.Down)
	price := fixed.ToDecimal(target, dec)
	if !v.left.IsPositive() {
		return StateDone, "filled"
	}
	if qty.LessThan(r.BaseMin) || (r.MinNotional.IsPositive() && qty.Mul(price).LessThan(r.MinNotional)) {
		return StateDone, sprintf("the remainder %s is below the venue's minimum order", v.left)
	}
	typ := trade.Limit
	if a.spec.Work.Post {
		typ = trade.PostOnly
	}
	e.mu.Lock()
	w.chase.peg, w.chase.placedBest = target, v.best
	repriced := w.chase.reprices
	e.mu.Unlock()
	_, err := e.workSend(a, trade.Order{Type: typ, Price: price, Quantity: qty})
	switch {
	case err == nil:
	case errors.Is(err, errStopped), errors.Is(err, errUnsettled):
		return 0, ""
	case desk.Refused(err):
		return StateFailed, "the venue refused the order: " + trade.Explain(err)
	default:
		return StateFailed, err.Error()
	}
	what := "placed"
	switch {
	case v.refused:
		what = "placed a tick further back (the venue refused the POST_ONLY order for crossing)"
	case repriced > 0:
		what = sprintf("re-priced (%d)", repriced)
	case v.last != nil:
		what = "placed again"
	}
	e.emit(Event{Kind: EventWork, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
		Text: sprintf("#%d chase %s %s %s @ %s (best %s)", a.id, what, a.spec.Work.Side, qty, price, fixed.ToDecimal(v.best, dec))})
	return 0, ""
}

// chaseProgressLocked fills a chase's part of its Progress.
func (e *Engine) chaseProgressLocked(a *algoState, p *Progress) {
	ch := &a.work.chase
	p.Leash, p.Reprices = a.spec.Work.Leash, ch.reprices
	if c := openChildLocked(a, LegWork); c != nil {
		p.Peg = c.price
	}
	if s := e.bySym[a.spec.Symbol]; s != nil && s.dec >= 0 {
		src := SourceBid
		if !ch.buy {
			src = SourceAsk
		}
		if best, _, ok := s.price(src, e.cfg.Now(), e.cfg.MaxAge); ok {
			b := fixed.ToDecimal(best, s.dec)
			p.LeashDistance = p.Leash.Sub(b)
			if !ch.buy {
				p.LeashDistance = b.Sub(p.Leash)
			}
		}
	}
}

// chasePreview resolves a chase's leash and its first order.
func (e *Engine) chasePreview(p *Preview, r trade.Rule) error {
	s := &p.Spec
	w := &s.Work
	src, sideUp := SourceBid, trade.Down
	if w.Side == trade.Sell {
		src, sideUp = SourceAsk, trade.Up
	}
	best, err := e.marketPrice(s.Symbol, src)
	if err != nil || !best.IsPositive() {
		return errOr(err, ErrNoPrice)
	}
	if !w.Leash.IsPositive() {
		pct := decimal.NewFromInt(101).Div(hundred)
		if w.Side == trade.Sell {
			pct = decimal.NewFromInt(99).Div(hundred)
		}
		w.Leash = r.AlignPrice(p.Work.Arrival.Mul(pct), sideUp)
	}
	w.Leash = r.AlignPrice(w.Leash, sideUp)
	price := r.StepPrice(best, -w.Offset)
	if w.Side == trade.Sell {
		price = r.StepPrice(best, w.Offset)
	}
	if (w.Side == trade.Buy && price.GreaterThan(w.Leash)) || (w.Side == trade.Sell && price.LessThan(w.Leash)) {
		if w.AtLeash == LeashCancel {
			return sprintfErr("%s %s: the best %s is already past the leash %s", s.Kind, s.Symbol, best, w.Leash)
		}
		price = w.Leash
		p.Warnings = append(p.Warnings, sprintf("the best %s is already past the leash %s: it rests at the leash", best, w.Leash))
	}
	typ := trade.Limit
	if w.Post {
		typ = trade.PostOnly
	}
	p.Work.Leash = w.Leash
	p.Work.Orders = []PlannedOrder{{Price: price, Quantity: w.Quantity, Type: typ, ReduceOnly: w.Reduce}}
	p.Work.Notional = price.Mul(w.Quantity)
	return checkOrder(r, s, price, w.Quantity, "the order")
}
