package algo

import (
	"context"
	"errors"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo/store"
	"tradedeck/desk"
	"tradedeck/trade"
)

// TWAP: a quantity in Slices slices over Over. Slot k is due at
// start + k*interval, moved by up to Jitter % of the interval (never
// before the previous slot, the first one at the start), and its size
// moves by up to Jitter % too; the jitter is drawn from a seed of the algo
// (its id and start), so a restart keeps the schedule. The schedule is a
// pure function of (start, now, slots done, quantity left): twapPlan.next,
// tested on a test clock. After a stall, a restart or a pause the missed
// slots follow the CatchUp policy, never all at once:
//
//   - spread: what is left is spread over the slots left (each one bigger);
//   - skip: the missed slots' quantity is dropped, and said;
//   - bounded N: each slot sends at most N extra slots' worth until the
//     schedule is caught up; it never runs past the end.
//
// A refused slice is reported; its quantity stays in what is left and the
// schedule goes on. The schedule ends at its end whatever the policy:
// what is left then is reported, never swept (twapEndReport).

// twapState is a TWAP's progress (durable in the algo row).
type twapState struct {
	start      time.Time
	done       int // slots consumed (sent, skipped or missed)
	skipped    int
	skippedQty decimal.Decimal
}

// twapPlan is a TWAP's schedule.
type twapPlan struct {
	start    time.Time
	interval time.Duration
	n        int
	seed     uint64
	jitter   int64 // parts per million of the interval and of a slice
	total    decimal.Decimal
	catch    CatchUp
}

func newTWAPPlan(w Work, start time.Time, id ID) twapPlan {
	n := w.SliceCount()
	return twapPlan{start: start, interval: w.Over / time.Duration(n), n: n, total: w.Quantity, catch: w.CatchUp,
		seed: splitmix(uint64(id)*0x9e3779b97f4a7c15 ^ uint64(start.UnixMilli())), jitter: w.Jitter.Mul(decimal.NewFromInt(10_000)).IntPart()}
}

// jit is slot k's jitter in ppm, in [-jitter, +jitter] (salt 0: time, 1:
// size).
func (p twapPlan) jit(k int, salt uint64) int64 {
	if p.jitter == 0 {
		return 0
	}
	r := splitmix(p.seed + uint64(k)*2 + salt)
	return int64(r%uint64(2*p.jitter+1)) - p.jitter
}

// due is when slot k is due. With jitter at most 50 % of the interval,
// slots stay in order.
func (p twapPlan) due(k int) time.Time {
	base := p.start.Add(time.Duration(k) * p.interval)
	if k == 0 || k >= p.n-1 {
		return base
	}
	return base.Add(time.Duration(int64(p.interval) / 1000 * p.jit(k, 0) / 1000))
}

// twapStep is what the schedule asks for now.
type twapStep struct {
	Finished bool          // nothing left, or no slot left
	Wait     time.Duration // until the next slot (nothing due now)
	Slot     int           // the slot to send now
	Missed   int           // slots passed unsent before it (a stall)
	Size     decimal.Decimal
	SkipQty  decimal.Decimal // skip: the missed slots' quantity, dropped
	Last     bool
}

