package algo

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/algo/store"
	"tradedeck/fixed"
	"tradedeck/trade"
)

// workPreview is a working order's confirmation: the arrival price (mid),
// the plan (every rung of a ladder, a chase's first order and resolved
// leash, a TWAP's slices), each order checked against the symbol's grid
// and minimums, refused with the reason when the venue would refuse it.
func (e *Engine) workPreview(s Spec) (Preview, error) {
	r, err := e.rule(s.Symbol)
	if err != nil {
		return Preview{}, err
	}
	w := s.Work
	if !r.AlignQty(w.Quantity, trade.Down).Equal(w.Quantity) {
		return Preview{}, fmt.Errorf("%s %s: quantity %s is not on the lot grid (step %s)", s.Kind, s.Symbol, w.Quantity, r.BaseTick)
	}
	mid, err := e.marketPrice(s.Symbol, SourceMid)
	if err != nil || !mid.IsPositive() {
		return Preview{}, fmt.Errorf("%s %s: %w", s.Kind, s.Symbol, errOr(err, ErrNoPrice))
	}
	mid = mid.Round(int32(fixed.DecimalsOf(r.QuoteTick)))
	p := Preview{Spec: s, Side: w.Side, Size: w.Quantity, ReduceOnly: w.Reduce, Market: mid, Work: &WorkPreview{Arrival: mid}}
	if trade.IsPerp(s.Symbol) {
		if pos, err := e.protectable(s.Symbol); err == nil {
			p.Position = pos
			e.positionWarnings(&p, pos)
		}
	}
	switch s.Kind {
	case KindChase:
		err = e.chasePreview(&p, r)
	case KindScale:
		err = e.scalePreview(&p, r)
	case KindTWAP:
		err = e.twapPreview(&p, r)
	}
	if err != nil {
		return Preview{}, err
	}
	return p, nil
}

// positionWarnings says what a working order does to the position: a
// reduce-only order with nothing to close is refused by the venue; one
// larger than the position closes only the position; an order without
// reduce against the position closes it and opens the other side.
func (e *Engine) positionWarnings(p *Preview, pos decimal.Decimal) {
	w := p.Spec.Work
	closing := (w.Side == trade.Sell && pos.IsPositive()) || (w.Side == trade.Buy && pos.IsNegative())
	switch {
	case w.Reduce && !closing:
		p.Warnings = append(p.Warnings, sprintf("reduce-only with no %s position to close: the venue refuses its orders", map[bool]string{true: "short", false: "long"}[w.Side == trade.Buy]))
	case w.Reduce && w.Quantity.GreaterThan(pos.Abs()):
		p.Warnings = append(p.Warnings, sprintf("reduce-only: it closes the position of %s, never more", pos.Abs()))
	case !w.Reduce && closing && w.Quantity.GreaterThan(pos.Abs()):
		p.Warnings = append(p.Warnings, sprintf("it closes the position of %s and opens %s the other way (add reduce to stop at flat)", pos.Abs(), w.Quantity.Sub(pos.Abs())))
	}
}

// checkOrder refuses an order the venue would refuse for its size.
func checkOrder(r trade.Rule, s *Spec, price, qty decimal.Decimal, what string) error {
	switch {
	case qty.LessThan(r.BaseMin):
		return fmt.Errorf("%s %s: %s is below the lot size %s", s.Kind, s.Symbol, what, r.BaseMin)
	case r.MinNotional.IsPositive() && price.IsPositive() && price.Mul(qty).LessThan(r.MinNotional):
		return fmt.Errorf("%s %s: %s is below the venue's minimum notional %s", s.Kind, s.Symbol, what, r.MinNotional)
	}
	return nil
}

func errOr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

func sprintfErr(format string, a ...any) error { return fmt.Errorf(format, a...) }

// Tighten gives a trailing stop a new trail, as a percent or a price
// distance (one of the two): only ever tighter than now at its anchor (or
// at the market before it has one). The level moves with it at once,
// never looser.
func (e *Engine) Tighten(id ID, percent, distance decimal.Decimal) error {
	if percent.IsPositive() == distance.IsPositive() || percent.IsNegative() || distance.IsNegative() {
		return fmt.Errorf("algo %d: give the new trail as a percent or a distance, one of them", id)
	}
	if percent.GreaterThanOrEqual(hundred) {
		return fmt.Errorf("algo %d: trail %s%% must be below 100%%", id, percent)
	}
	e.mu.Lock()
	a := e.algos[id]
	switch {
	case a == nil:
		e.mu.Unlock()
		return fmt.Errorf("algo %d: %w", id, ErrNotFound)
	case a.spec.Kind != KindTrail:
		e.mu.Unlock()
		return fmt.Errorf("algo %d: a %s has no trail to tighten", id, a.spec.Label())
	case a.state.Final() || a.busy || a.state == StateTriggered:
		e.mu.Unlock()
		return fmt.Errorf("algo %d: %w", id, ErrFinal)
	}
	var t *trigger
	for _, x := range a.triggers {
		if x.trail {
			t = x
		}
	}
	e.mu.Unlock()
	if t == nil {
		return fmt.Errorf("algo %d: no trailing level", id)
	}
	return e.tighten(a, t, percent, distance)
}

