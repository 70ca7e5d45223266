package book

import (
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/fixed"
)

// Selected is the level under the keyboard selection: its price and side
// (Sell for an ask, Buy for a bid); ok false when none is selected.
func (m *Model) Selected() (price decimal.Decimal, side feed.Side, ok bool) {
	l, side, ok := m.selected()
	if !ok || m.book == nil {
		return decimal.Zero, 0, false
	}
	return fixed.ToDecimal(l.Price, m.book.Scale.PriceDec), side, true
}

// Symbol is the symbol the book shows.
func (m *Model) Symbol() string { return m.symbol }
