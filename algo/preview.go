package algo

import (
	"context"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
	"tradedeck/trade"
)

// Preview is what the confirmation shows for a spec: the exit side and
// size now, reduce-only, each leg's trigger and source with its distance
// to the market, and whether one is already through the market. It reads
// the position (and the market when the engine has no fresh price).
func (e *Engine) Preview(s Spec) (Preview, error) {
	if err := s.Check(); err != nil {
		return Preview{}, err
	}
	if s.Kind.Working() {
		return e.workPreview(s)
	}
	r, err := e.rule(s.Symbol)
	if err != nil {
		return Preview{}, err
	}
	perp := trade.IsPerp(s.Symbol)
	p := Preview{ReduceOnly: perp}
	if s.Kind == KindBracket {
		p.Side, p.Size = s.Entry.Side.Opposite(), s.Entry.Quantity
	} else {
		pos, err := e.protectable(s.Symbol)
		if err != nil {
			return Preview{}, fmt.Errorf("%s %s: the position could not be read: %w", s.Kind, s.Symbol, err)
		}
		p.Position = pos
		switch {
		case pos.IsPositive():
			p.Side = trade.Sell
		case pos.IsNegative() && perp:
			p.Side = trade.Buy
		default:
			what := "position"
			if !perp {
				what = "free " + trade.Base(s.Symbol) + " balance"
			}
			return Preview{}, fmt.Errorf("%s %s: %w: no %s", s.Kind, s.Symbol, ErrNothing, what)
		}
		e.mu.Lock()
		p.Size = r.AlignQty(e.plannedLocked(&algoState{spec: s}, pos.Abs()), trade.Down)
		e.mu.Unlock()
		if p.Size.GreaterThan(pos.Abs()) {
			p.Size = pos.Abs()
		}
		if perp && s.Size.Whole() {
			p.Size = pos.Abs()
		}
		if p.Size.LessThan(r.BaseMin) {
			return Preview{}, fmt.Errorf("%s %s: size %s is below the lot size %s", s.Kind, s.Symbol, p.Size, r.BaseMin)
		}
	}
	s.Source = s.Source.resolve(p.Side)
	p.Spec = s
	mkt, err := e.marketPrice(s.Symbol, s.Source)
	if err != nil {
		return Preview{}, err
	}
	p.Market = mkt
	p.Legs = e.legs(s, p.Side, mkt, r)
	for _, l := range p.Legs {
		if l.Through {
			p.Through = append(p.Through, l.Leg.String())
		}
	}
	if s.Kind == KindStop && s.Limit.IsPositive() && r.PriceRange.IsPositive() {
		band := s.Trigger.Mul(r.PriceRange)
		if s.Limit.Sub(s.Trigger).Abs().GreaterThan(band) {
			p.Warnings = append(p.Warnings, sprintf("the limit %s is more than the venue's price range (%s%%) from the trigger: it may be refused", s.Limit, r.PriceRange.Mul(hundred)))
		}
	}
	return p, nil
}

// legs lists what a spec watches and rests, with distances to the market.
func (e *Engine) legs(s Spec, side trade.Side, mkt decimal.Decimal, r trade.Rule) []LegPreview {
	stopAbove := side == trade.Buy // a short's stop fires above
	dist := func(l *LegPreview, above bool) {
		if !mkt.IsPositive() {
			return
		}
		if above {
			l.Distance = l.Trigger.Sub(mkt)
		} else {
			l.Distance = mkt.Sub(l.Trigger)
		}
		l.DistancePct = l.Distance.Div(mkt).Mul(hundred).Round(2)
		l.Through = !l.Distance.IsPositive()
	}
	stop := func(level decimal.Decimal) LegPreview {
		l := LegPreview{Leg: LegStop, Trigger: level, Source: s.Source, Order: "MARKET"}
		if s.Limit.IsPositive() {
			l.Order = "LIMIT " + s.Limit.String() + ", then " + s.After.String()
		}
		dist(&l, stopAbove)
		return l
	}
	tp := func(level decimal.Decimal, market bool) LegPreview {
		l := LegPreview{Leg: LegTP, Trigger: level, Source: s.Source, Order: "resting LIMIT " + level.String()}
		if market {
			l.Order = "MARKET"
		}
		dist(&l, !stopAbove)
		return l
	}
	align := func(p decimal.Decimal, up bool) decimal.Decimal {
		if up {
			return r.AlignPrice(p, trade.Up)
		}
		return r.AlignPrice(p, trade.Down)
	}
	switch s.Kind {
	case KindStop:
		// A long's stop is rounded up, a short's down: it fires no later.
		return []LegPreview{stop(align(s.Trigger, !stopAbove))}
	case KindTP:
		return []LegPreview{tp(align(s.Trigger, side == trade.Sell), s.TPMarket)}
	case KindOCO, KindBracket:
		ls := []LegPreview{tp(align(s.TP, side == trade.Sell), false), stop(align(s.SL, !stopAbove))}
		if s.Kind == KindBracket {
			ls = append([]LegPreview{{Leg: LegEntry, Trigger: s.Entry.Price, Order: string(s.Entry.Type) + " " + string(s.Entry.Side) + " " + s.Entry.Quantity.String()}}, ls...)
		}
		return ls
	case KindTrail:
		l := LegPreview{Leg: LegStop, Source: s.Source, Order: "MARKET"}
		anchor := mkt
		if s.Activation.IsPositive() {
			anchor = s.Activation
			l.Order = "MARKET, trailing from " + s.Activation.String()
		}
		if anchor.IsPositive() {
			d := s.TrailDistance
			if s.TrailPercent.IsPositive() {
				d = anchor.Mul(s.TrailPercent).Div(hundred)
			}
			if stopAbove {
				l.Trigger = align(anchor.Add(d), false)
			} else {
				l.Trigger = align(anchor.Sub(d), true)
			}
			dist(&l, stopAbove)
			l.Through = false // a trailing stop starts at its distance
		}
		return []LegPreview{l}
	}
	return nil
}

