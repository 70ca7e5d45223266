package common

import "tradedeck/feed"

// Store keeps the latest snapshot of everything the feed sent. The root
// applies each Update to it before routing the Update to components, so a
// component (or a dialog being opened) can read the current state of any
// symbol, not only what changed. Values are immutable snapshots.
type Store struct {
	Books   map[string]*feed.Book
	Trades  map[string]*feed.Trades
	BBOs    map[string]feed.BBO
	Tickers map[string]feed.Ticker
	Candles map[string]*feed.Candles
	Futures map[string]feed.Futures
	Account *feed.Account
	Health  []feed.Health
	Seq     uint64
	// Errors counts EventError events seen; LastError is the newest text.
	Errors    uint64
	LastError string
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{
		Books:   map[string]*feed.Book{},
		Trades:  map[string]*feed.Trades{},
		BBOs:    map[string]feed.BBO{},
		Tickers: map[string]feed.Ticker{},
		Candles: map[string]*feed.Candles{},
		Futures: map[string]feed.Futures{},
	}
}

// Apply merges an Update (maps hold only what changed).
func (s *Store) Apply(u *feed.Update) {
	s.Seq = u.Seq
	for k, v := range u.Books {
		s.Books[k] = v
	}
	for k, v := range u.Trades {
		s.Trades[k] = v
	}
	for k, v := range u.BBOs {
		s.BBOs[k] = v
	}
	for k, v := range u.Tickers {
		s.Tickers[k] = v
	}
	for k, v := range u.Candles {
		s.Candles[k] = v
	}
	for k, v := range u.Futures {
		s.Futures[k] = v
	}
	if u.Account != nil {
		s.Account = u.Account
	}
	if u.Health != nil {
		s.Health = u.Health
	}
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
