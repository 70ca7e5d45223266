package mirror

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/shopspring/decimal"

	"tradedeck/sim/exchange"
	"tradedeck/venue"
)

// Universe is base with its symbols replaced by the upstream's: the
// upstream's rules (ticks, bounds, min notional, price range) for every
// symbol whose tokens base lists (and, given symbols, only those), each
// starting at the upstream's mid price. Tokens and accounts stay base's:
// the paper accounts are local.
func Universe(ctx context.Context, upstream venue.Endpoints, base *exchange.Universe, symbols []string) (*exchange.Universe, error) {
	c := venue.NewClient(upstream, venue.Credentials{}) // public reads only
	rules, err := c.SymbolRules(ctx)
	if err != nil {
		return nil, fmt.Errorf("mirror: read the upstream's symbols at %s: %w", upstream.BaseURL, err)
	}
	tokens := map[string]bool{}
	for _, t := range base.Tokens {
		tokens[t.Token] = true
	}
	want := map[string]bool{}
	for _, s := range symbols {
		want[s] = true
	}
	u := *base
	u.Symbols = nil
	for _, r := range rules {
		kind, b, q, ok := exchange.SplitSymbol(r.Symbol)
		if !ok || !tokens[q] || (kind == "SPOT" && !tokens[b]) || (len(want) > 0 && !want[r.Symbol]) {
			continue
		}
		mid, err := midPrice(ctx, c, r)
		if err != nil {
			return nil, err
		}
		r.CreatedTime, r.UpdatedTime = venue.SecTime{}, venue.SecTime{}
		u.Symbols = append(u.Symbols, exchange.SymbolSpec{SymbolRule: r, InitialPrice: mid})
	}
	if len(u.Symbols) == 0 {
		return nil, fmt.Errorf("mirror: the upstream at %s lists none of the symbols wanted", upstream.BaseURL)
	}
	b, err := json.Marshal(&u) // through the file format, so the universe's checks apply
	if err != nil {
		return nil, err
	}
	return exchange.ParseUniverse(b)
}

// midPrice is the middle of the upstream's best bid and ask on the tick
// grid, or a tick when its book is empty (the first trade sets the price).
func midPrice(ctx context.Context, c *venue.Client, r venue.SymbolRule) (decimal.Decimal, error) {
	ob, err := c.OrderBook(ctx, r.Symbol, 1)
	if err != nil {
		return decimal.Zero, fmt.Errorf("mirror: upstream book of %s: %w", r.Symbol, err)
	}
	var sum decimal.Decimal
	n := 0
	if len(ob.Bids) > 0 {
		sum, n = sum.Add(ob.Bids[0].Price), n+1
	}
	if len(ob.Asks) > 0 {
		sum, n = sum.Add(ob.Asks[0].Price), n+1
	}
	if n == 0 || !r.QuoteTick.IsPositive() {
		return decimal.Max(r.QuoteTick, r.QuoteMin), nil
	}
	mid := sum.Div(decimal.NewFromInt(int64(n)))
	return mid.Div(r.QuoteTick).Floor().Mul(r.QuoteTick), nil
}
