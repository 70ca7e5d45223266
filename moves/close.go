// Package moves is the venue logic of the trader's composite moves: close
// a position (reduce-only) or sell a spot holding, flatten every position,
// and amend an open order as a cancel followed by a new order (the venue
// has no amend call). The order builders are pure; the executors talk to
// the venue through the small Venue interface (a *venue.Client).
package moves

import (
	"context"
	"fmt"
	"sort"

	"github.com/shopspring/decimal"

	"tradedeck/trade"
	"tradedeck/venue"
)

// Venue is what the moves need of the venue's REST client.
type Venue interface {
	SendOrder(ctx context.Context, r venue.OrderRequest) (venue.OrderAck, error)
	CancelOrder(ctx context.Context, symbol string, orderID int64) error
	GetOrder(ctx context.Context, orderID int64) (venue.Order, error)
}

var hundred = decimal.NewFromInt(100)

// Close describes closing (part of) a position or a spot holding.
type Close struct {
	Symbol string
	// Holding is the perpetual position (signed: negative is short), or the
	// free balance of a spot symbol's base token (what can be sold).
	Holding decimal.Decimal
	Percent decimal.Decimal // of Holding, (0, 100]; zero means 100
	Type    trade.Type      // trade.Market, or trade.Limit at the top of the book
	Book    trade.Book      // best bid and ask, for Limit
	Rule    trade.Rule
}

// CloseOrder is the order that closes c: the opposite side of the
// position, reduce-only on a perpetual (so it can never open the other
// way), a plain sell of the free balance on spot. A LIMIT close joins the
// top of the book on its own side (sell at the best ask, buy at the best
// bid): it rests as a maker and never crosses; MARKET takes the book.
// The quantity is rounded down to the lot size, except that 100% of a
// position is the position exactly.
func CloseOrder(c Close) (trade.Order, error) {
	perp := trade.IsPerp(c.Symbol)
	pct := c.Percent
	if pct.IsZero() {
		pct = hundred
	}
	if !pct.IsPositive() || pct.GreaterThan(hundred) {
		return trade.Order{}, fmt.Errorf("close %s: percent %s is not in (0, 100]", c.Symbol, pct)
	}
	if c.Holding.IsZero() || (!perp && c.Holding.IsNegative()) {
		return trade.Order{}, fmt.Errorf("close %s: nothing to close", c.Symbol)
	}
	o := trade.Order{Symbol: c.Symbol, Side: trade.Sell, Type: c.Type, ReduceOnly: perp}
	if c.Holding.IsNegative() {
		o.Side = trade.Buy
	}
	size := c.Holding.Abs()
	o.Quantity = size
	if !pct.Equal(hundred) || !perp {
		o.Quantity = c.Rule.AlignQty(size.Mul(pct).Div(hundred), trade.Down)
	}
	if o.Quantity.GreaterThan(size) {
		o.Quantity = c.Rule.AlignQty(size, trade.Down)
	}
	if !o.Quantity.IsPositive() || o.Quantity.LessThan(c.Rule.BaseMin) {
		return trade.Order{}, fmt.Errorf("close %s: %s%% of %s is below the lot size %s", c.Symbol, pct, size, c.Rule.BaseMin)
	}
	switch c.Type {
	case trade.Market:
	case trade.Limit:
		o.Price = c.Book.BestAsk
		if o.Side == trade.Buy {
			o.Price = c.Book.BestBid
		}
		if !o.Price.IsPositive() {
			return trade.Order{}, fmt.Errorf("close %s: no best price on the book for a LIMIT close", c.Symbol)
		}
	default:
		return trade.Order{}, fmt.Errorf("close %s: type %s (MARKET or LIMIT)", c.Symbol, c.Type)
	}
	return o, nil
}

// Position is a perpetual position to flatten.
type Position struct {
	Symbol  string
	Holding decimal.Decimal
}

// FlattenOrders are the MARKET reduce-only orders that close every
// perpetual position with a holding, by symbol. A position whose order
// cannot be built (no rule) is reported in the errors, the others kept.
func FlattenOrders(ps []Position, rules map[string]trade.Rule) ([]trade.Order, []error) {
	sorted := append([]Position(nil), ps...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Symbol < sorted[j].Symbol })
	var out []trade.Order
	var errs []error
	for _, p := range sorted {
		if p.Holding.IsZero() || !trade.IsPerp(p.Symbol) {
			continue
		}
		r, ok := rules[p.Symbol]
		if !ok {
			errs = append(errs, fmt.Errorf("flatten %s: no symbol rule", p.Symbol))
			continue
		}
		o, err := CloseOrder(Close{Symbol: p.Symbol, Holding: p.Holding, Type: trade.Market, Rule: r})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, o)
	}
	return out, errs
}

// Sent is the outcome of one order of a move.
type Sent struct {
	Order trade.Order
	Ack   venue.OrderAck
	Err   error
}

// SendAll sends the orders one after the other (a flatten), each with a
// fresh client order id, and reports each. One failing does not stop the
// others: every position the venue accepts a close for is closed.
func SendAll(ctx context.Context, v Venue, ids *trade.ClientIDs, orders []trade.Order) []Sent {
	out := make([]Sent, len(orders))
	for i, o := range orders {
		if o.ClientOrderID == 0 && ids != nil {
			o.ClientOrderID = ids.Next(nil)
		}
		ack, err := v.SendOrder(ctx, trade.Request(o))
		out[i] = Sent{Order: o, Ack: ack, Err: err}
	}
	return out
}
