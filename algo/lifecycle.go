package algo

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/algo/store"
	"tradedeck/trade"
)

// Add arms an algo after its confirmation: journaled first, then armed
// (a bracket's entry sent, a take-profit placed). A trigger already
// through the market is refused with the reason unless the user chose to
// fire it (Confirm.FireIfThrough or Spec.FireIfThrough): then it fires at
// once and says why.
func (e *Engine) Add(s Spec, c Confirm) (Algo, error) {
	if !e.isReady.Load() {
		return Algo{}, ErrNotReady
	}
	p, err := e.Preview(s)
	if err != nil {
		return Algo{}, err
	}
	if s.Kind.Working() {
		return e.addWork(p, c)
	}
	fireNow := len(p.Through) > 0
	if fireNow && !c.FireIfThrough && !s.FireIfThrough {
		return Algo{}, fmt.Errorf("%s %s: %w (%s %s, %s): fire it now only if you choose to", s.Kind, s.Symbol, ErrThrough,
			p.Spec.Source, p.Market, strings.Join(p.Through, ", "))
	}
	now := e.cfg.Now()
	a := &algoState{spec: p.Spec, side: p.Side, perp: p.ReduceOnly, state: StateArmed, by: c.By, created: now, updated: now,
		attempts: map[Leg]int{}}
	if s.Kind == KindBracket {
		a.state = StateWaiting
	}
	a.triggers = e.newTriggers(a, p)
	if err := e.insertAlgo(a); err != nil {
		return Algo{}, err
	}
	e.mu.Lock()
	e.algos[a.id] = a
	if s.Kind != KindBracket {
		e.armLocked(a)
		e.primeTrailLocked(a, p.Market)
	} else {
		e.symLocked(a.spec.Symbol)
	}
	syms := e.symbolsLocked()
	e.mu.Unlock()
	e.announce(syms)
	e.emit(Event{Kind: EventArmed, Algo: a.id, Symbol: s.Symbol, Time: now, Text: sprintf("#%d armed: %s", a.id, p)})
	if fireNow && s.Kind != KindBracket && hasTriggerThrough(p) {
		e.fireThrough(a, p)
	}
	if s.Kind == KindBracket {
		if err := e.sendEntry(a); err != nil {
			return e.view(a), err
		}
	} else if hasRestingTP(a) {
		e.positionChanged(s.Symbol)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.viewLocked(a), nil
}

// insertAlgo journals a new algo and gives it its id.
func (e *Engine) insertAlgo(a *algoState) error {
	e.mu.Lock()
	row := e.algoRowLocked(a)
	e.mu.Unlock()
	var id int64
	err := e.cfg.Store.Tx(func(tx *store.Tx) error {
		var err error
		id, err = tx.InsertAlgo(row)
		return err
	})
	if err != nil {
		return fmt.Errorf("%w: %v", errNotJournaled, err)
	}
	a.id = ID(id)
	return nil
}

// hasTriggerThrough: a watched (not resting) leg is through the market.
func hasTriggerThrough(p Preview) bool {
	for _, l := range p.Legs {
		if l.Through && (l.Leg == LegStop || (l.Leg == LegTP && p.Spec.TPMarket)) {
			return true
		}
	}
	return false
}

// fireThrough fires an algo armed through the market, as chosen.
func (e *Engine) fireThrough(a *algoState, p Preview) {
	var leg LegPreview
	for _, l := range p.Legs {
		if l.Through {
			leg = l
			break
		}
	}
	now := e.cfg.Now()
	f := &Firing{Leg: leg.Leg, Level: leg.Trigger, Price: p.Market, Source: leg.Source, VenueTime: now, At: now,
		Why: sprintf("already through when armed (%s %s vs %s %s), fired as chosen", leg.Source, p.Market, leg.Leg, leg.Trigger)}
	e.mu.Lock()
	if !a.state.Final() && !a.busy {
		e.fireLocked(a, f)
	}
	e.mu.Unlock()
}

// sendEntry sends a bracket's entry (ordinary budget: it opens, it does
// not protect). A refusal ends the bracket with the reason.
func (e *Engine) sendEntry(a *algoState) error {
	en := a.spec.Entry
	o := trade.Order{Symbol: a.spec.Symbol, Side: en.Side, Type: en.Type, Quantity: en.Quantity}
	if en.Type.UserPriced() || en.Type == trade.Ask || en.Type == trade.Bid {
		o.Price = en.Price
	}
	if en.Type == trade.Ask || en.Type == trade.Bid {
		o.Price = decimal.Zero
		if b, err := e.marketPrice(a.spec.Symbol, map[trade.Type]Source{trade.Ask: SourceAsk, trade.Bid: SourceBid}[en.Type]); err == nil {
			o.Price = b
		}
	}
	_, err := e.sendChild(a, LegEntry, o, nil, false)
	if err == nil {
		return nil
	}
	if errors.Is(err, errUnsettled) {
		e.needsDecision(a, "the entry's send has no known result: "+err.Error())
		return err
	}
	e.finish(a, StateFailed, "entry refused: "+trade.Explain(err))
	return fmt.Errorf("bracket entry: %w", err)
}

// newTriggers builds the watched legs of an algo from its preview.
func (e *Engine) newTriggers(a *algoState, p Preview) []*trigger {
	stopAbove := p.Side == trade.Buy
	var out []*trigger
	for _, l := range p.Legs {
		switch {
		case l.Leg == LegStop && a.spec.Kind == KindTrail:
			t := &trigger{a: a, leg: LegStop, src: l.Source, above: stopAbove, dec: -1, trail: true,
				distDec: a.spec.TrailDistance, actDec: a.spec.Activation}
			if a.spec.TrailPercent.IsPositive() {
				t.ppm = a.spec.TrailPercent.Mul(decimal.NewFromInt(10_000)).IntPart()
			}
			out = append(out, t)
		case l.Leg == LegStop:
			out = append(out, &trigger{a: a, leg: LegStop, src: l.Source, above: stopAbove, levelDec: l.Trigger, dec: -1})
		case l.Leg == LegTP && a.spec.Kind == KindTP && a.spec.TPMarket:
			out = append(out, &trigger{a: a, leg: LegTP, src: l.Source, above: !stopAbove, levelDec: l.Trigger, dec: -1})
		}
	}
	return out
}

// primeTrailLocked starts a trailing stop at the market it was armed at.
func (e *Engine) primeTrailLocked(a *algoState, mkt decimal.Decimal) {
	s := e.bySym[a.spec.Symbol]
	for _, t := range a.triggers {
		if t.trail && s != nil && s.dec >= 0 && mkt.IsPositive() {
			t.follow(toFixed(mkt, s.dec, false))
		}
	}
}

// Cancel stops an algo: its triggers are disarmed at once, then its open
// children (resting take-profit, entry, a stop-limit's LIMIT) cancelled,
// each waited for until its final state. An exit already sent is not
// recalled: the error says so. why is the reason its state, its event and
// the database keep ("cancelled by alert 3 (...)"); "" is the user's own
// cancel: "cancelled by the user".
func (e *Engine) Cancel(id ID, why string) error {
	if why == "" {
		why = CancelledByUser
	}
	return e.cancel(func(a *algoState) bool { return a.id == id }, why, id)
}

// CancelledByUser is the reason of a cancel that gives none.
const CancelledByUser = "cancelled by the user"

// CancelAll stops every algo of the account (or of one symbol) before
// anything else: flatten, panic cancel and read-only call it first, so no
// algo re-places an order behind them.
func (e *Engine) CancelAll(sc Scope) error {
	why := sc.Why
	if why == "" {
		why = CancelledByUser
	}
	return e.cancel(func(a *algoState) bool { return sc.Symbol == "" || a.spec.Symbol == sc.Symbol }, why, 0)
}

func (e *Engine) cancel(match func(*algoState) bool, why string, id ID) error {
	e.mu.Lock()
	var hit, working []*algoState
	var open []*child
	var inflight []string
	for _, a := range e.algos {
		if !match(a) || a.state.Final() {
			continue
		}
		a.cancelled = true
		e.disarmLocked(a)
		a.state, a.reason, a.updated = StateCancelled, why, e.cfg.Now()
		hit = append(hit, a)
		if a.work != nil {
			// Working orders stop first; their children are cancelled under
			// the runner's act lock (a child in flight is not missed).
			e.dropWorkLocked(a)
			working = append(working, a)
			continue
		}
		for _, c := range a.children {
			if c.open() {
				if c.leg == LegStop || c.leg == LegFix || (c.leg == LegTP && a.spec.TPMarket) {
					inflight = append(inflight, sprintf("#%d exit %d", a.id, c.cid))
				}
				open = append(open, c)
			}
		}
	}
	rows := make([]store.AlgoRow, len(hit))
	for i, a := range hit {
		rows[i] = e.algoRowLocked(a)
	}
	syms := e.symbolsLocked()
	e.mu.Unlock()
	if id != 0 && len(hit) == 0 {
		e.mu.Lock()
		a := e.algos[id]
		e.mu.Unlock()
		if a == nil {
			return fmt.Errorf("algo %d: %w", id, ErrNotFound)
		}
		return fmt.Errorf("algo %d: %w", id, ErrFinal)
	}
	err := e.cfg.Store.Tx(func(tx *store.Tx) error {
		for _, r := range rows {
			if err := tx.UpdateAlgo(r); err != nil {
				return err
			}
		}
		return nil
	})
	for _, a := range hit {
		e.emit(Event{Kind: EventCancelled, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(), Text: sprintf("#%d %s %s: %s", a.id, a.spec.Label(), a.spec.Symbol, why)})
	}
	e.announce(syms)
	inflight = append(inflight, e.stopWorking(working)...)
	for _, c := range open {
		e.cancelChild(c)
	}
	if err != nil {
		return fmt.Errorf("cancelled, but not journaled: %w", err)
	}
	if len(inflight) > 0 {
		return fmt.Errorf("cancelled; exits already sent stay with the venue: %s", strings.Join(inflight, ", "))
	}
	return nil
}

// AmendTrigger moves a leg's level (a stop, a take-profit). The new level
// must not be through the market: amending never fires.
func (e *Engine) AmendTrigger(id ID, leg Leg, price decimal.Decimal) error {
	if !price.IsPositive() {
		return fmt.Errorf("algo %d: price %s is not positive", id, price)
	}
	e.mu.Lock()
	a := e.algos[id]
	if a == nil {
		e.mu.Unlock()
		return fmt.Errorf("algo %d: %w", id, ErrNotFound)
	}
	if a.state.Final() || a.busy || a.state == StateTriggered {
		e.mu.Unlock()
		return fmt.Errorf("algo %d: %w", id, ErrFinal)
	}
	spec := a.spec
	side := a.side
	e.mu.Unlock()
	switch {
	case leg == LegStop && (spec.Kind == KindStop):
		spec.Trigger = price
	case leg == LegStop && (spec.Kind == KindOCO || spec.Kind == KindBracket):
		spec.SL = price
	case leg == LegTP && spec.Kind == KindTP:
		spec.Trigger = price
	case leg == LegTP && (spec.Kind == KindOCO || spec.Kind == KindBracket):
		spec.TP = price
	default:
		return fmt.Errorf("algo %d: a %s has no %s level to amend", id, spec.Label(), leg)
	}
	r, err := e.rule(spec.Symbol)
	if err != nil {
		return err
	}
	mkt, err := e.marketPrice(spec.Symbol, spec.Source)
	if err != nil {
		return err
	}
	for _, l := range e.legs(spec, side, mkt, r) {
		if l.Leg == leg && l.Through {
			return fmt.Errorf("algo %d: %w: %s %s vs %s %s", id, ErrThrough, spec.Source, mkt, leg, l.Trigger)
		}
	}
	e.mu.Lock()
	// The algo may have fired or been cancelled while the lock was let go
	// for the market read: amending then would move a level nobody watches.
	if a.state.Final() || a.busy || a.state == StateTriggered {
		e.mu.Unlock()
		return fmt.Errorf("algo %d: %w", id, ErrFinal)
	}
	// Only the amended level is written: the rest of the spec (its symbol
	// above all) is read without the lock by the exits' goroutines.
	switch {
	case spec.Kind == KindStop || spec.Kind == KindTP:
		a.spec.Trigger = spec.Trigger
	case leg == LegStop:
		a.spec.SL = spec.SL
	default:
		a.spec.TP = spec.TP
	}
	a.updated = e.cfg.Now()
	for _, l := range e.legs(spec, side, mkt, r) {
		for _, t := range a.triggers {
			if t.leg == l.Leg && l.Leg == leg && !t.trail {
				t.levelDec, t.dec = l.Trigger, -1
				if s := e.bySym[spec.Symbol]; s != nil && s.dec >= 0 {
					t.setScale(s.dec)
				}
			}
		}
	}
	row := e.algoRowLocked(a)
	e.mu.Unlock()
	if err := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.UpdateAlgo(row) }); err != nil {
		return fmt.Errorf("%w: %v", errNotJournaled, err)
	}
	e.emit(Event{Kind: EventArmed, Algo: id, Symbol: spec.Symbol, Time: e.cfg.Now(), Text: sprintf("#%d %s moved to %s", id, leg, price)})
	if leg == LegTP && hasRestingTP(a) {
		e.positionChanged(spec.Symbol)
	}
	return nil
}

