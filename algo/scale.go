package algo

import (
	"errors"
	"fmt"
	"math"

	"github.com/shopspring/decimal"

	"tradedeck/algo/store"
	"tradedeck/desk"
	"tradedeck/trade"
)

// Scale: a ladder of Count LIMIT (or POST_ONLY) orders from From to To,
// sizes flat or skewed, each on the tick and lot grid and above the
// venue's minimum notional. The plan is a pure function of the spec and
// the symbol's rule (scaleRungs): the preview lists it, the runner places
// exactly it. Reduce-only is the user's word (`reduce`): every rung then
// only closes; without it a ladder on a perpetual may open, and the
// preview says so when it would close part of a position and go on.

// scaleRungs plans a ladder: prices evenly spread from From to To and
// aligned to the tick on the side that never pays more (a buy's down, a
// sell's up); sizes by the skew's weights, aligned down to the lot, the
// rounding's remainder given to the rungs in order of their largest
// fraction (largest remainder), so the rungs add up to the quantity.
func scaleRungs(w Work, r trade.Rule) ([]PlannedOrder, error) {
	n := w.Count
	if n < MinScaleCount || n > MaxScaleCount {
		return nil, fmt.Errorf("count %d must be %d..%d", n, MinScaleCount, MaxScaleCount)
	}
	how, inward := trade.Down, trade.Up
	if w.Side == trade.Sell {
		how, inward = trade.Up, trade.Down
	}
	typ := trade.Limit
	if w.Post {
		typ = trade.PostOnly
	}
	step := w.To.Sub(w.From).Div(decimal.NewFromInt(int64(n - 1)))
	weights := scaleWeights(w.Skew, n)
	var sum float64
	for _, x := range weights {
		sum += x
	}
	out := make([]PlannedOrder, n)
	lot := r.BaseTick
	if !lot.IsPositive() {
		lot = r.BaseMin
	}
	if !lot.IsPositive() {
		return nil, errors.New("the symbol has no lot size")
	}
	units := w.Quantity.Div(lot).Floor().IntPart() // the quantity in lots
	if !lot.Mul(decimal.NewFromInt(units)).Equal(w.Quantity) {
		return nil, fmt.Errorf("quantity %s is not a multiple of the lot %s", w.Quantity, lot)
	}
	got := make([]int64, n)
	fracs := make([]float64, n)
	var placed int64
	for i := range out {
		exact := float64(units) * weights[i] / sum
		got[i] = int64(math.Floor(exact))
		fracs[i] = exact - float64(got[i])
		placed += got[i]
	}
	for ; placed < units; placed++ {
		best := 0
		for i := range fracs {
			if fracs[i] > fracs[best] {
				best = i
			}
		}
		got[best]++
		fracs[best] = -1
	}
	lo, hi := decimal.Min(w.From, w.To), decimal.Max(w.From, w.To)
	for i := range out {
		exact := w.From.Add(step.Mul(decimal.NewFromInt(int64(i))))
		if i == n-1 {
			exact = w.To // the step's division is inexact: 95000 came out 94999.99...
		}
		price := r.AlignPrice(exact, how)
		if price.LessThan(lo) || price.GreaterThan(hi) {
			// The range is the trader's: a rung aligned out of it goes to
			// the tick inside it.
			price = r.AlignPrice(exact, inward)
		}
		if i > 0 && price.Equal(out[i-1].Price) {
			return nil, fmt.Errorf("%s to %s is too narrow for %d rungs at the tick %s: rungs %d and %d share the price %s",
				w.From, w.To, n, r.QuoteTick, i, i+1, price)
		}
		out[i] = PlannedOrder{Price: price, Quantity: lot.Mul(decimal.NewFromInt(got[i])), Type: typ, ReduceOnly: w.Reduce}
	}
	return out, nil
}

// scaleWeights are a ladder's relative sizes, From to To.
func scaleWeights(k Skew, n int) []float64 {
	out := make([]float64, n)
	f := k.Factor.InexactFloat64()
	for i := range out {
		switch k.Kind {
		case SkewLinear:
			out[i] = 1 + (f-1)*float64(i)/float64(n-1)
		case SkewExp:
			out[i] = math.Pow(f, float64(i))
		default:
			out[i] = 1
		}
	}
	return out
}

// scalePreview plans the ladder and checks every rung against the venue.
func (e *Engine) scalePreview(p *Preview, r trade.Rule) error {
	s := &p.Spec
	rungs, err := scaleRungs(s.Work, r)
	if err != nil {
		return fmt.Errorf("%s %s: %w", s.Kind, s.Symbol, err)
	}
	for i, o := range rungs {
		if err := checkOrder(r, s, o.Price, o.Quantity, sprintf("rung %d (%s @ %s)", i+1, o.Quantity, o.Price)); err != nil {
			return fmt.Errorf("%w: fewer rungs or a larger quantity", err)
		}
		p.Work.Notional = p.Work.Notional.Add(o.Price.Mul(o.Quantity))
	}
	p.Work.Orders = rungs
	best := rungs[0].Price
	if crosses(s.Work.Side, best, p) {
		p.Warnings = append(p.Warnings, sprintf("rungs at or through the market trade at once%s", postNote(s.Work.Post)))
	}
	return nil
}

