package alerts

import (
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
)

// watch is an alert plus what evaluating it needs between observations.
type watch struct {
	a Alert
	// armed: the condition was false since the last firing (or the alert
	// is new), so the next time it holds is news.
	armed bool
	// unsaved: fired since the file was last written.
	unsaved bool
	// The level in the fixed point of the symbol's prices, for comparing
	// trades and bbo without converting each one; lvlDec -1: not yet.
	lvl    int64
	lvlDec int
	// The level as a float, for ratio kinds (spread in bp).
	lvlF float64
}

func newWatch(a Alert) *watch {
	// An `every` alert that already fired waits for its condition to end
	// before firing again, also across a restart.
	f, _ := a.Level.Float64()
	return &watch{a: a, armed: !a.Every || a.Count <= 0, lvlDec: -1, lvlF: f}
}

// merge takes the stored alert's state, keeping firings not yet saved.
func (w *watch) merge(a Alert) {
	if w.unsaved {
		a.Count = max(a.Count, w.a.Count)
		if w.a.Last.After(a.Last) {
			a.Last = w.a.Last
		}
		a.Done = a.Done || w.a.Done
	}
	w.a = a
}

// sameCondition: a and b watch the same thing the same way.
func sameCondition(a, b *Alert) bool {
	return a.Symbol == b.Symbol && a.Kind == b.Kind && a.Op == b.Op && a.Level.Equal(b.Level) &&
		a.Source == b.Source && slices.Equal(a.Events, b.Events) && a.Stream == b.Stream && a.For == b.For
}

// level is the alert's level at dec decimals (cached); ok false when it
// does not fit the tick (then the decimal path is used).
func (w *watch) level(dec int) (int64, bool) {
	if w.lvlDec == dec {
		return w.lvl, true
	}
	v, ok := fixed.FromDecimal(w.a.Level, dec)
	if !ok {
		// Not on the tick: round toward "harder to reach" so `above`
		// never fires below the level and `below` never above it.
		scaled := w.a.Level.Shift(int32(dec))
		if w.a.Op == Above {
			v = scaled.Ceil().IntPart()
		} else {
			v = scaled.Floor().IntPart()
		}
	}
	w.lvl, w.lvlDec = v, dec
	return v, true
}

// check runs the firing rule for a threshold alert whose condition is met
// or not at now: it fires when the condition holds, was false since the
// last firing, and the cooldown has passed (an armed alert in cooldown
// fires at the first observation after it, if the condition still holds).
func (w *watch) check(met bool, now time.Time) bool {
	if !w.a.Active() {
		return false
	}
	if !met {
		w.armed = true
		return false
	}
	if !w.armed || w.cooling(now) {
		return false
	}
	w.armed = false
	return true
}

// event runs the firing rule for an event alert (an order report).
func (w *watch) event(now time.Time) bool {
	return w.a.Active() && !w.cooling(now)
}

func (w *watch) cooling(now time.Time) bool {
	return w.a.Every && w.a.Cooldown > 0 && w.a.Count > 0 && now.Sub(w.a.Last) < time.Duration(w.a.Cooldown)
}

// compare reports whether value meets op against level.
func compare(op Op, value, level decimal.Decimal) bool {
	switch op {
	case Above:
		return value.GreaterThanOrEqual(level)
	case Below:
		return value.LessThanOrEqual(level)
	case Beyond:
		return value.Abs().GreaterThanOrEqual(level.Abs())
	case Within:
		return value.LessThanOrEqual(level)
	}
	return false
}

func compareInt(op Op, value, level int64) bool {
	if op == Above {
		return value >= level
	}
	return value <= level
}
