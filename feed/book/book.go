// Package book keeps one symbol's order book in fixed point and keeps it in
// sync with the venue: a snapshot plus `@orderbookupdate` deltas chained by
// prevTs (see Sync). Each side is a sorted slice with binary search insert
// and delete: at the few hundred levels a venue book has, that beats a tree
// on both speed and memory, and copying it for the UI is one memmove.
package book

import "tradedeck/venue/stream"

// Level is a price level in the symbol's fixed-point scale.
type Level = stream.Level

// Book is the two sides of an order book. Asks ascend and bids descend, so
// index 0 is the best on both sides.
//
// A snapshot of limited depth only vouches for the prices it covers: when
// one was truncated, AskLimit/BidLimit hold its worst price and deltas
// beyond it are ignored, so the book never shows a deep level whose
// neighbours it has never seen.
type Book struct {
	Asks     []Level
	Bids     []Level
	AskLimit int64 // 0: no limit
	BidLimit int64 // 0: no limit
}

// Reset replaces the book with a snapshot. truncated says the venue cut the
// snapshot at its depth limit (the last level of each side bounds what this
// book can vouch for).
func (b *Book) Reset(asks, bids []Level, truncated bool) {
	b.Asks, b.Bids = b.Asks[:0], b.Bids[:0]
	b.AskLimit, b.BidLimit = 0, 0
	for _, l := range asks {
		if l.Qty > 0 {
			b.Asks = setLevel(b.Asks, l, true)
		}
	}
	for _, l := range bids {
		if l.Qty > 0 {
			b.Bids = setLevel(b.Bids, l, false)
		}
	}
	if truncated {
		if n := len(b.Asks); n > 0 {
			b.AskLimit = b.Asks[n-1].Price
		}
		if n := len(b.Bids); n > 0 {
			b.BidLimit = b.Bids[n-1].Price
		}
	}
}

// Apply applies the changed levels of a delta: quantity 0 deletes.
func (b *Book) Apply(asks, bids []Level) {
	for _, l := range asks {
		if b.AskLimit != 0 && l.Price > b.AskLimit {
			continue
		}
		b.Asks = setLevel(b.Asks, l, true)
	}
	for _, l := range bids {
		if b.BidLimit != 0 && l.Price < b.BidLimit {
			continue
		}
		b.Bids = setLevel(b.Bids, l, false)
	}
}

// Crossed reports a best bid at or above the best ask: impossible on a
// correct book, so it proves the book is corrupt.
func (b *Book) Crossed() bool {
	return len(b.Asks) > 0 && len(b.Bids) > 0 && b.Bids[0].Price >= b.Asks[0].Price
}

// search returns the index of price in side, or where it would be inserted.
func search(side []Level, price int64, asc bool) (int, bool) {
	lo, hi := 0, len(side)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		p := side[m].Price
		if p == price {
			return m, true
		}
		if (p < price) == asc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, false
}

func setLevel(side []Level, l Level, asc bool) []Level {
	i, found := search(side, l.Price, asc)
	switch {
	case found && l.Qty == 0:
		return append(side[:i], side[i+1:]...)
	case found:
		side[i].Qty = l.Qty
		return side
	case l.Qty == 0:
		return side
	}
	side = append(side, Level{})
	copy(side[i+1:], side[i:])
	side[i] = l
	return side
}
