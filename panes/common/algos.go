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

// Level is a trigger level a pane marks (book, chart).
type Level struct {
	Price decimal.Decimal
	Leg   algo.Leg
	ID    algo.ID
}

// Levels appends the live trigger and resting take-profit levels of a
// symbol's unfinished algos to dst (no allocation when dst has room).
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
	}
	return dst
}

// Protecting returns what protects a symbol's position, if the engine
// said.
func (a *AlgoState) Protecting(symbol string) (algo.Protection, bool) {
	p, ok := a.Protection[symbol]
	return p, ok
}
