package exchange

import (
	"fmt"

	"github.com/shopspring/decimal"

	"tradedeck/venue"
)

// Side, OrderType and Status are the venue's wire types: the simulator
// speaks the protocol the client reads, so the names and values are shared.
type (
	Side      = venue.Side
	OrderType = venue.OrderType
	Status    = venue.OrderStatus
)

// Sides, order types and statuses, as the venue names them. Liquidate is the
// type of the orders the venue sends to close the positions of an account
// below its maintenance margin; it cannot be placed.
const (
	Buy  = venue.Buy
	Sell = venue.Sell

	Limit     = venue.Limit
	Market    = venue.Market
	IOC       = venue.IOC
	FOK       = venue.FOK
	PostOnly  = venue.PostOnly
	Ask       = venue.Ask
	Bid       = venue.Bid
	Liquidate = venue.Liquidate

	StatusNew           = venue.StatusNew
	StatusPartialFilled = venue.StatusPartialFilled
	StatusFilled        = venue.StatusFilled
	StatusCancelled     = venue.StatusCancelled
	StatusRejected      = venue.StatusRejected
)

// ValidOrderType reports whether t can be placed.
func ValidOrderType(t OrderType) bool { return t.Placeable() }

// Account modes, as strings (the universe file and the REST parameter).
const (
	ModePureSpot = string(venue.PureSpot)
	ModeMargin   = string(venue.Margin)
	ModeFutures  = string(venue.Futures)
)

// leverageChoices are the values POST /v1/client/leverage accepts per mode:
// margin leverage in MARGIN mode, futures leverage in FUTURES mode. PURE_SPOT
// has no leverage to set.
var leverageChoices = map[string][]int{
	ModePureSpot: nil,
	ModeMargin:   {3, 4, 5},
	ModeFutures:  {1, 2, 3, 4, 5, 10, 15, 20},
}

// Error is a refusal with the venue's error code.
type Error struct {
	Code    venue.Code
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

func errf(code venue.Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// OrderRequest is a validated-format order as POST /v1/order carries it;
// the Has* flags tell omitted parameters from zero values.
type OrderRequest struct {
	Symbol        string
	ClientOrderID int64
	Tag           string
	Type          OrderType
	Side          Side
	Price         decimal.Decimal
	Quantity      decimal.Decimal
	Amount        decimal.Decimal
	Visible       decimal.Decimal
	HasPrice      bool
	HasQuantity   bool
	HasAmount     bool
	HasVisible    bool
	ReduceOnly    bool // perpetuals: may only shrink the position (real-venue parameter)
}

// Order is a copy of an order's state as the venue reports it.
type Order struct {
	ID            int64
	ClientOrderID int64
	Tag           string
	Symbol        string
	Side          Side
	Type          OrderType
	Status        Status
	Reason        string
	Price         decimal.Decimal // limit price (ASK/BID: the price taken on acceptance)
	HasPrice      bool            // false for MARKET orders
	Quantity      decimal.Decimal
	HasQuantity   bool // false for MARKET/ASK/BID orders sized by amount
	Amount        decimal.Decimal
	HasAmount     bool
	Visible       decimal.Decimal
	Executed      decimal.Decimal
	ExecutedValue decimal.Decimal // sum of price*quantity of the fills
	TotalFee      decimal.Decimal
	FeeAsset      string
	CreatedMs     int64
	UpdatedMs     int64
	ApplicationID string
	ReduceOnly    bool
}

// AvgPrice is the average executed price; false when nothing executed.
func (o *Order) AvgPrice() (decimal.Decimal, bool) {
	if o.Executed.IsZero() {
		return decimal.Zero, false
	}
	return o.ExecutedValue.DivRound(o.Executed, 16), true
}

// Trade is one execution of an account's order.
type Trade struct {
	ID        int64
	OrderID   int64
	Symbol    string
	Tag       string
	Side      Side
	Price     decimal.Decimal
	Quantity  decimal.Decimal
	TimeMs    int64
	Maker     bool
	Fee       decimal.Decimal
	FeeAsset  string
	RealPnL   decimal.Decimal // perpetuals: realised profit of this fill
	Account   string          // application id
	ClientOID int64
}

// PublicTrade is a trade of the market as everyone sees it; Side is the taker's.
type PublicTrade struct {
	Symbol    string
	Price     decimal.Decimal
	Size      decimal.Decimal
	Side      Side
	Timestamp int64
}
