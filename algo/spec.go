// Package algo is tradedeck's protective-orders engine: stop-market,
// stop-limit, take-profit, OCO, bracket and trailing stop, run by the desk
// on top of the venue's plain order types. One Engine runs per account; it
// sees the market at full rate as a feed.Observer, journals every state
// change in SQLite (algo/store) before an order leaves, and reconciles
// with the venue before it arms anything after a start.
//
// The package is host-agnostic: the dashboard, serve and the headless desk
// build on the types of this file and of api.go (Spec, Preview, Algo,
// Event, Protection) and on the Engine's methods, never on its internals.
// docs/algos.md says what runs where and which test proves each rule.
package algo

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/trade"
)

// Kind is the kind of an algo.
type Kind uint8

const (
	KindStop    Kind = iota + 1 // stop-market, or stop-limit when Spec.Limit is set
	KindTP                      // take-profit: resting LIMIT, or MARKET at the trigger
	KindOCO                     // a take-profit and a stop on one position
	KindBracket                 // an entry with a take-profit and a stop attached
	KindTrail                   // trailing stop by percent or distance
)

// The working orders (issue 26): they buy or sell a quantity by working
// the book instead of protecting a position. Spec.Work says how.
const (
	KindChase Kind = iota + 6 // a LIMIT pegged to the best price of its side, on a leash
	KindScale                 // a ladder of LIMIT orders between two prices
	KindTWAP                  // a quantity sliced over a duration
)

var kindNames = [...]string{"", "stop", "tp", "oco", "bracket", "trail", "chase", "scale", "twap"}

// Working reports the working-order kinds (chase, scale, twap).
func (k Kind) Working() bool { return k == KindChase || k == KindScale || k == KindTWAP }

func (k Kind) String() string {
	if int(k) < len(kindNames) && k > 0 {
		return kindNames[k]
	}
	return "unknown"
}

// Label is the kind as a screen shows it (stop-limit for a stop with a
// limit price, tp-market for a take-profit at market).
func (s Spec) Label() string {
	switch {
	case s.Kind == KindStop && s.Limit.IsPositive():
		return "stop-limit"
	case s.Kind == KindTP && s.TPMarket:
		return "tp-market"
	}
	return s.Kind.String()
}

// Source is the price a trigger watches.
type Source uint8

const (
	// SourceDefault is resolved when the algo is previewed: the exit side
	// of the book (SourceExit) for every kind. The resolved source is what
	// the confirmation, the Algos tab and the database show.
	SourceDefault Source = iota
	SourceLast           // every public trade (a single print can fire it)
	SourceBid            // best bid
	SourceAsk            // best ask
	SourceMid            // (bid+ask)/2
	SourceMark           // the venue's mark price (perpetuals)
	// SourceExit is the best price the exit can trade at now: the bid for
	// a SELL exit (closing a long), the ask for a BUY exit. Resolved to
	// SourceBid or SourceAsk in Preview.
	SourceExit
)

var sourceNames = [...]string{"default", "last", "bid", "ask", "mid", "mark", "exit"}

func (s Source) String() string {
	if int(s) < len(sourceNames) {
		return sourceNames[s]
	}
	return "unknown"
}

// ParseSource reads a source name (last, bid, ask, mid, mark).
func ParseSource(s string) (Source, error) {
	for i, n := range sourceNames {
		if i > 0 && i != int(SourceExit) && strings.EqualFold(s, n) {
			return Source(i), nil
		}
	}
	return 0, fmt.Errorf("price source %q: one of last, bid, ask, mid, mark", s)
}

// resolve turns the default and exit sources into the book side the exit
// trades at.
func (s Source) resolve(exit trade.Side) Source {
	if s != SourceDefault && s != SourceExit {
		return s
	}
	if exit == trade.Buy {
		return SourceAsk
	}
	return SourceBid
}

// Size is how much of the position an exit closes. The zero value is the
// whole position, read when the exit is sent.
type Size struct {
	Qty     decimal.Decimal // a fixed base quantity (capped at the position when sent)
	Percent decimal.Decimal // (0, 100] of the position when sent
}