// Decision is the user's answer to an algo that needs one.
type Decision uint8

const (
	// DecisionResume arms the algo again as it stands on the venue now (a
	// bracket's entry that never reached the venue is sent again).
	DecisionResume Decision = iota + 1
	// DecisionCancel cancels it.
	DecisionCancel
)

// Resolve answers an algo in "needs decision".
func (e *Engine) Resolve(id ID, d Decision) error {
	e.mu.Lock()
	a := e.algos[id]
	if a == nil {
		e.mu.Unlock()
		return fmt.Errorf("algo %d: %w", id, ErrNotFound)
	}
	if a.state != StateNeedsDecision {
		e.mu.Unlock()
		return fmt.Errorf("algo %d: %w", id, ErrNoDecision)
	}
	e.mu.Unlock()
	if d == DecisionCancel {
		return e.Cancel(id, "")
	}
	if a.work != nil {
		return e.resolveWork(a)
	}
	e.mu.Lock()
	entryMissing := a.spec.Kind == KindBracket && openChildLocked(a, LegEntry) == nil && !a.entryFilled.IsPositive()
	a.state, a.reason = StateArmed, "resumed by the user"
	if a.spec.Kind == KindBracket && !a.active {
		a.state = StateWaiting
	} else {
		e.armLocked(a)
	}
	row := e.algoRowLocked(a)
	e.mu.Unlock()
	if err := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.UpdateAlgo(row) }); err != nil {
		return err
	}
	if entryMissing {
		return e.sendEntry(a)
	}
	e.positionChanged(a.spec.Symbol)
	return nil
}