// next is the schedule's step at now, with done slots consumed and left
// still to fill (the total less what filled and what was skipped).
func (p twapPlan) next(now time.Time, done int, left decimal.Decimal) twapStep {
	lim := p.n // no policy runs past the end
	if !left.IsPositive() || done >= lim {
		return twapStep{Finished: true}
	}
	if at := p.due(done); now.Before(at) {
		return twapStep{Wait: at.Sub(now), Slot: done}
	}
	slot := done
	for slot+1 < lim && !now.Before(p.due(slot+1)) {
		slot++
	}
	// Late by more than half an interval (a stall): a slot due within the
	// next half interval is served by this slice too, or the two would go
	// seconds apart.
	if half := p.interval / 2; slot+1 < lim && now.Sub(p.due(slot)) > half && p.due(slot+1).Sub(now) < half {
		slot++
	}
	st := twapStep{Slot: slot, Missed: slot - done}
	n := decimal.NewFromInt(int64(p.n))
	nominal := p.total.Div(n)
	slotsLeft := decimal.NewFromInt(int64(max(p.n-slot, 1)))
	switch p.catch.Policy {
	case CatchSkip:
		st.SkipQty = decimal.Min(left, nominal.Mul(decimal.NewFromInt(int64(st.Missed))))
		left = left.Sub(st.SkipQty)
		st.Size = left.Div(slotsLeft)
		st.Last = slot >= p.n-1
	case CatchBounded:
		behind := p.total.Mul(decimal.NewFromInt(int64(min(slot, p.n)))).Div(n).Sub(p.total.Sub(left))
		extra := decimal.Min(decimal.Max(behind, decimal.Zero), nominal.Mul(decimal.NewFromInt(int64(p.catch.Max))))
		st.Size = nominal.Add(extra) // the last one too: what is left after it is reported
		st.Last = slot >= p.n-1
	default:
		st.Size = left.Div(slotsLeft)
		st.Last = slot >= p.n-1
	}
	if j := p.jit(slot, 1); j != 0 && !st.Last {
		st.Size = st.Size.Mul(decimal.NewFromInt(1_000_000 + j)).Div(decimal.NewFromInt(1_000_000))
	}
	if st.Last && p.catch.Policy != CatchBounded || st.Size.GreaterThan(left) {
		st.Size = left
	}
	return st
}

// splitmix is SplitMix64: a seed's well-mixed draw.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// runTWAP is a TWAP's runner.
func (e *Engine) runTWAP(a *algoState) {
	for {
		var wait time.Duration
		switch e.phase(a) {
		case phaseStopped:
			return
		case phasePaused:
			wait = e.twapBoundBack(a)
		case phaseRun:
			st, why, d := e.twapStep(a)
			if st != 0 {
				e.workFinish(a, st, why)
				return
			}
			wait = d
		}
		if !e.idleWait(a, max(min(wait, e.cfg.Poll), time.Millisecond)) {
			return
		}
	}
}

// twapStep sends the slice due now, if any; it returns how long to wait.
func (e *Engine) twapStep(a *algoState) (State, string, time.Duration) {
	w := a.work
	w.act.Lock()
	defer w.act.Unlock()
	if e.phase(a) != phaseRun {
		return 0, "", 0
	}
	e.mu.Lock()
	plan := newTWAPPlan(a.spec.Work, w.twap.start, a.id)
	left := a.spec.Work.Quantity.Sub(a.exited).Sub(w.twap.skippedQty)
	st := plan.next(e.work.now(), w.twap.done, left)
	e.mu.Unlock()
	switch {
	case st.Finished && left.IsPositive():
		return StateDone, e.twapEndReport(a, left), 0
	case st.Finished:
		return StateDone, "filled", 0
	case st.Wait > 0:
		return 0, "", e.work.real(st.Wait)
	}
	o, why, ok := e.twapOrder(a, st)
	if !ok {
		return e.twapOutside(a, st, why)
	}
	r := w.rule
	o.Quantity = r.AlignQty(st.Size, trade.Down)
	small := o.Quantity.LessThan(r.BaseMin) || (r.MinNotional.IsPositive() && o.Price.IsPositive() && o.Quantity.Mul(o.Price).LessThan(r.MinNotional))
	if small && st.Last {
		e.twapConsume(a, st, false)
		return StateDone, sprintf("the last %s is below the venue's minimum order", left), 0
	}
	e.twapConsume(a, st, true)
	if small {
		return 0, "", 0 // too small to send: its quantity goes to the next slices
	}
	c, err := e.workSend(a, o)
	switch {
	case errors.Is(err, errStopped), errors.Is(err, errUnsettled):
		return 0, "", 0
	case desk.Refused(err):
		e.emit(Event{Kind: EventWork, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
			Text: sprintf("#%d slice %d/%d (%s %s) refused: %s; the schedule goes on", a.id, st.Slot+1, plan.n, o.Type, o.Quantity, trade.Explain(err))})
		return 0, "", 0
	case err != nil:
		return StateFailed, err.Error(), 0
	}
	// An IOC ends at once: this bounds a venue that does not say so (the
	// wall clock, as a request's timeout).
	ctx, cancel := context.WithTimeout(e.runCtx, e.cfg.Timeout)
	done, _ := e.waitChild(c, ctx.Done())
	cancel()
	if !done {
		e.cancelChildAs(c, false)
	}
	e.mu.Lock()
	filled := c.executed
	e.mu.Unlock()
	e.emit(Event{Kind: EventWork, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
		Text: sprintf("#%d slice %d/%d: %s %s of %s filled", a.id, st.Slot+1, plan.n, a.spec.Work.Side, filled, o.Quantity)})
	return 0, "", 0
}

