package trade

import (
	"github.com/shopspring/decimal"
)

// Type is an order type on placement.
type Type string

const (
	Limit    Type = "LIMIT"
	Market   Type = "MARKET"
	IOC      Type = "IOC"
	FOK      Type = "FOK"
	PostOnly Type = "POST_ONLY"
	Ask      Type = "ASK" // priced by the venue at the best ask
	Bid      Type = "BID" // priced by the venue at the best bid
)

// Types lists every order type, in the order the form cycles through them.
var Types = []Type{Limit, Market, IOC, FOK, PostOnly, Ask, Bid}

// UserPriced reports whether the user gives the price. The venue prices
// MARKET (the book), ASK (best ask) and BID (best bid) itself.
func (t Type) UserPriced() bool { return t != Market && t != Ask && t != Bid }

// AllowsAmount reports whether the size may be given in quote currency
// (order_amount): only MARKET, ASK and BID.
func (t Type) AllowsAmount() bool { return !t.UserPriced() }

// UsesVisible reports whether visible_quantity has an effect: not for
// MARKET, IOC and FOK, which never rest on the book.
func (t Type) UsesVisible() bool { return t != Market && t != IOC && t != FOK }

// AlwaysTaker reports types that can only take liquidity.
func (t Type) AlwaysTaker() bool { return t == Market || t == IOC || t == FOK }

// Side is BUY or SELL.
type Side string

const (
	Buy  Side = "BUY"
	Sell Side = "SELL"
)

// Opposite returns the other side.
func (s Side) Opposite() Side {
	if s == Buy {
		return Sell
	}
	return Buy
}

// MaxClientOrderID is the largest client_order_id the venue accepts.
const MaxClientOrderID = 9223372036854775807

// MaxAmountDecimals is the venue's precision limit for order_amount.
const MaxAmountDecimals = 8

// Order is an order about to be placed. Exactly one of Quantity and
// Amount is set (Amount only where Type.AllowsAmount). Price is zero for
// types the venue prices. Visible is set only when HasVisible.
type Order struct {
	Symbol        string
	Side          Side
	Type          Type
	Price         decimal.Decimal
	Quantity      decimal.Decimal
	Amount        decimal.Decimal
	Visible       decimal.Decimal
	HasVisible    bool
	ClientOrderID int64
	Tag           string
	// ReduceOnly (perpetuals, a real-venue parameter beyond the spec): the
	// order may only shrink the position.
	ReduceOnly bool
}

// ByAmount reports whether the size is given in quote currency.
func (o Order) ByAmount() bool { return !o.Amount.IsZero() && o.Quantity.IsZero() }