// protectable is what an exit of the symbol can close now: the signed
// perpetual position, or the free spot base balance plus what the
// engine's own resting take-profits freeze.
func (e *Engine) protectable(symbol string) (decimal.Decimal, error) {
	if trade.IsPerp(symbol) {
		e.mu.Lock()
		p, seen := e.pos[symbol]
		e.mu.Unlock()
		if seen {
			return p, nil
		}
		return e.readPosition(symbol)
	}
	free, err := e.freeBase(symbol)
	if err != nil {
		return decimal.Zero, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, a := range e.algos {
		if a.spec.Symbol == symbol {
			if c := openChildLocked(a, LegTP); c != nil {
				free = free.Add(c.remaining())
			}
		}
	}
	return free, nil
}

// marketPrice is the source's price: the engine's fresh one, else the
// venue's now (book, last trade, mark). Zero when the venue has none.
func (e *Engine) marketPrice(symbol string, src Source) (decimal.Decimal, error) {
	now := e.cfg.Now()
	e.mu.Lock()
	if s := e.bySym[symbol]; s != nil && s.dec >= 0 {
		if v, _, ok := s.price(src, now, e.cfg.MaxAge); ok {
			dec := s.dec
			e.mu.Unlock()
			return fixed.ToDecimal(v, dec), nil
		}
	}
	e.mu.Unlock()
	ctx, cancel := e.call(false)
	defer cancel()
	return e.venuePrice(ctx, symbol, src)
}

// venuePrice is the source's price as the venue gives it now (book,
// last trade, mark), in ctx's budget. Zero when the venue has none.
func (e *Engine) venuePrice(ctx context.Context, symbol string, src Source) (decimal.Decimal, error) {
	switch src {
	case SourceLast:
		ts, err := e.cfg.Venue.MarketTrades(ctx, symbol, 1)
		if err != nil || len(ts) == 0 {
			return decimal.Zero, err
		}
		return ts[0].ExecutedPrice, nil
	case SourceMark:
		fi, err := e.cfg.Venue.FuturesInfo(ctx, symbol)
		return fi.MarkPrice, err
	}
	b, err := e.cfg.Venue.OrderBook(ctx, symbol, 1)
	if err != nil {
		return decimal.Zero, err
	}
	var bid, ask decimal.Decimal
	if len(b.Bids) > 0 {
		bid = b.Bids[0].Price
	}
	if len(b.Asks) > 0 {
		ask = b.Asks[0].Price
	}
	switch src {
	case SourceBid:
		return bid, nil
	case SourceAsk:
		return ask, nil
	}
	if bid.IsPositive() && ask.IsPositive() {
		return bid.Add(ask).Div(decimal.NewFromInt(2)), nil
	}
	return decimal.Zero, nil
}

// rule is a symbol's trading rule (all loaded at once, on first need).
func (e *Engine) rule(symbol string) (trade.Rule, error) {
	e.mu.Lock()
	ri, ok := e.rules[symbol]
	e.mu.Unlock()
	if ok {
		return ri.rule, nil
	}
	ctx, cancel := e.call(false)
	defer cancel()
	rows, err := e.cfg.Venue.SymbolRules(ctx)
	if err != nil {
		return trade.Rule{}, fmt.Errorf("symbol rules: %w", err)
	}
	e.mu.Lock()
	for _, r := range rows {
		e.rules[r.Symbol] = ruleInfo{rule: trade.RuleOf(r)}
	}
	ri, ok = e.rules[symbol]
	e.mu.Unlock()
	if !ok {
		return trade.Rule{}, fmt.Errorf("unknown symbol %s", symbol)
	}
	return ri.rule, nil
}

// describe is the one line of a preview (the headless desk's and
// `algo add`'s confirmation text).
func (p Preview) String() string {
	if p.Work != nil {
		return p.workString()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s %s", p.Spec.Label(), p.Spec.Symbol, p.Side, p.Size)
	if p.ReduceOnly {
		b.WriteString(" reduce-only")
	}
	for _, l := range p.Legs {
		fmt.Fprintf(&b, "; %s", l.Leg)
		if l.Trigger.IsPositive() {
			fmt.Fprintf(&b, " %s", l.Trigger)
		}
		if l.Leg != LegEntry {
			fmt.Fprintf(&b, " on %s", l.Source)
		}
		fmt.Fprintf(&b, " -> %s", l.Order)
		if l.Leg != LegEntry && p.Market.IsPositive() {
			fmt.Fprintf(&b, " (%s%% away)", l.DistancePct)
		}
		if l.Through {
			b.WriteString(" ALREADY THROUGH")
		}
	}
	if p.Market.IsPositive() {
		fmt.Fprintf(&b, "; market %s %s", p.Spec.Source, p.Market)
	}
	for _, w := range p.Warnings {
		b.WriteString("; " + w)
	}
	return b.String()
}
