package common

import (
	"github.com/shopspring/decimal"

	"tradedeck/feed"
)

// Store keeps the latest snapshot of everything the feed sent. The root
// applies each Update to it before routing the Update to components, so a
// component (or a dialog being opened) can read the current state of any
// symbol, not only what changed. Values are immutable snapshots.
type Store struct {
	feed.State
	// Errors counts EventError events seen; LastError is the newest text.
	Errors    uint64
	LastError string
	// Algos is the protective-orders engine's latest snapshot (algos.go).
	Algos AlgoState
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{State: feed.NewState()} }

// Apply merges an Update (maps hold only what changed) and counts its
// error events.
func (s *Store) Apply(u *feed.Update) {
	s.State.Apply(u)
	for _, e := range u.Events {
		if e.Kind == feed.EventError {
			s.Errors++
			s.LastError = e.Text
		}
	}
}

// Scale returns the fixed-point scale of a symbol, from its book, trades
// or BBO, whichever is known.
func (s *Store) Scale(symbol string) (feed.Scale, bool) {
	if b := s.Books[symbol]; b != nil {
		return b.Scale, true
	}
	if t := s.Trades[symbol]; t != nil {
		return t.Scale, true
	}
	if b, ok := s.BBOs[symbol]; ok {
		return b.Scale, true
	}
	return feed.Scale{}, false
}

// OpenOrders returns the account's open orders of a symbol ("" = all).
func (s *Store) OpenOrders(symbol string) []feed.Order {
	if s.Account == nil {
		return nil
	}
	if symbol == "" {
		return s.Account.Open
	}
	var out []feed.Order
	for _, o := range s.Account.Open {
		if o.Symbol == symbol {
			out = append(out, o)
		}
	}
	return out
}

// Price formats a price of a symbol at the symbol's price decimals, so
// prices side by side share one format ("97192.0" next to "97192.5", not
// "97192"); unknown symbols keep the decimal's shortest form.
func (s *Store) Price(symbol string, v decimal.Decimal) string {
	return s.format(symbol, v, func(sc feed.Scale) int { return sc.PriceDec })
}

// Qty formats a quantity of a symbol at the symbol's quantity decimals.
func (s *Store) Qty(symbol string, v decimal.Decimal) string {
	return s.format(symbol, v, func(sc feed.Scale) int { return sc.QtyDec })
}

func (s *Store) format(symbol string, v decimal.Decimal, decimals func(feed.Scale) int) string {
	if s != nil {
		if sc, ok := s.Scale(symbol); ok {
			return v.StringFixed(int32(decimals(sc)))
		}
	}
	return v.String()
}
