package book

import (
	"tradedeck/algo"
	"tradedeck/feed"
	"tradedeck/fixed"
	"tradedeck/panes/common"
)

// Trigger levels of the symbol's protective orders (issue 25), marked in
// the marker column of the level they sit at: a bid level holds a
// trigger at or above its price (up to the next level), an ask level one
// at or below it. Converted to the book's fixed point when the algos or
// the book's scale change, so drawing only compares integers.

// trigger is one level to mark.
type trigger struct {
	price int64
	leg   algo.Leg
}

// loadTriggers reads the Store's algos of the symbol.
func (m *Model) loadTriggers() {
	m.trigs = m.trigs[:0]
	if m.book == nil {
		return
	}
	m.levels = m.Store.Algos.Levels(m.levels[:0], m.symbol)
	for _, l := range m.levels {
		if l.Leg == algo.LegEntry || l.Leash {
			continue
		}
		if p, ok := fixed.FromDecimal(l.Price, m.book.Scale.PriceDec); ok && p > 0 {
			m.trigs = append(m.trigs, trigger{p, l.Leg})
		}
	}
	m.trigScale = m.book.Scale.PriceDec
	m.Invalidate()
}

// triggerIn is the leg of the first trigger in [lo, hi) (0: none; hi 0:
// no upper bound).
func (m *Model) triggerIn(lo, hi int64) algo.Leg {
	for _, t := range m.trigs {
		if t.price >= lo && (hi == 0 || t.price < hi) {
			return t.leg
		}
	}
	return 0
}

// levelTrigger is the trigger a shown level holds: a bid holds those from
// its price up to the next better bid (the best bid: up to the best ask),
// an ask those above the next better ask up to its price.
func (m *Model) levelTrigger(asks, bids []feed.Level, i int, bid bool) algo.Leg {
	if len(m.trigs) == 0 {
		return 0
	}
	if bid {
		hi := int64(0)
		if i > 0 {
			hi = bids[i-1].Price
		} else if len(asks) > 0 {
			hi = asks[0].Price
		}
		return m.triggerIn(bids[i].Price, hi)
	}
	lo := asks[i].Price
	if i > 0 {
		lo = asks[i-1].Price + 1
	}
	return m.triggerIn(lo, asks[i].Price+1)
}

// markTrigger draws the marker cell of a level holding a trigger: S for
// a stop, T for a take-profit, and reports whether it drew one.
func (m *Model) markTrigger(c *common.Canvas, leg algo.Leg) bool {
	t := m.Theme
	switch leg {
	case algo.LegStop:
		c.Styled(t.Warn, "S")
	case algo.LegTP:
		c.Styled(t.Accent, "T")
	case algo.LegWork: // a working order's child rests here (issue 26)
		c.Styled(t.Own, "W")
	default:
		return false
	}
	return true
}
