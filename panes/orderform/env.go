package orderform

import (
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/trade"
)

// Env builds the validation environment of a symbol from the Store.
func Env(s *common.Store, symbol string, rule trade.Rule) trade.Env {
	env := trade.Env{Rule: rule, OpenClientIDs: map[int64]bool{}}
	if s == nil {
		return env
	}
	env.Book = BestOf(s, symbol)
	if a := s.Account; a != nil {
		env.PositionKnown = true
		for _, p := range a.Positions {
			if p.Symbol == symbol {
				env.Position = p.Holding
			}
		}
		for _, o := range a.Open {
			if o.ClientOrderID != 0 {
				env.OpenClientIDs[o.ClientOrderID] = true
			}
		}
		env.Funds.Mode = a.Margin.Mode
		env.Funds.Known = len(a.Balances) > 0
		base, quote := trade.Base(symbol), trade.Quote(symbol)
		for _, b := range a.Balances {
			switch b.Token {
			case base:
				env.Funds.BaseAvail = b.Available()
			case quote:
				env.Funds.QuoteAvail = b.Available()
			}
		}
	}
	return env
}

// BestOf returns the best bid and ask of a symbol from its book, or its
// BBO when there is no book.
func BestOf(s *common.Store, symbol string) trade.Book {
	var b trade.Book
	if bk := s.Books[symbol]; bk != nil && bk.State != feed.SyncNone {
		if len(bk.Bids) > 0 {
			b.BestBid = fixedDec(bk.Bids[0].Price, bk.Scale.PriceDec)
		}
		if len(bk.Asks) > 0 {
			b.BestAsk = fixedDec(bk.Asks[0].Price, bk.Scale.PriceDec)
		}
		return b
	}
	if q, ok := s.BBOs[symbol]; ok {
		if q.Bid > 0 {
			b.BestBid = fixedDec(q.Bid, q.Scale.PriceDec)
		}
		if q.Ask > 0 {
			b.BestAsk = fixedDec(q.Ask, q.Scale.PriceDec)
		}
	}
	return b
}

func fixedDec(v int64, dec int) decimal.Decimal { return decimal.New(v, int32(-dec)) }

// Fees reads the account's fee rates (basis points) for a symbol from the
// Store: perpetuals pay the futures rates, spot the spot ones.
func Fees(s *common.Store, symbol string) trade.Fees {
	if s == nil || s.Account == nil {
		return trade.Fees{}
	}
	m := s.Account.Margin
	if trade.IsPerp(symbol) {
		return trade.Fees{MakerBps: m.FuturesMakerFeeRate, TakerBps: m.FuturesTakerFeeRate}
	}
	return trade.Fees{MakerBps: m.MakerFeeRate, TakerBps: m.TakerFeeRate}
}