// twapEndReport is what a TWAP that reached its end did not do.
func (e *Engine) twapEndReport(a *algoState, left decimal.Decimal) string {
	e.mu.Lock()
	skipped, n := a.work.twap.skippedQty, a.work.twap.skipped
	e.mu.Unlock()
	return sprintf("the schedule reached its end with %s not done: %s skipped (%d slices, its policy), %s unfilled "+
		"(slices refused, partly filled, or a catch-up the end cut short); nothing is sent after the end",
		left.Add(skipped), skipped, n, left)
}

// twapConsume journals the slots a step uses up (with the child in
// sendChild's commit when one is sent) and says what a stall cost.
func (e *Engine) twapConsume(a *algoState, st twapStep, sending bool) {
	w := a.work
	e.mu.Lock()
	w.twap.done = st.Slot + 1
	if a.spec.Work.CatchUp.Policy == CatchSkip && st.Missed > 0 {
		w.twap.skipped += st.Missed
		w.twap.skippedQty = w.twap.skippedQty.Add(st.SkipQty)
	}
	row := e.algoRowLocked(a)
	e.mu.Unlock()
	if !sending {
		if err := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.UpdateAlgo(row) }); err != nil {
			e.logf("algo #%d: journal: %v", a.id, err)
		}
	}
	if st.Missed > 0 {
		what := map[CatchUpPolicy]string{CatchSpread: "what is left is spread over the remaining slices",
			CatchSkip: sprintf("their %s is dropped", st.SkipQty), CatchBounded: sprintf("caught up by at most %d extra slices' worth a slice", a.spec.Work.CatchUp.Max)}
		e.emit(Event{Kind: EventWork, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
			Text: sprintf("#%d %d slices missed (a stall, a restart or a pause): %s", a.id, st.Missed, what[a.spec.Work.CatchUp.Policy])})
	}
}

// twapOrder is a slice's order; ok false when the market is outside the
// bound (why says how).
func (e *Engine) twapOrder(a *algoState, st twapStep) (trade.Order, string, bool) {
	w := a.spec.Work
	buy := w.Side == trade.Buy
	src := SourceAsk
	if !buy {
		src = SourceBid
	}
	o := trade.Order{Type: trade.Market}
	if !w.Bound.IsPositive() && w.SliceType == SliceMarket {
		return o, "", true
	}
	e.mu.Lock()
	var px decimal.Decimal
	fresh := false
	if s := e.bySym[a.spec.Symbol]; s != nil && s.dec >= 0 {
		var v int64
		v, _, fresh = s.price(src, e.cfg.Now(), e.cfg.MaxAge)
		px = decimalOf(v, s.dec)
	}
	e.mu.Unlock()
	if !fresh {
		return o, "no fresh " + src.String(), false
	}
	if w.Bound.IsPositive() && ((buy && px.GreaterThan(w.Bound)) || (!buy && px.LessThan(w.Bound))) {
		return o, sprintf("%s %s is beyond the limit %s", src, px, w.Bound), false
	}
	o.Type, o.Price = trade.IOC, px
	if w.SliceType == SliceMarket {
		o.Price = w.Bound // a marketable IOC that never trades past the bound
	}
	o.Price = e.alignPrice(a.spec.Symbol, o.Price, w.Side)
	return o, "", true
}

