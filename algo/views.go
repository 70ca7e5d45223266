package algo

import (
	"sort"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/trade"
)

func decimalOf(v int64, dec int) decimal.Decimal { return fixed.ToDecimal(v, dec) }

// Snapshot returns every algo the engine holds (those finished in this
// run included), by id: what the Algos tab and `algo list` show.
func (e *Engine) Snapshot() []Algo {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Algo, 0, len(e.algos))
	for _, a := range e.algos {
		out = append(out, e.viewLocked(a))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Get returns one algo.
func (e *Engine) Get(id ID) (Algo, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	a := e.algos[id]
	if a == nil {
		return Algo{}, false
	}
	return e.viewLocked(a), true
}

func (e *Engine) view(a *algoState) Algo {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.viewLocked(a)
}

func (e *Engine) viewLocked(a *algoState) Algo {
	v := Algo{ID: a.id, Spec: a.spec, Side: a.side, State: a.state, Reason: a.reason, Created: a.created,
		Updated: a.updated, By: a.by, Active: a.active, Filled: a.exited}
	if a.spec.Kind == KindBracket {
		v.Filled = a.entryFilled
	}
	if a.fired != nil {
		f := *a.fired
		v.Fired = &f
	}
	s := e.bySym[a.spec.Symbol]
	now := e.cfg.Now()
	for _, t := range a.triggers {
		tr := Trigger{Leg: t.leg, Price: t.levelDec, Source: t.src}
		if t.trail {
			if t.dec >= 0 && t.anchor != 0 {
				v.Anchor = fixed.ToDecimal(t.anchor, t.dec)
				v.Active = t.activeTr
			}
		}
		if s != nil && s.dec >= 0 {
			if p, _, ok := s.price(t.src, now, e.cfg.MaxAge); ok && tr.Price.IsPositive() {
				tr.Market = fixed.ToDecimal(p, s.dec)
				if t.above {
					tr.Distance = tr.Price.Sub(tr.Market)
				} else {
					tr.Distance = tr.Market.Sub(tr.Price)
				}
				tr.DistancePct = tr.Distance.Div(tr.Market).Mul(hundred).Round(2)
			}
		}
		v.Triggers = append(v.Triggers, tr)
	}
	if hasRestingTP(a) && a.spec.Kind != KindTP || (a.spec.Kind == KindTP && !a.spec.TPMarket) {
		v.Triggers = append(v.Triggers, Trigger{Leg: LegTP, Price: e.tpPriceLocked(a), Source: SourceLast})
	}
	for _, c := range a.children {
		v.Children = append(v.Children, c.view())
	}
	if a.work != nil {
		v.Work = e.progressLocked(a)
	}
	return v
}

// Protection says, for every position (perpetuals the engine has seen)
// and every symbol with an algo, what would close it and at which price,
// or that nothing does. Spot balances are listed where an algo watches
// them.
func (e *Engine) Protection() []Protection {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.cfg.Now()
	by := map[string]*Protection{}
	get := func(sym string) *Protection {
		p := by[sym]
		if p == nil {
			p = &Protection{Symbol: sym, Position: e.pos[sym], Fresh: e.marketLive.Load()}
			by[sym] = p
		}
		return p
	}
	for sym, h := range e.pos {
		if !h.IsZero() {
			get(sym)
		}
	}
	ids := make([]ID, 0, len(e.algos))
	for id := range e.algos {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		a := e.algos[id]
		if a.state.Final() || a.state == StateRefused || a.work != nil {
			continue
		}
		p := get(a.spec.Symbol)
		s := e.bySym[a.spec.Symbol]
		for _, t := range a.triggers {
			if t.leg != LegStop || !t.armed || !t.levelDec.IsPositive() {
				continue
			}
			if p.Stop.IsZero() || nearer(t.above, t.levelDec, p.Stop) {
				p.Stop, p.StopAlgo = t.levelDec, a.id
			}
			if s == nil {
				p.Fresh = false
			} else if _, _, ok := s.price(t.src, now, e.cfg.MaxAge); !ok {
				p.Fresh = false
			}
			p.Covered = p.Covered.Add(e.coverLocked(a, p.Position.Abs()))
		}
		if hasRestingTP(a) {
			if c := openChildLocked(a, LegTP); c != nil && (p.TP.IsZero() || nearer(a.side == trade.Sell, p.TP, c.price)) {
				p.TP, p.TPAlgo = c.price, a.id
			}
		}
	}
	out := make([]Protection, 0, len(by))
	for _, p := range by {
		p.Text = protectionText(p)
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Symbol < out[j].Symbol })
	return out
}

// coverLocked is how much of the position an algo's stop closes.
func (e *Engine) coverLocked(a *algoState, avail decimal.Decimal) decimal.Decimal {
	if a.spec.Kind == KindBracket {
		return a.entryFilled.Sub(a.exited)
	}
	v := e.plannedLocked(a, avail)
	if v.GreaterThan(avail) {
		return avail
	}
	return v
}

// nearer: level a is closer to the market than b (a long's stop: higher).
func nearer(above bool, a, b decimal.Decimal) bool {
	if above {
		return a.LessThan(b)
	}
	return a.GreaterThan(b)
}

func protectionText(p *Protection) string {
	if p.Stop.IsZero() {
		if p.TP.IsPositive() {
			return sprintf("UNPROTECTED (tp %s #%d, no stop)", p.TP, p.TPAlgo)
		}
		return "UNPROTECTED"
	}
	t := sprintf("stop %s #%d", p.Stop, p.StopAlgo)
	if p.TP.IsPositive() {
		t += sprintf(", tp %s #%d", p.TP, p.TPAlgo)
	}
	if !p.Position.IsZero() && p.Covered.LessThan(p.Position.Abs()) {
		t += sprintf(", covers %s of %s", p.Covered, p.Position.Abs())
	}
	if !p.Fresh {
		t += ", feed stale: nothing fires until it is back"
	}
	return t
}
