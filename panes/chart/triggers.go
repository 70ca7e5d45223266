package chart

import (
	"tradedeck/algo"
	"tradedeck/panes/common"
)

// The symbol's protective-order triggers on the candle chart (issue 25):
// the price range takes them in, and the row of each is drawn as a
// dashed line across the gaps between candles, with its price on the
// axis (S stop, T take-profit). The last price keeps its axis row.

// loadLevels reads the Store's trigger levels of the symbol.
func (m *Model) loadLevels() {
	m.levels = m.levels[:0]
	for _, l := range m.Store.Algos.Levels(m.levels[:0], m.symbol) {
		if l.Leg == algo.LegStop || l.Leg == algo.LegTP || l.Leg == algo.LegWork {
			m.levels = append(m.levels, l)
		}
	}
	m.Invalidate()
}

// withLevels widens the frame's price range to hold the triggers.
func (m *Model) withLevels(f *frame) {
	for _, l := range m.levels {
		if l.Price.GreaterThan(f.hi) {
			f.hi = l.Price
		}
		if l.Price.LessThan(f.lo) {
			f.lo = l.Price
		}
	}
}

// levelRows are the text rows of the triggers (-1 once per level left
// out), in the order of m.levels.
func (m *Model) levelRows(f *frame) {
	m.lrows = m.lrows[:0]
	for _, l := range m.levels {
		m.lrows = append(m.lrows, f.y(l.Price)/2)
	}
}

// levelAt is the trigger drawn on row r, if any.
func (m *Model) levelAt(r int) (common.Level, bool) {
	for i, lr := range m.lrows {
		if lr == r {
			return m.levels[i], true
		}
	}
	return common.Level{}, false
}

// levelStyle is a trigger's line style and axis letter.
func (m *Model) levelStyle(l common.Level) (style, letter string) {
	switch {
	case l.Leg == algo.LegStop:
		return m.Theme.Warn, "S"
	case l.Leash: // a chase's leash: the worst price it rests at
		return m.Theme.Error, "L"
	case l.Leg == algo.LegWork: // a working order's open child
		return m.Theme.Own, "W"
	}
	return m.Theme.Accent, "T"
}