func (e *Engine) tighten(a *algoState, t *trigger, percent, distance decimal.Decimal) error {
	ref, err := e.marketPrice(a.spec.Symbol, t.src)
	if err != nil {
		return err
	}
	e.mu.Lock()
	if t.anchor != 0 && t.dec >= 0 {
		ref = fixed.ToDecimal(t.anchor, t.dec)
	}
	e.mu.Unlock()
	if !ref.IsPositive() {
		return fmt.Errorf("algo %d: %w", a.id, ErrNoPrice)
	}
	dist := func(pct, d decimal.Decimal) decimal.Decimal {
		if pct.IsPositive() {
			return ref.Mul(pct).Div(hundred)
		}
		return d
	}
	e.mu.Lock()
	now, next := dist(a.spec.TrailPercent, a.spec.TrailDistance), dist(percent, distance)
	if !next.LessThan(now) {
		e.mu.Unlock()
		return fmt.Errorf("algo %d: a trail of %s at %s is not tighter than the trail now (%s): refused", a.id, next.Round(8), ref, now.Round(8))
	}
	if a.state.Final() || a.busy || a.state == StateTriggered {
		e.mu.Unlock()
		return fmt.Errorf("algo %d: %w", a.id, ErrFinal)
	}
	a.spec.TrailPercent, a.spec.TrailDistance = percent, distance
	t.ppm = percent.Mul(decimal.NewFromInt(10_000)).IntPart()
	t.distDec = distance
	if t.dec >= 0 {
		t.dist = toFixed(distance, t.dec, false)
	}
	if t.anchor != 0 {
		anchor := t.anchor
		t.anchor = 0
		t.follow(anchor) // the level from the same anchor at the new trail (it only tightens)
	}
	a.updated = e.cfg.Now()
	row, level := e.algoRowLocked(a), t.levelDec
	e.mu.Unlock()
	if err := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.UpdateAlgo(row) }); err != nil {
		return errors.Join(errNotJournaled, err)
	}
	e.emit(Event{Kind: EventArmed, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
		Text: sprintf("#%d trail tightened to %s (level %s)", a.id, trailWord(percent, distance), level)})
	return nil
}

func trailWord(percent, distance decimal.Decimal) string {
	if percent.IsPositive() {
		return percent.String() + "%"
	}
	return distance.String()
}

// workString is a working order's preview on one line.
func (p Preview) workString() string {
	s, w, v := p.Spec, p.Spec.Work, p.Work
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s %s", s.Kind, s.Symbol, w.Side, w.Quantity)
	if p.ReduceOnly {
		b.WriteString(" reduce-only")
	}
	switch s.Kind {
	case KindChase:
		fmt.Fprintf(&b, "; %s at the best %s, offset %d, threshold %d ticks; leash %s (then %s)", orderWord(v.Orders), bestWord(w.Side), w.Offset, w.Threshold, v.Leash, w.AtLeash)
	case KindScale:
		first, last := v.Orders[0], v.Orders[len(v.Orders)-1]
		fmt.Fprintf(&b, "; %d %s orders %s @ %s .. %s @ %s (%s)", len(v.Orders), first.Type, first.Quantity, first.Price, last.Quantity, last.Price, w.Skew.Kind)
	case KindTWAP:
		fmt.Fprintf(&b, "; %d slices of ~%s every %s (%s)", v.Slices, v.SliceQty, v.Interval, w.SliceType)
		if w.Bound.IsPositive() {
			fmt.Fprintf(&b, ", limit %s (outside: %s)", w.Bound, w.Outside)
		}
		fmt.Fprintf(&b, ", catch-up %s", w.CatchUp)
	}
	fmt.Fprintf(&b, "; notional ~%s; arrival (mid) %s", v.Notional.Round(2), v.Arrival)
	for _, x := range p.Warnings {
		b.WriteString("; " + x)
	}
	return b.String()
}

func orderWord(os []PlannedOrder) string {
	if len(os) == 0 {
		return ""
	}
	return sprintf("%s %s @ %s", os[0].Type, os[0].Quantity, os[0].Price)
}

func bestWord(side trade.Side) string {
	if side == trade.Buy {
		return "bid"
	}
	return "ask"
}