// twapOutside applies the bound policy to a slice the market is outside
// of (or that has no fresh price to check it against: it waits).
func (e *Engine) twapOutside(a *algoState, st twapStep, why string) (State, string, time.Duration) {
	w := a.spec.Work
	stale := len(why) > 8 && why[:8] == "no fresh"
	switch {
	case stale:
		return 0, "", e.cfg.Poll
	case w.Outside == BoundStop:
		return StateCancelled, "stopped: " + why, 0
	case w.Outside == BoundSkip:
		e.mu.Lock()
		a.work.twap.skipped++
		a.work.twap.skippedQty = a.work.twap.skippedQty.Add(st.Size)
		e.mu.Unlock()
		e.twapConsume(a, st, false)
		e.emit(Event{Kind: EventWork, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
			Text: sprintf("#%d slice %d skipped (%s): %s", a.id, st.Slot+1, st.Size.Round(8), why)})
		return 0, "", 0
	}
	e.mu.Lock()
	a.state, a.reason, a.updated = StatePaused, "outside its bound: "+why, e.cfg.Now()
	a.work.boundWhy = why
	row := e.algoRowLocked(a)
	e.mu.Unlock()
	if err := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.UpdateAlgo(row) }); err != nil {
		e.logf("algo #%d: journal: %v", a.id, err)
	}
	e.emit(Event{Kind: EventPaused, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(), Text: sprintf("#%d twap paused: %s", a.id, why)})
	return 0, "", e.cfg.Poll
}

// twapBoundBack resumes a TWAP its bound paused once the market is back
// inside; it returns how long to wait before looking again.
func (e *Engine) twapBoundBack(a *algoState) time.Duration {
	e.mu.Lock()
	bound := a.work.boundWhy != "" && !a.work.userPause
	e.mu.Unlock()
	if !bound {
		return time.Hour
	}
	if _, _, ok := e.twapOrder(a, twapStep{}); !ok {
		return e.cfg.Poll
	}
	e.mu.Lock()
	if a.state != StatePaused || a.work.userPause {
		e.mu.Unlock()
		return 0
	}
	a.state, a.reason, a.updated = StateWorking, "back inside its bound", e.cfg.Now()
	a.work.boundWhy = ""
	row := e.algoRowLocked(a)
	e.mu.Unlock()
	if err := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.UpdateAlgo(row) }); err != nil {
		e.logf("algo #%d: journal: %v", a.id, err)
	}
	e.emit(Event{Kind: EventResumed, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(), Text: sprintf("#%d twap back inside its bound", a.id)})
	return 0
}

// twapProgressLocked fills a TWAP's part of its Progress.
func (e *Engine) twapProgressLocked(a *algoState, p *Progress) {
	t := a.work.twap
	plan := newTWAPPlan(a.spec.Work, t.start, a.id)
	p.Slices, p.SlicesSkipped = plan.n, t.skipped
	p.SlicesDone = t.done - t.skipped
	p.Ends = t.start.Add(a.spec.Work.Over)
	if t.done < plan.n && !a.state.Final() {
		p.NextSlice = plan.due(t.done)
	}
}

// twapPreview resolves a TWAP's slices and checks a nominal slice against
// the venue.
func (e *Engine) twapPreview(p *Preview, r trade.Rule) error {
	s := &p.Spec
	w := s.Work
	n := w.SliceCount()
	p.Work.Slices = n
	p.Work.Interval = w.Over / time.Duration(n)
	p.Work.SliceQty = r.AlignQty(w.Quantity.Div(decimal.NewFromInt(int64(n))), trade.Down)
	p.Work.Notional = w.Quantity.Mul(p.Work.Arrival)
	o := PlannedOrder{Type: trade.Market, Quantity: p.Work.SliceQty, ReduceOnly: w.Reduce}
	if w.Bound.IsPositive() || w.SliceType == SliceBest {
		o.Type, o.Price = trade.IOC, w.Bound
	}
	p.Work.Orders = []PlannedOrder{o}
	price := p.Work.Arrival
	if w.Jitter.IsPositive() {
		// the smallest slice the jitter makes must pass too
		o.Quantity = r.AlignQty(o.Quantity.Mul(hundred.Sub(w.Jitter)).Div(hundred), trade.Down)
	}
	if err := checkOrder(r, s, price, o.Quantity, sprintf("a slice of %s (%d slices)", o.Quantity, n)); err != nil {
		return sprintfErr("%v: fewer slices or a larger quantity", err)
	}
	if w.Bound.IsPositive() && ((w.Side == trade.Buy && p.Work.Arrival.GreaterThan(w.Bound)) || (w.Side == trade.Sell && p.Work.Arrival.LessThan(w.Bound))) {
		p.Warnings = append(p.Warnings, sprintf("the market %s is outside the limit %s now: the first slice %ss", p.Work.Arrival, w.Bound, w.Outside))
	}
	return nil
}