// finish puts an algo in a final state (journaled) and says so.
func (e *Engine) finish(a *algoState, st State, why string) {
	syms, ok := e.settleState(a, st, why)
	if !ok {
		return
	}
	kind := EventDone
	switch st {
	case StateFailed:
		kind = EventFailed
	case StateCancelled:
		kind = EventCancelled
	}
	e.emit(Event{Kind: kind, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(), Text: sprintf("#%d %s %s %s: %s", a.id, a.spec.Label(), a.spec.Symbol, st, why)})
	e.announce(syms)
}

// needsDecision parks an algo whose state could not be settled: it is
// shown, never guessed.
func (e *Engine) needsDecision(a *algoState, why string) {
	if _, ok := e.settleState(a, StateNeedsDecision, why); !ok {
		return
	}
	e.emit(Event{Kind: EventNeedsDecision, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(), Text: sprintf("#%d %s %s needs a decision: %s", a.id, a.spec.Label(), a.spec.Symbol, why)})
}

// settleState disarms an algo and journals its new state (false: it was
// already final); it returns the symbols still watched.
func (e *Engine) settleState(a *algoState, st State, why string) ([]string, bool) {
	e.mu.Lock()
	if a.state.Final() {
		e.mu.Unlock()
		return nil, false
	}
	e.disarmLocked(a)
	a.state, a.reason, a.updated = st, why, e.cfg.Now()
	if a.work != nil {
		e.dropWorkLocked(a)
	}
	row := e.algoRowLocked(a)
	syms := e.symbolsLocked()
	e.mu.Unlock()
	if st.Final() {
		e.endWork(a)
	}
	if err := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.UpdateAlgo(row) }); err != nil {
		e.logf("algo #%d: journal: %v", a.id, err)
	}
	return syms, true
}

