package trade

import (
	"strings"

	"github.com/shopspring/decimal"
)

// Fees are the account's fee rates in basis points (the unit of account
// information's maker_fee_rate/taker_fee_rate: 5 = 0.05%).
type Fees struct {
	MakerBps decimal.Decimal
	TakerBps decimal.Decimal
}

// Preview is what the order would cost, shown under the form and in the
// confirmation: notional, estimated fee, distance from mid.
type Preview struct {
	Price      decimal.Decimal // the order's price, or the expected one for venue-priced types
	Notional   decimal.Decimal // in quote currency
	Quote      string
	Taker      bool // expected to take liquidity (fee at the taker rate)
	FeeBps     decimal.Decimal
	Fee        decimal.Decimal
	FeeAsset   string // spot: base for BUY, quote for SELL; perpetuals: quote
	FromMidPct decimal.Decimal
	HasMid     bool
}

var (
	bpsDenom = decimal.NewFromInt(10_000)
	hundred  = decimal.NewFromInt(100)
)

// MakePreview computes the preview of an order. Unknown parts (no book for
// a MARKET order) stay zero.
func MakePreview(o Order, b Book, fees Fees) Preview {
	pv := Preview{Price: RefPrice(o, b), Quote: Quote(o.Symbol)}
	qty := o.Quantity
	if o.ByAmount() {
		pv.Notional = o.Amount
		if pv.Price.IsPositive() {
			qty = o.Amount.DivRound(pv.Price, 18)
		}
	} else {
		pv.Notional = pv.Price.Mul(qty)
	}
	pv.Taker = takes(o, b)
	pv.FeeBps = fees.MakerBps
	if pv.Taker {
		pv.FeeBps = fees.TakerBps
	}
	rate := pv.FeeBps.Div(bpsDenom)
	// Spot BUY pays in the base asset; perpetuals have no base balance and
	// settle every fee in the quote token (as the venue charges them).
	if o.Side == Buy && !IsPerp(o.Symbol) {
		pv.Fee, pv.FeeAsset = qty.Mul(rate), Base(o.Symbol)
	} else {
		pv.Fee, pv.FeeAsset = pv.Notional.Mul(rate), pv.Quote
	}
	if mid := b.Mid(); mid.IsPositive() && pv.Price.IsPositive() {
		pv.FromMidPct = pv.Price.Sub(mid).Div(mid).Mul(hundred)
		pv.HasMid = true
	}
	return pv
}

// takes guesses whether the order takes liquidity: types that cannot rest
// do; POST_ONLY never; ASK buys and BID sells cross at once; a LIMIT takes
// when it crosses the best opposite price.
func takes(o Order, b Book) bool {
	switch o.Type {
	case Market, IOC, FOK:
		return true
	case PostOnly:
		return false
	case Ask:
		return o.Side == Buy
	case Bid:
		return o.Side == Sell
	}
	if o.Side == Buy {
		return b.BestAsk.IsPositive() && !o.Price.LessThan(b.BestAsk)
	}
	return b.BestBid.IsPositive() && !o.Price.GreaterThan(b.BestBid)
}

// String renders the preview line:
// "notional 970.00 USDT · fee ≈ 0.0000005 BTC (taker 5 bps) · +0.52% from mid".
func (pv Preview) String() string {
	var sb strings.Builder
	sb.WriteString("notional ")
	if pv.Notional.IsPositive() {
		sb.WriteString(pv.Notional.StringFixed(2))
	} else {
		sb.WriteString("?")
	}
	sb.WriteString(" " + pv.Quote + " · fee ≈ ")
	sb.WriteString(pv.Fee.Round(10).String() + " " + pv.FeeAsset)
	role := "maker"
	if pv.Taker {
		role = "taker"
	}
	sb.WriteString(" (" + role + " " + pv.FeeBps.String() + " bps)")
	if pv.HasMid {
		pct := pv.FromMidPct.Round(2)
		sign := ""
		if pct.IsPositive() {
			sign = "+"
		}
		sb.WriteString(" · " + sign + pct.StringFixed(2) + "% from mid")
	}
	return sb.String()
}

// Large reports whether the notional reaches the confirmation threshold
// (zero threshold: never).
func (pv Preview) Large(threshold decimal.Decimal) bool {
	return threshold.IsPositive() && !pv.Notional.LessThan(threshold)
}