// Whole reports the default: the whole position.
func (z Size) Whole() bool { return z.Qty.IsZero() && z.Percent.IsZero() }

func (z Size) String() string {
	switch {
	case z.Qty.IsPositive():
		return z.Qty.String()
	case z.Percent.IsPositive():
		return z.Percent.String() + "%"
	}
	return "position"
}

// word is the size as the grammar's optional SIZE word (" 0.5", " 50%",
// nothing for the whole position).
func (z Size) word() string {
	if z.Whole() {
		return ""
	}
	return " " + z.String()
}

// AfterTrigger is what a triggered stop-limit does when its LIMIT child has
// not filled completely.
type AfterTrigger struct {
	// MarketAfter replaces what is left of the LIMIT child by a MARKET
	// order after this long; zero leaves it resting.
	MarketAfter time.Duration
}

func (p AfterTrigger) String() string {
	if p.MarketAfter > 0 {
		return "market after " + p.MarketAfter.String()
	}
	return "rest"
}

// Entry is a bracket's entry order.
type Entry struct {
	Side     trade.Side
	Type     trade.Type // any order type; MARKET when the grammar says "market"
	Price    decimal.Decimal
	Quantity decimal.Decimal
}

// Spec is what the user asks for: the grammar's result and the order
// form's. Prices are exact decimals; the engine aligns them to the
// symbol's tick conservatively (stops fire earlier, never later).
type Spec struct {
	Kind   Kind
	Symbol string
	Size   Size

	// Trigger is the stop's or take-profit's level.
	Trigger decimal.Decimal
	// Limit makes a stop a stop-limit: the LIMIT price of its child.
	Limit decimal.Decimal
	// After is a stop-limit's post-trigger policy.
	After AfterTrigger
	// TPMarket makes a take-profit a MARKET order at its trigger instead
	// of a resting LIMIT at its price.
	TPMarket bool

	// TP and SL are the two levels of an OCO and of a bracket.
	TP, SL decimal.Decimal

	// TrailPercent or TrailDistance (exactly one) is how far the trailing
	// stop follows the best price; Activation, when set, is the price the
	// market must reach before it starts trailing.
	TrailPercent  decimal.Decimal
	TrailDistance decimal.Decimal
	Activation    decimal.Decimal

	// Entry is a bracket's entry.
	Entry Entry

	// Source is the trigger's price source (SourceDefault: see Source).
	Source Source
	// FireIfThrough: a trigger already through the market when armed
	// fires at once (the grammar's "now"). Without it such an algo is
	// refused with the reason. The confirmation may set it too.
	FireIfThrough bool

	// Work is a working order's (chase, scale, twap) side, quantity and
	// rules; the protective kinds leave it zero.
	Work Work
}

