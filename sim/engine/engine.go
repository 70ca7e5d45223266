// Package engine is the simulated venue's matching engine: one limit order book per symbol with
// price-time priority over int64 fixed-point prices and quantities. It knows nothing of symbols,
// decimals, accounts or fees: callers validate orders and settle fills.
//
// A Book is not safe for concurrent use; the caller serialises access (one goroutine or a lock per book).
package engine

// Side of an order.
type Side uint8

// Sides.
const (
	Buy  Side = 1
	Sell Side = 2
)

// Opposite returns the other side.
func (s Side) Opposite() Side { return 3 - s }

func (s Side) String() string {
	switch s {
	case Buy:
		return "BUY"
	case Sell:
		return "SELL"
	}
	return "?"
}

// Kind is the execution style of an order.
type Kind uint8

// Kinds. ASK/BID orders of the venue are Limit orders priced by the caller at the best price.
const (
	Limit    Kind = iota + 1 // match what crosses, rest the remainder
	Market                   // match until filled, the book ends or Price is passed; cancel the rest
	IOC                      // match up to Price, cancel the rest
	FOK                      // fill completely up to Price or do nothing
	PostOnly                 // rest without taking, or be rejected
)

func (k Kind) String() string {
	switch k {
	case Limit:
		return "LIMIT"
	case Market:
		return "MARKET"
	case IOC:
		return "IOC"
	case FOK:
		return "FOK"
	case PostOnly:
		return "POST_ONLY"
	}
	return "?"
}

// OrderID identifies an order; the caller allocates them and keeps them unique among resting orders.
type OrderID uint64

// Order is what a taker submits. Prices are int64 in the book's price scale (fixed-point with the
// symbol's price decimals), quantities int64 in the quantity scale.
type Order struct {
	ID       OrderID
	Owner    uint32 // account index, opaque to the engine
	Side     Side
	Kind     Kind
	Price    int64 // limit price; for Market and IOC/FOK: the worst acceptable price, 0 = unbounded
	Qty      int64 // quantity; for Market by quote amount set Qty=0 and QuoteAmt
	QuoteAmt int64 // Market by quote amount, in price scale * qty scale units, 0 if unused
	Visible  int64 // shown quantity: == Qty shows all, 0 hides, in between caps what Depth shows (iceberg)
}

// Fill is one execution between a resting maker and the incoming taker.
type Fill struct {
	MakerID, TakerID       OrderID
	MakerOwner, TakerOwner uint32
	Price, Qty             int64 // at the maker's price
	MakerDone              bool  // the maker order is now fully filled and gone from the book
}

// Result summarises what Submit did for the taker.
type Result struct {
	Filled    int64 // quantity executed for the taker
	Remaining int64 // quantity left (resting if Rested, else cancelled); 0 for Market by quote amount
	Rested    bool  // remainder rests on the book (Limit, PostOnly)
	Rejected  bool  // nothing done: PostOnly that would take, invalid order or duplicate resting ID
}

// Level is one aggregated price level; Qty is the visible quantity there.
type Level struct{ Price, Qty int64 }

// Resting describes an order on the book. Qty is what is left, Visible the order's display cap
// (shown now: min(Visible, Qty)), Filled what has executed since it was submitted.
type Resting struct {
	ID                          OrderID
	Owner                       uint32
	Side                        Side
	Price, Qty, Visible, Filled int64
}