// crosses: a rung at price would trade against the book now.
func crosses(side trade.Side, price decimal.Decimal, p *Preview) bool {
	if !p.Work.Arrival.IsPositive() {
		return false
	}
	if side == trade.Buy {
		return price.GreaterThanOrEqual(p.Work.Arrival)
	}
	return price.LessThanOrEqual(p.Work.Arrival)
}

func postNote(post bool) string {
	if post {
		return " (post: the venue refuses them)"
	}
	return ""
}

// runScale places the ladder, rung by rung (each journaled before it
// leaves; a child is matched to its rung by price, so a restart places
// only the rungs that never reached the venue), then follows the fills
// until no rung is open. A refused rung is reported; the others stand.
func (e *Engine) runScale(a *algoState) {
	rungs, err := scaleRungs(a.spec.Work, a.work.rule)
	if err != nil {
		e.workFinish(a, StateFailed, err.Error())
		return
	}
	for {
		switch e.phase(a) {
		case phaseStopped:
			return
		case phaseRun:
			if st, why := e.scaleStep(a, rungs); st != 0 {
				e.workFinish(a, st, why)
				return
			}
		}
		if !e.idleWait(a, e.cfg.Poll) {
			return
		}
	}
}

// scaleStep places the rungs not placed yet (or, after a Resume, those
// the pause cancelled) and ends the ladder once every rung ended.
func (e *Engine) scaleStep(a *algoState, rungs []PlannedOrder) (State, string) {
	w := a.work
	w.act.Lock()
	defer w.act.Unlock()
	for {
		e.mu.Lock()
		relisting := w.relist
		i, qty, open := e.nextRungLocked(a, rungs)
		var row store.AlgoRow
		if relisting && !w.relist {
			row = e.algoRowLocked(a) // the paused rungs are back: journal it
		}
		e.mu.Unlock()
		if row.ID != 0 {
			if err := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.UpdateAlgo(row) }); err != nil {
				e.logf("algo #%d: journal: %v", a.id, err)
			}
		}
		if i < 0 {
			if open > 0 {
				e.pollOpen(a)
				return 0, ""
			}
			return StateDone, "every rung ended"
		}
		if e.phase(a) != phaseRun {
			return 0, ""
		}
		o := rungs[i]
		_, err := e.workSend(a, trade.Order{Type: o.Type, Price: o.Price, Quantity: qty})
		switch {
		case err == nil:
			e.emit(Event{Kind: EventWork, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
				Text: sprintf("#%d rung %d/%d placed: %s %s @ %s", a.id, i+1, len(rungs), a.spec.Work.Side, qty, o.Price)})
		case errors.Is(err, errStopped), errors.Is(err, errUnsettled):
			return 0, ""
		case desk.Refused(err):
			e.emit(Event{Kind: EventWork, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
				Text: sprintf("#%d rung %d/%d (%s @ %s) refused: %s; the other rungs stand", a.id, i+1, len(rungs), qty, o.Price, trade.Explain(err))})
		default:
			return StateFailed, err.Error()
		}
	}
}

// nextRungLocked is the next rung to place (-1: none) and its quantity,
// and how many rungs are open. Rung i is placed once (attempt i) unless a
// Resume asked for the ladder back: then a rung whose orders all ended
// short of its size is placed once more for the rest.
func (e *Engine) nextRungLocked(a *algoState, rungs []PlannedOrder) (int, decimal.Decimal, int) {
	type rung struct {
		filled      decimal.Decimal
		open, tried bool
		sinceResume bool
	}
	w := a.work
	open := 0
	st := make([]rung, len(rungs))
	for _, c := range a.children {
		i := rungOf(rungs, c.price)
		if c.leg != LegWork || i < 0 || c.status == ChildNotSent {
			continue // a child that never reached the venue places nothing
		}
		st[i].tried = true
		st[i].filled = st[i].filled.Add(c.executed)
		st[i].sinceResume = st[i].sinceResume || (w.relist && c.attempt >= w.relistFrom)
		if c.open() {
			st[i].open = true
			open++
		}
	}
	for i, r := range rungs {
		switch {
		case st[i].open:
		case !st[i].tried:
			return i, r.Quantity, open
		case w.relist && st[i].tried && !st[i].sinceResume && st[i].filled.LessThan(r.Quantity):
			return i, r.Quantity.Sub(st[i].filled), open
		}
	}
	w.relist = false
	return -1, decimal.Zero, open
}

func rungOf(rungs []PlannedOrder, price decimal.Decimal) int {
	for i, r := range rungs {
		if r.Price.Equal(price) {
			return i
		}
	}
	return -1
}
