package exchange

// Hooks for the Websocket publisher (sim/ws): consistent whole-book captures at push boundaries
// in fixed point, so the hot path never touches decimals.

import (
	"cmp"
	"slices"

	"tradedeck/sim/engine"
)

// LevelPrint is one visible price level of a capture. Print fingerprints the orders resting there
// (ids, remaining and visible quantities): two captures of a level with equal prints hold the very
// same orders, so a level that changed and changed back between captures is still noticed.
type LevelPrint struct {
	Price, Qty int64
	Print      uint64
}

// TouchedLevel names a price level of one side where the book changed: an order rested, was
// filled or was cancelled there.
type TouchedLevel struct {
	Price int64
	Buy   bool
}

// BookCapture is one symbol's book at a capture: bids best (highest) first, asks best (lowest)
// first, prices and quantities in the symbol's fixed-point scales.
//
// Touched lists every level changed since the previous capture, in no particular order and
// possibly repeated, including levels that changed and changed back (an order placed and
// cancelled in between) and levels beyond maxLevels. A snapshot taken between the two captures
// may hold any intermediate state of exactly these levels; every other level was the same
// throughout. Subscribers share the slice: read it, never modify it.
type BookCapture struct {
	Symbol     string
	Ts         int64 // the capture's label, see CaptureBooks
	Bids, Asks []LevelPrint
	Touched    []TouchedLevel
}

// BooksCaptured is published by CaptureBooks, in order with every other event: the events before
// it happened before the capture, the ones after it after.
type BooksCaptured struct {
	Books []BookCapture
	Extra any // what CaptureBooks' underLock returned
}

func (BooksCaptured) isEvent() {}

// CaptureBooks captures up to maxLevels visible levels per side of every book (all when <= 0) at
// one instant, runs underLock at that same instant, and publishes the result as a BooksCaptured
// event.
//
// Each capture gets a label Ts greater than the symbol's previous label and than its book time,
// and the book time becomes Ts; the next change of the book is stamped after Ts (see touch). So a
// REST snapshot (stamped with the book time) taken before the capture is stamped < Ts, one taken
// after it >= Ts, and one stamped exactly Ts holds exactly the captured book: the rule a client
// uses to join a snapshot to the orderbookupdate stream.
//
// The first capture starts the recording of touched levels (see BookCapture.Touched); the first
// Touched lists are empty.
func (e *Exchange) CaptureBooks(maxLevels int, underLock func() any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.nowMs()
	e.capturing = true
	total := 0
	for _, m := range e.marketList {
		total += len(m.touched)
	}
	// One allocation for every market's touched levels: each market keeps its own slice for the
	// next period, and the event's copies are shared read-only by the subscribers.
	var touched []TouchedLevel
	if total > 0 {
		touched = make([]TouchedLevel, 0, total)
	}
	ev := BooksCaptured{Books: make([]BookCapture, 0, len(e.marketList))}
	for _, m := range e.marketList {
		ts := max(now, m.ts+1)
		m.ts, m.captured = ts, true
		start := len(touched)
		touched = append(touched, m.touched...)
		m.touched = m.touched[:0]
		ev.Books = append(ev.Books, BookCapture{
			Symbol:  m.spec.Symbol,
			Ts:      ts,
			Bids:    capture(m.book, engine.Buy, maxLevels),
			Asks:    capture(m.book, engine.Sell, maxLevels),
			Touched: touched[start:len(touched):len(touched)],
		})
	}
	if underLock != nil {
		ev.Extra = underLock()
	}
	e.publish(ev)
}

// capture lists the visible levels of one side with their fingerprints.
func capture(b *engine.Book, side engine.Side, maxLevels int) []LevelPrint {
	var out []LevelPrint
	cur := LevelPrint{Price: -1}
	flush := func() bool {
		if cur.Price >= 0 && cur.Qty > 0 {
			out = append(out, cur)
		}
		return maxLevels <= 0 || len(out) < maxLevels
	}
	b.Orders(side, func(r engine.Resting) bool {
		if r.Price != cur.Price {
			if !flush() {
				cur.Price = -1
				return false
			}
			cur = LevelPrint{Price: r.Price, Print: 14695981039346656037}
		}
		cur.Qty += min(r.Visible, r.Qty)
		for _, v := range [...]uint64{uint64(r.ID), uint64(r.Qty), uint64(r.Visible)} {
			cur.Print = (cur.Print ^ v) * 1099511628211
		}
		return true
	})
	flush()
	return out
}

// touchedCompactAt is the initial length at which a market's touched list is deduplicated (it
// only grows that long when nobody captures for a while).
const touchedCompactAt = 4096

// noteLevel records that the book of m changed at price on side, for the next capture's Touched.
// It costs an append while captures run and nothing before the first one. Consecutive repeats
// (a sweep filling several orders of one level) are recorded once; if captures stop, the list is
// deduplicated whenever it doubles, so it stays bounded by the distinct levels changed.
func (e *Exchange) noteLevel(m *market, side engine.Side, price int64) {
	if !e.capturing {
		return
	}
	t := TouchedLevel{Price: price, Buy: side == engine.Buy}
	if n := len(m.touched); n > 0 && m.touched[n-1] == t {
		return
	}
	m.touched = append(m.touched, t)
	if len(m.touched) < max(m.touchedLimit, touchedCompactAt) {
		return
	}
	slices.SortFunc(m.touched, func(a, b TouchedLevel) int {
		if a.Buy != b.Buy {
			if a.Buy {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Price, b.Price)
	})
	m.touched = slices.Compact(m.touched)
	m.touchedLimit = max(touchedCompactAt, 2*len(m.touched))
}
