package common

import (
	"github.com/shopspring/decimal"

	"tradedeck/algo"
)

// EngineState says where the protective-orders engine of the account runs,
// as the screens must tell it: nothing protects a position while no
// process runs it (docs/algos.md).
type EngineState uint8

const (
	// EngineNone: no process holds the engine of this account: algos wait
	// in the database and nothing fires.
	EngineNone EngineState = iota
	// EngineStarting: this process runs it, and it is reconciling with the
	// venue (nothing is armed yet).
	EngineStarting
	// EngineHere: this process runs it.
	EngineHere
	// EngineView: another process runs it; this screen is a view of it.
	EngineView
)

// Running reports whether some process runs the engine (this one or the
// one this screen is a view of).
func (s EngineState) Running() bool { return s == EngineHere || s == EngineView }

// Text is the state as a screen says it.
func (s EngineState) Text() string {
	switch s {
	case EngineStarting:
		return "engine starting (reconciling with the venue)"
	case EngineHere:
		return "engine running here"
	case EngineView:
		return "engine in another process (this screen is a view)"
	}
	return "engine not running"
}

// AlgoState is the latest snapshot of the account's algos, kept in the
// Store by the root (the engine's Snapshot and Protection, taken off the
// UI goroutine) and announced to the components by AlgosMsg. Panes read
// it while drawing: no engine call, no I/O in View.
type AlgoState struct {
	// Shown: this screen has the engine (or a view of it), so the Algos
	// tab and the positions' protection column are drawn.
	Shown  bool
	Engine EngineState
	// Where names the process running the engine when it is not this one
	// ("pid 4242"), or why it is not running; "" when nothing to add.
	Where      string
	List       []algo.Algo                // by id, finished ones of this run included
	Protection map[string]algo.Protection // by symbol
	// Version counts snapshots: a pane caches on it.
	Version uint64
}

// AlgosMsg announces a new AlgoState in the Store.
type AlgosMsg struct{}

// Level is a trigger level a pane marks (book, chart), or the price of
// a working order's open child (Leg algo.LegWork) or a chase's leash
// (LegWork, Leash).
type Level struct {
	Price decimal.Decimal
	Leg   algo.Leg
	ID    algo.ID
	Leash bool
}

// Levels appends the live trigger and resting take-profit levels of a
// symbol's unfinished algos to dst, and the working orders' open
// children and leashes (no allocation when dst has room).
func (a *AlgoState) Levels(dst []Level, symbol string) []Level {
	for i := range a.List {
		x := &a.List[i]
		if x.Spec.Symbol != symbol || x.State.Final() {
			continue
		}
		for _, t := range x.Triggers {
			if t.Price.IsPositive() {
				dst = append(dst, Level{Price: t.Price, Leg: t.Leg, ID: x.ID})
			}
		}
		if x.Work == nil {
			continue
		}
		for j := range x.Children {
			if ch := &x.Children[j]; OpenWorkChild(ch) && ch.Price.IsPositive() {
				dst = append(dst, Level{Price: ch.Price, Leg: algo.LegWork, ID: x.ID})
			}
		}
		if x.Spec.Kind == algo.KindChase && x.Work.Leash.IsPositive() {
			dst = append(dst, Level{Price: x.Work.Leash, Leg: algo.LegWork, ID: x.ID, Leash: true})
		}
	}
	return dst
}

// OpenWorkChild reports a working order's child that rests (or may rest)
// on the venue: acknowledged and not final, or sent and not answered yet.
func OpenWorkChild(ch *algo.Child) bool {
	if ch.Leg != algo.LegWork {
		return false
	}
	switch ch.Status {
	case "NEW", "PARTIAL_FILLED", algo.ChildSent, algo.ChildJournaled, algo.ChildUnknown:
		return true
	}
	return false
}

// Protecting returns what protects a symbol's position, if the engine
// said.
func (a *AlgoState) Protecting(symbol string) (algo.Protection, bool) {
	p, ok := a.Protection[symbol]
	return p, ok
}

// SourcePrice is a price source's value now in the Store (the feed's, as
// drawn): best bid or ask (the book, else the bbo), their mid, the last
// trade, or the mark price; zero when not seen.
func (s *Store) SourcePrice(symbol string, src algo.Source) decimal.Decimal {
	bid, ask := s.best(symbol)
	switch src {
	case algo.SourceBid:
		return bid
	case algo.SourceAsk:
		return ask
	case algo.SourceMid:
		if bid.IsPositive() && ask.IsPositive() {
			return bid.Add(ask).Div(decimal.NewFromInt(2))
		}
	case algo.SourceLast:
		if t := s.Trades[symbol]; t != nil && len(t.Rows) > 0 {
			return decimal.New(t.Rows[0].Price, int32(-t.Scale.PriceDec))
		}
	case algo.SourceMark:
		return s.Futures[symbol].MarkPrice
	}
	return decimal.Zero
}

func (s *Store) best(symbol string) (bid, ask decimal.Decimal) {
	if b := s.Books[symbol]; b != nil && (len(b.Bids) > 0 || len(b.Asks) > 0) {
		if len(b.Bids) > 0 {
			bid = decimal.New(b.Bids[0].Price, int32(-b.Scale.PriceDec))
		}
		if len(b.Asks) > 0 {
			ask = decimal.New(b.Asks[0].Price, int32(-b.Scale.PriceDec))
		}
		return bid, ask
	}
	if q, ok := s.BBOs[symbol]; ok {
		bid, ask = decimal.New(q.Bid, int32(-q.Scale.PriceDec)), decimal.New(q.Ask, int32(-q.Scale.PriceDec))
	}
	return bid, ask
}

// TriggerDistance is how far the market is from a trigger of an algo
// whose exits are on side exit, in percent of the market (positive: not
// reached). A stop fires when the price moves against the position, a
// take-profit when it moves for it. ok=false without a price.
func (s *Store) TriggerDistance(a *algo.Algo, t algo.Trigger) (pct decimal.Decimal, ok bool) {
	src := t.Source
	if t.Leg == algo.LegTP && src == algo.SourceLast && !a.Spec.TPMarket {
		src = algo.SourceBid // a resting take-profit: the side it trades against
		if a.Side == "BUY" {
			src = algo.SourceAsk
		}
	}
	mkt := s.SourcePrice(a.Spec.Symbol, src)
	if !mkt.IsPositive() || !t.Price.IsPositive() {
		return decimal.Zero, false
	}
	d := mkt.Sub(t.Price) // a SELL exit's stop: market above it
	if (t.Leg == algo.LegTP) != (a.Side == "BUY") {
		d = d.Neg()
	}
	return d.Div(mkt).Mul(decimal.NewFromInt(100)).Round(2), true
}