func (s Spec) String() string {
	if s.Kind.Working() {
		return s.workString()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", s.Kind, s.Symbol)
	switch s.Kind {
	case KindStop:
		fmt.Fprintf(&b, " %s%s", s.Trigger, s.Size.word())
		if s.Limit.IsPositive() {
			fmt.Fprintf(&b, " limit %s", s.Limit)
			if s.After.MarketAfter > 0 {
				fmt.Fprintf(&b, " market-after %s", s.After.MarketAfter)
			}
		}
	case KindTP:
		fmt.Fprintf(&b, " %s%s", s.Trigger, s.Size.word())
		if s.TPMarket {
			b.WriteString(" market")
		}
	case KindOCO:
		fmt.Fprintf(&b, " %s %s%s", s.TP, s.SL, s.Size.word())
	case KindTrail:
		if s.TrailPercent.IsPositive() {
			fmt.Fprintf(&b, " %s%%", s.TrailPercent)
		} else {
			fmt.Fprintf(&b, " %s", s.TrailDistance)
		}
		b.WriteString(s.Size.word())
		if s.Activation.IsPositive() {
			fmt.Fprintf(&b, " from %s", s.Activation)
		}
	case KindBracket:
		e := s.Entry
		fmt.Fprintf(&b, " %s %s at ", strings.ToLower(string(e.Side)), e.Quantity)
		if e.Type == trade.Market {
			b.WriteString("market")
		} else {
			b.WriteString(e.Price.String())
			if e.Type != trade.Limit {
				fmt.Fprintf(&b, " type %s", strings.ToLower(string(e.Type)))
			}
		}
		fmt.Fprintf(&b, " tp %s sl %s", s.TP, s.SL)
	}
	if s.Source != SourceDefault {
		fmt.Fprintf(&b, " on %s", s.Source)
	}
	if s.FireIfThrough {
		b.WriteString(" now")
	}
	return b.String()
}

// Check reports what makes a spec impossible whatever the market: missing
// or non-positive prices, sizes out of range, both trailing forms.
func (s Spec) Check() error {
	bad := func(f string, a ...any) error {
		return fmt.Errorf("%s %s: "+f, append([]any{s.Kind, s.Symbol}, a...)...)
	}
	if s.Symbol == "" {
		return fmt.Errorf("%s: no symbol", s.Kind)
	}
	if s.Size.Qty.IsNegative() || s.Size.Percent.IsNegative() || s.Size.Percent.GreaterThan(hundred) {
		return bad("size %s is not a positive quantity or a percent in (0, 100]", s.Size)
	}
	if s.Kind.Working() {
		return s.checkWork(bad)
	}
	if s.Source == SourceMark && !trade.IsPerp(s.Symbol) {
		return bad("the mark price is a perpetual's; use last, bid, ask or mid")
	}
	switch s.Kind {
	case KindStop, KindTP:
		if !s.Trigger.IsPositive() {
			return bad("trigger price %s is not positive", s.Trigger)
		}
		if s.Limit.IsNegative() {
			return bad("limit price %s is negative", s.Limit)
		}
	case KindOCO:
		if !s.TP.IsPositive() || !s.SL.IsPositive() {
			return bad("take-profit %s and stop %s must be positive", s.TP, s.SL)
		}
		if s.TP.Equal(s.SL) {
			return bad("take-profit and stop are the same price %s", s.TP)
		}
	case KindTrail:
		if s.TrailPercent.IsPositive() == s.TrailDistance.IsPositive() {
			return bad("give the trail as a percent (2%%) or a price distance (150), one of them")
		}
		if s.TrailPercent.GreaterThanOrEqual(hundred) {
			return bad("trail %s%% must be below 100%%", s.TrailPercent)
		}
	case KindBracket:
		e := s.Entry
		if e.Side != trade.Buy && e.Side != trade.Sell {
			return bad("entry side must be buy or sell")
		}
		if !e.Quantity.IsPositive() {
			return bad("entry quantity %s is not positive", e.Quantity)
		}
		if e.Type.UserPriced() && !e.Price.IsPositive() {
			return bad("a %s entry needs a price", e.Type)
		}
		if !s.TP.IsPositive() || !s.SL.IsPositive() {
			return bad("take-profit %s and stop %s must be positive", s.TP, s.SL)
		}
		long := e.Side == trade.Buy
		if (long && !(s.SL.LessThan(s.TP))) || (!long && !(s.SL.GreaterThan(s.TP))) {
			return bad("for a %s entry the stop %s must be on the losing side of the take-profit %s", strings.ToLower(string(e.Side)), s.SL, s.TP)
		}
		if e.Price.IsPositive() && e.Type.UserPriced() && (e.Price.LessThanOrEqual(decimal.Min(s.SL, s.TP)) || e.Price.GreaterThanOrEqual(decimal.Max(s.SL, s.TP))) {
			return bad("the entry %s must lie between the stop %s and the take-profit %s", e.Price, s.SL, s.TP)
		}
	default:
		return fmt.Errorf("unknown algo kind %d", s.Kind)
	}
	return nil
}

var hundred = decimal.NewFromInt(100)
