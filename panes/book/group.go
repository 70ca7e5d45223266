package book

import (
	"time"

	"tradedeck/feed"
)

// regroup aggregates the snapshot's levels by the grouping and records
// which grouped levels changed size since the previous snapshot.
func (m *Model) regroup() {
	m.Invalidate()
	m.prevAsks, m.asks = m.asks, m.prevAsks[:0]
	m.prevBids, m.bids = m.bids, m.prevBids[:0]
	if m.book == nil {
		return
	}
	g := m.groupUnits()
	m.asks = group(m.asks, m.book.Asks, g, true)
	m.bids = group(m.bids, m.book.Bids, g, false)
	if len(m.prevAsks) == 0 && len(m.prevBids) == 0 {
		return // first snapshot: nothing "changed"
	}
	now := m.Clock()
	diff(m.prevAsks, m.asks, true, now, m.changed)
	diff(m.prevBids, m.bids, false, now, m.changed)
}

// group folds levels (best first) into buckets of g units: asks round up,
// bids round down, so a bucket never shows a better price than it holds.
func group(dst, src []feed.Level, g int64, up bool) []feed.Level {
	for _, l := range src {
		p := l.Price
		if g > 1 {
			r := p % g
			if r != 0 {
				p -= r
				if up {
					p += g
				}
			}
		}
		if n := len(dst); n > 0 && dst[n-1].Price == p {
			dst[n-1].Qty += l.Qty
			continue
		}
		dst = append(dst, feed.Level{Price: p, Qty: l.Qty})
	}
	return dst
}

// diff marks prices whose size differs between two sorted level lists.
func diff(old, cur []feed.Level, asc bool, now time.Time, changed map[int64]time.Time) {
	i, j := 0, 0
	before := func(a, b int64) bool {
		if asc {
			return a < b
		}
		return a > b
	}
	for i < len(old) || j < len(cur) {
		switch {
		case j == len(cur) || (i < len(old) && before(old[i].Price, cur[j].Price)):
			changed[old[i].Price] = now // level removed
			i++
		case i == len(old) || before(cur[j].Price, old[i].Price):
			changed[cur[j].Price] = now // level added
			j++
		default:
			if old[i].Qty != cur[j].Qty {
				changed[cur[j].Price] = now
			}
			i++
			j++
		}
	}
}