// algoRowLocked is an algo's database row.
func (e *Engine) algoRowLocked(a *algoState) store.AlgoRow {
	spec, _ := json.Marshal(a.spec)
	anchor := ""
	for _, t := range a.triggers {
		if t.trail && t.anchor != 0 && t.dec >= 0 {
			anchor = decimalOf(t.anchor, t.dec).String()
		}
	}
	filled := a.exited
	if a.spec.Kind == KindBracket {
		filled = a.entryFilled
	}
	if a.work != nil {
		anchor = a.work.durable()
	}
	return store.AlgoRow{ID: int64(a.id), Account: e.cfg.Account, Kind: a.spec.Kind.String(), Symbol: a.spec.Symbol,
		Side: string(a.side), Spec: string(spec), Line: a.spec.String(), State: a.state.String(), Reason: a.reason,
		Anchor: anchor, Active: a.active, Filled: filled.String(), By: a.by, Created: a.created, Updated: a.updated}
}

// symbolsLocked lists the symbols of the algos not finished.
func (e *Engine) symbolsLocked() []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range e.algos {
		if !a.state.Final() && !seen[a.spec.Symbol] {
			seen[a.spec.Symbol] = true
			out = append(out, a.spec.Symbol)
		}
	}
	return out
}

func (e *Engine) announce(syms []string) {
	if e.cfg.OnSymbols != nil {
		e.cfg.OnSymbols(syms)
	}
}

// sym is a symbol's state (created when missing).
func (e *Engine) sym(symbol string) *symState {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.symLocked(symbol)
}
