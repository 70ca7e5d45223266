package algo

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo/store"
	"tradedeck/fixed"
	"tradedeck/trade"
)

// reconcile loads the account's open algos and settles each with the
// venue before anything is armed: every child not known final is read by
// its client order id, positions are read, and a trigger the market
// crossed while no engine ran (the venue's trades since the last
// journaled moment tell) fires at once, saying why. What cannot be
// settled is parked as "needs decision".
func (e *Engine) reconcile() error {
	rows, err := e.cfg.Store.Algos(e.cfg.Account, true)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	if err := e.readPositions(); err != nil {
		return fmt.Errorf("positions: %w", err)
	}
	for _, row := range rows {
		a, err := e.load(row)
		if err != nil {
			e.logf("algo #%d: not loaded: %v", row.ID, err)
			continue
		}
		e.settle(a)
	}
	return nil
}

// readPositions reads every perpetual position from REST.
func (e *Engine) readPositions() error {
	ctx, cancel := e.call(true)
	defer cancel()
	ps, err := e.cfg.Venue.Positions(ctx)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range ps.Positions {
		e.pos[p.Symbol], e.posSeen[p.Symbol] = p.Holding, true
	}
	return nil
}

// load rebuilds an algo from its rows.
func (e *Engine) load(row store.AlgoRow) (*algoState, error) {
	var spec Spec
	if err := json.Unmarshal([]byte(row.Spec), &spec); err != nil {
		return nil, err
	}
	r, err := e.rule(spec.Symbol)
	if err != nil {
		return nil, err
	}
	a := &algoState{id: ID(row.ID), spec: spec, side: trade.Side(row.Side), perp: trade.IsPerp(spec.Symbol),
		state: stateOf(row.State), reason: row.Reason, by: row.By, created: row.Created, updated: row.Updated,
		active: row.Active, attempts: map[Leg]int{}}
	p := Preview{Spec: spec, Side: a.side}
	p.Legs = e.legs(spec, a.side, decimal.Zero, r)
	a.triggers = e.newTriggers(a, p)
	dec := fixed.DecimalsOf(r.QuoteTick)
	for _, t := range a.triggers {
		t.setScale(dec)
		if t.trail && row.Anchor != "" {
			if v, err := decimal.NewFromString(row.Anchor); err == nil {
				t.follow(toFixed(v, dec, false))
			}
		}
	}
	kids, err := e.cfg.Store.Children(row.ID)
	if err != nil {
		return nil, err
	}
	if spec.Kind.Working() {
		a.work = newWorkState(r)
		a.work.restore(row.Anchor)
		a.work.loaded = true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, k := range kids {
		c := &child{a: a, cid: k.CID, leg: Leg(k.Leg), attempt: k.Attempt, side: trade.Side(k.Side), typ: trade.Type(k.Type),
			price: dec0(k.Price), qty: dec0(k.Quantity), reduceOnly: k.ReduceOnly, status: k.Status, orderID: k.OrderID,
			avg: dec0(k.AvgPrice), reason: k.Reason, created: k.Created, updated: k.Updated, news: make(chan struct{}, 1)}
		e.addExecutedLocked(c, dec0(k.Executed))
		a.children = append(a.children, c)
		e.cids[c.cid] = c
		if k.Attempt+1 > a.attempts[c.leg] {
			a.attempts[c.leg] = k.Attempt + 1
		}
	}
	if tr, ok, _ := e.cfg.Store.LastTrigger(row.ID); ok {
		a.fired = &Firing{Leg: Leg(tr.Leg), Level: dec0(tr.Level), Price: dec0(tr.Price), Source: sourceOf(tr.Source),
			VenueTime: time.UnixMilli(tr.VenueMS), At: tr.At, Age: time.Duration(tr.AgeMS) * time.Millisecond, Why: tr.Why}
	}
	e.algos[a.id] = a
	e.symLocked(spec.Symbol)
	if a.work != nil {
		e.initWorkLocked(a)
	}
	return a, nil
}

// settle brings one loaded algo to a state it can run in.
func (e *Engine) settle(a *algoState) {
	e.mu.Lock()
	var open []*child
	for _, c := range a.children {
		if c.open() {
			open = append(open, c)
		}
	}
	e.mu.Unlock()
	for _, c := range open {
		if e.lookupChild(c) == lookupFailed {
			e.needsDecision(a, sprintf("child %d (%s) could not be read from the venue", c.cid, c.leg))
			return
		}
	}
	if a.work != nil {
		return // its runner starts once the engine is ready and works from here
	}
	e.mu.Lock()
	st := a.state
	entryLost := a.spec.Kind == KindBracket && !a.entryFilled.IsPositive() && openChildLocked(a, LegEntry) == nil && lostEntry(a)
	e.mu.Unlock()
	switch st {
	case StateNeedsDecision:
		return
	case StateTriggered:
		e.resume(a)
		return
	}
	if entryLost {
		e.needsDecision(a, "the bracket's entry never reached the venue (the engine stopped while sending it): send it again or cancel")
		return
	}
	if f := e.crossedWhileDown(a); f != nil {
		if e.adoptLost(a, f) {
			e.resume(a)
			return
		}
		e.mu.Lock()
		e.fireLocked(a, f)
		e.mu.Unlock()
		return
	}
	e.mu.Lock()
	if a.spec.Kind != KindBracket || a.entryFilled.IsPositive() {
		a.active = a.active || a.spec.Kind == KindBracket
		if a.spec.Kind == KindBracket {
			a.state = StateArmed
		}
		e.armLocked(a)
	}
	e.mu.Unlock()
}

// adoptLost asks the venue for the exit an algo would have sent next:
// ids are deterministic, so an exit that left in the moment before a
// power loss took the journal's last commits with it is found and
// adopted (the algo resumes), never sent a second time.
func (e *Engine) adoptLost(a *algoState, f *Firing) bool {
	e.mu.Lock()
	cid := ClientOrderID(e.prefix, a.id, f.Leg, a.attempts[f.Leg])
	e.mu.Unlock()
	ctx, cancel := e.call(true)
	o, err := e.cfg.Venue.GetOrderByClientID(ctx, cid)
	cancel()
	if err != nil {
		return false
	}
	now := e.cfg.Now()
	e.mu.Lock()
	c := &child{a: a, cid: cid, leg: f.Leg, attempt: a.attempts[f.Leg], side: trade.Side(o.Side), typ: trade.Type(o.Type),
		price: o.Price.Decimal, qty: o.Quantity.Decimal, reduceOnly: bool(o.ReduceOnly), status: ChildSent, created: now,
		updated: now, news: make(chan struct{}, 1)}
	a.attempts[f.Leg]++
	a.children = append(a.children, c)
	e.cids[cid] = c
	e.applyChildLocked(c, string(o.Status), int64(o.OrderID), o.Executed, o.AverageExecutedPrice.Decimal, "")
	a.state, a.fired = StateTriggered, &Firing{Leg: f.Leg, Why: "an exit sent before the engine stopped was found on the venue (" + f.Why + ")"}
	row := e.algoRowLocked(a)
	e.mu.Unlock()
	e.journalChild(c)
	if err := e.cfg.Store.Tx(func(tx *store.Tx) error { return tx.UpdateAlgo(row) }); err != nil {
		e.logf("algo #%d: journal: %v", a.id, err)
	}
	return true
}

// lostEntry: the bracket's only entry child ended NOT_SENT.
func lostEntry(a *algoState) bool {
	for _, c := range a.children {
		if c.leg == LegEntry && c.status != ChildNotSent {
			return false
		}
	}
	return true
}

// resume continues the exit of an algo that had fired when its engine
// stopped: the open exit is worked; the position is read again; what is
// left is closed with the next attempt's id. Nothing is sent twice.
func (e *Engine) resume(a *algoState) {
	e.mu.Lock()
	f := a.fired
	if f == nil {
		f = &Firing{Leg: LegStop, Why: "fired before a restart"}
		a.fired = f
	}
	a.busy = true
	e.mu.Unlock()
	e.emit(Event{Kind: EventEngine, Algo: a.id, Symbol: a.spec.Symbol, Time: e.cfg.Now(),
		Text: sprintf("#%d %s %s had fired before the restart (%s): finishing its exit", a.id, a.spec.Label(), a.spec.Symbol, f.Why)})
	e.spawn(func() { e.exit(a, f, true) })
}

// tradeScan bounds the trades read per symbol at start.
const tradeScan = 500

// crossedWhileDown replays the venue's public trades since the last
// journaled moment (or the algo's creation) through its triggers: a stop
// the market crossed while no engine ran fires at once, as a stop held by
// the venue would have, and the firing says which trade crossed it. A
// trade at P means both sides of the book were at P then, so the trades
// stand for every source.
func (e *Engine) crossedWhileDown(a *algoState) *Firing {
	if len(a.triggers) == 0 {
		return nil
	}
	since, err := e.cfg.Store.Watermark(e.cfg.Account, a.spec.Symbol)
	if err != nil {
		return nil
	}
	since = max(since, a.created.UnixMilli())
	ctx, cancel := e.call(true)
	trades, err := e.cfg.Venue.MarketTrades(ctx, a.spec.Symbol, tradeScan)
	cancel()
	if err != nil {
		e.logf("algo #%d: trades since the restart not read: %v", a.id, err)
		return nil
	}
	sort.Slice(trades, func(i, j int) bool { return trades[i].ExecutedTimestamp.Before(trades[j].ExecutedTimestamp.Time) })
	now := e.cfg.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, tr := range trades {
		at := tr.ExecutedTimestamp.Time
		if at.UnixMilli() <= since {
			continue
		}
		for _, t := range a.triggers {
			if t.dec < 0 {
				continue
			}
			price := toFixed(tr.ExecutedPrice, t.dec, false)
			if t.trail {
				if t.follow(price) {
					a.anchorDirty = true
				}
				if t.anchor == 0 {
					continue
				}
			}
			if t.crossed(price) {
				return &Firing{Leg: t.leg, Level: t.levelDec, Price: tr.ExecutedPrice, Source: SourceLast, VenueTime: at, At: now,
					Age: now.Sub(at), Why: sprintf("crossed while no engine ran: trade %s at %s vs %s %s", tr.ExecutedPrice,
						at.UTC().Format("15:04:05.000"), t.leg, t.levelDec)}
			}
		}
	}
	return nil
}

func dec0(s string) decimal.Decimal {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero
	}
	return d
}

func stateOf(s string) State {
	for i, n := range stateNames {
		if n == s && i > 0 {
			return State(i)
		}
	}
	return StateNeedsDecision
}

func sourceOf(s string) Source {
	for i, n := range sourceNames {
		if n == s {
			return Source(i)
		}
	}
	return SourceLast
}
