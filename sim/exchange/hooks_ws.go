package exchange

// Hooks for the Websocket publisher (sim/ws): consistent whole-book captures at push boundaries
// in fixed point, so the hot path never touches decimals.

import "tradedeck/sim/engine"

// LevelPrint is one visible price level of a capture. Print fingerprints the orders resting there
// (ids, remaining and visible quantities): two captures of a level with equal prints hold the very
// same orders, so a level that changed and changed back between captures is still noticed.
type LevelPrint struct {
	Price, Qty int64
	Print      uint64
}

// BookCapture is one symbol's book at a capture: bids best (highest) first, asks best (lowest)
// first, prices and quantities in the symbol's fixed-point scales.
type BookCapture struct {
	Symbol     string
	Ts         int64 // the capture's label, see CaptureBooks
	Bids, Asks []LevelPrint
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
// and the book time becomes Ts. So a REST snapshot (stamped with the book time) taken before the
// capture is stamped < Ts and one taken after it >= Ts: exactly the rule a client uses to join a
// snapshot to the orderbookupdate stream.
func (e *Exchange) CaptureBooks(maxLevels int, underLock func() any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.nowMs()
	ev := BooksCaptured{Books: make([]BookCapture, 0, len(e.marketList))}
	for _, m := range e.marketList {
		ts := max(now, m.ts+1)
		m.ts = ts
		ev.Books = append(ev.Books, BookCapture{
			Symbol: m.spec.Symbol,
			Ts:     ts,
			Bids:   capture(m.book, engine.Buy, maxLevels),
			Asks:   capture(m.book, engine.Sell, maxLevels),
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
