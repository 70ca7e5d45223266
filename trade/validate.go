package trade

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"tradedeck/venue"
)

// Field names the part of the order a Problem is about.
type Field uint8

const (
	FieldOrder Field = iota // the order as a whole
	FieldPrice
	FieldQuantity
	FieldAmount
	FieldVisible
	FieldClientOrderID
	FieldTag
)

func (f Field) String() string {
	return [...]string{"order", "price", "quantity", "amount", "visible quantity", "client order id", "tag"}[f]
}

// Problem is one broken order acceptance rule. Code is the error the venue
// answers for the same violation, so a client-side refusal and a server
// refusal read alike. Nearest, when HasNearest, is the closest value of
// Field that satisfies the rule.
type Problem struct {
	Field      Field
	Code       venue.Code
	Rule       string // the spec's name of the rule: "price filter", "size filter", ...
	Text       string // what is wrong, in the spec's words
	Nearest    decimal.Decimal
	HasNearest bool
}

// Error renders "rule: text: nearest N".
func (p Problem) Error() string {
	s := p.Rule + ": " + p.Text
	if p.HasNearest {
		s += ": nearest " + p.Nearest.String()
	}
	return s
}

// Book is what validation needs of the order book: the best prices, zero
// when a side is empty or unknown.
type Book struct {
	BestBid decimal.Decimal
	BestAsk decimal.Decimal
}

// Mid is the mid price, or the one known side, or zero.
func (b Book) Mid() decimal.Decimal {
	switch {
	case b.BestBid.IsPositive() && b.BestAsk.IsPositive():
		return b.BestBid.Add(b.BestAsk).Div(decimal.NewFromInt(2))
	case b.BestBid.IsPositive():
		return b.BestBid
	}
	return b.BestAsk
}

// Funds is the account side of validation.
type Funds struct {
	Known      bool   // balances have been loaded
	Mode       string // PURE_SPOT, MARGIN, FUTURES
	BaseAvail  decimal.Decimal
	QuoteAvail decimal.Decimal
}

// Env is everything an order is validated against.
type Env struct {
	Rule  Rule
	Book  Book
	Funds Funds
	// OpenClientIDs are the client order ids of open orders (a new order
	// may not reuse one; 0 means "none" and is always allowed).
	OpenClientIDs map[int64]bool
	// Position is the signed perpetual position of the symbol (negative:
	// short), for reduce-only orders; PositionKnown says it was loaded.
	Position      decimal.Decimal
	PositionKnown bool
}

// Problems is the result of Validate, in field order.
type Problems []Problem

// OK reports whether the order may be sent.
func (ps Problems) OK() bool { return len(ps) == 0 }

// For returns the first problem of a field.
func (ps Problems) For(f Field) (Problem, bool) {
	for _, p := range ps {
		if p.Field == f {
			return p, true
		}
	}
	return Problem{}, false
}

// RefPrice is the price an order is expected to trade at: its own price,
// or for venue-priced types the best price they take (MARKET/BUY and ASK:
// best ask; MARKET/SELL and BID: best bid). Zero when unknown.
func RefPrice(o Order, b Book) decimal.Decimal {
	switch {
	case o.Type == Ask, o.Type == Market && o.Side == Buy:
		return b.BestAsk
	case o.Type == Bid, o.Type == Market && o.Side == Sell:
		return b.BestBid
	}
	return o.Price
}

// Validate checks an order against the venue's order acceptance rules
// (the symbol rules of the WOO X API docs, https://docs.woox.io/): price filter (-1103), percentage filter (-1105), size
// filter (-1104), min notional (-1102), risk exposure (-1101, spot
// holding), and the parameter rules (-1005): required price, exclusive
// quantity/amount, amount precision, visible quantity, client order id.
func Validate(o Order, env Env) Problems {
	var ps Problems
	r := env.Rule
	add := func(p Problem) { ps = append(ps, p) }

	if o.Side != Buy && o.Side != Sell {
		add(Problem{Field: FieldOrder, Code: venue.CodeInvalidParam, Rule: "side", Text: "side must be BUY or SELL"})
	}
	if !validType(o.Type) {
		add(Problem{Field: FieldOrder, Code: venue.CodeInvalidParam, Rule: "order type", Text: "unknown order type " + string(o.Type)})
		return ps
	}

	if o.Type.UserPriced() {
		if p, bad := checkPrice(o, env); bad {
			add(p)
		}
	}

	byAmount := o.Amount.IsPositive()
	switch {
	case byAmount && o.Quantity.IsPositive():
		add(Problem{Field: FieldAmount, Code: venue.CodeInvalidParam, Rule: "order size",
			Text: "give either quantity or amount, not both"})
	case byAmount && !o.Type.AllowsAmount():
		add(Problem{Field: FieldAmount, Code: venue.CodeInvalidParam, Rule: "order size",
			Text: "amount (quote size) is only for MARKET, ASK and BID orders"})
	case byAmount:
		if p, bad := checkAmount(o, env); bad {
			add(p)
		}
	default:
		if p, bad := checkQuantity(o, env); bad {
			add(p)
		} else if p, bad := checkNotional(o, env); bad {
			add(p)
		}
	}
	if _, sizeBad := ps.For(FieldQuantity); !sizeBad {
		if _, amountBad := ps.For(FieldAmount); !amountBad {
			if p, bad := checkFunds(o, env); bad {
				add(p)
			}
		}
	}

	if o.HasVisible && o.Type.UsesVisible() {
		switch {
		case o.Visible.IsNegative():
			add(Problem{Field: FieldVisible, Code: venue.CodeInvalidParam, Rule: "visible quantity",
				Text: "visible quantity must not be negative (0 hides the order)", Nearest: decimal.Zero, HasNearest: true})
		case !byAmount && o.Visible.GreaterThan(o.Quantity):
			add(Problem{Field: FieldVisible, Code: venue.CodeInvalidParam, Rule: "visible quantity",
				Text: "visible quantity must not exceed the order quantity " + o.Quantity.String(), Nearest: o.Quantity, HasNearest: true})
		case !onGrid(o.Visible, decimal.Zero, r.BaseTick):
			add(Problem{Field: FieldVisible, Code: venue.CodeSizeFilter, Rule: "size filter",
				Text:    "visible quantity must be a multiple of step " + r.BaseTick.String(),
				Nearest: align(o.Visible, decimal.Zero, r.BaseTick, Down), HasNearest: true})
		}
	}

	if o.ClientOrderID < 0 {
		add(Problem{Field: FieldClientOrderID, Code: venue.CodeInvalidParam, Rule: "client order id",
			Text: fmt.Sprintf("client order id must be 0 to %d", int64(MaxClientOrderID))})
	} else if o.ClientOrderID != 0 && env.OpenClientIDs[o.ClientOrderID] {
		add(Problem{Field: FieldClientOrderID, Code: venue.CodeDuplicateRequest, Rule: "client order id",
			Text:    fmt.Sprintf("client order id %d is used by an open order; it must be unique among open orders", o.ClientOrderID),
			Nearest: decimal.NewFromInt(FreeClientID(o.ClientOrderID, env.OpenClientIDs)), HasNearest: true})
	}
	if o.ReduceOnly {
		if p, bad := checkReduceOnly(o, env); bad {
			add(p)
		}
	}
	if bad := badTagChar(o.Tag); bad != 0 {
		add(Problem{Field: FieldTag, Code: venue.CodeInvalidParam, Rule: "order tag",
			Text: fmt.Sprintf("tag may hold letters, digits and - _ . only, not %q", bad)})
	}
	return ps
}

func validType(t Type) bool {
	for _, x := range Types {
		if x == t {
			return true
		}
	}
	return false
}

// checkPrice applies the price filter and the percentage filter.
func checkPrice(o Order, env Env) (Problem, bool) {
	r := env.Rule
	p := o.Price
	bad := func(code venue.Code, rule, text string) (Problem, bool) {
		return Problem{Field: FieldPrice, Code: code, Rule: rule, Text: text,
			Nearest: NearestPrice(o.Side, p, env), HasNearest: true}, true
	}
	switch {
	case !p.IsPositive():
		return Problem{Field: FieldPrice, Code: venue.CodeInvalidParam, Rule: "price",
			Text: "price is required for " + string(o.Type) + " orders"}, true
	case p.LessThan(r.QuoteMin):
		return bad(venue.CodePriceFilter, "price filter", "price must be at least quote_min "+r.QuoteMin.String())
	case r.QuoteMax.IsPositive() && p.GreaterThan(r.QuoteMax):
		return bad(venue.CodePriceFilter, "price filter", "price must be at most quote_max "+r.QuoteMax.String())
	case !onGrid(p, r.QuoteMin, r.QuoteTick):
		return bad(venue.CodePriceFilter, "price filter",
			"price must be a multiple of tick "+r.QuoteTick.String()+" from "+r.QuoteMin.String())
	}
	lo, hi := priceBand(o.Side, env)
	if hi.IsPositive() && p.GreaterThan(hi) {
		return bad(venue.CodePercentageFilter, "percentage filter",
			fmt.Sprintf("BUY price must be at most best ask %s × (1 + price_range %s) = %s",
				env.Book.BestAsk, r.PriceRange, hi))
	}
	if lo.IsPositive() && p.LessThan(lo) {
		return bad(venue.CodePercentageFilter, "percentage filter",
			fmt.Sprintf("SELL price must be at least best bid %s × (1 - price_range %s) = %s",
				env.Book.BestBid, r.PriceRange, lo))
	}
	return Problem{}, false
}

// priceBand is the percentage filter's bound for a side: BUY prices up to
// asks[0]*(1+price_range), SELL prices down to bids[0]*(1-price_range).
// Zero means no bound (empty side, or no price_range).
func priceBand(side Side, env Env) (lo, hi decimal.Decimal) {
	rng := env.Rule.PriceRange
	if !rng.IsPositive() {
		return
	}
	one := decimal.NewFromInt(1)
	if side == Buy && env.Book.BestAsk.IsPositive() {
		hi = env.Book.BestAsk.Mul(one.Add(rng))
	}
	if side == Sell && env.Book.BestBid.IsPositive() {
		lo = env.Book.BestBid.Mul(one.Sub(rng))
	}
	return
}

// NearestPrice is the valid price closest to p for the side: on the tick
// grid, within quote_min/quote_max and the percentage band.
func NearestPrice(side Side, p decimal.Decimal, env Env) decimal.Decimal {
	r := env.Rule
	q := r.clampPrice(r.AlignPrice(p, Nearest))
	lo, hi := priceBand(side, env)
	if hi.IsPositive() && q.GreaterThan(hi) {
		q = r.AlignPrice(hi, Down)
	}
	if lo.IsPositive() && q.LessThan(lo) {
		q = r.AlignPrice(lo, Up)
	}
	return q
}

// checkQuantity applies the size filter.
func checkQuantity(o Order, env Env) (Problem, bool) {
	r := env.Rule
	q := o.Quantity
	bad := func(text string) (Problem, bool) {
		// The nearest size-valid quantity that also clears min notional.
		nearest := r.clampQty(r.AlignQty(q, Nearest))
		if price := RefPrice(o, env.Book); price.IsPositive() && r.MinNotional.IsPositive() &&
			!price.Mul(nearest).GreaterThan(r.MinNotional) {
			nearest = MinQuantity(price, r)
		}
		return Problem{Field: FieldQuantity, Code: venue.CodeSizeFilter, Rule: "size filter", Text: text,
			Nearest: nearest, HasNearest: true}, true
	}
	switch {
	case !q.IsPositive():
		if o.Type.AllowsAmount() {
			return Problem{Field: FieldQuantity, Code: venue.CodeInvalidParam, Rule: "order size",
				Text: "give a quantity or an amount"}, true
		}
		return Problem{Field: FieldQuantity, Code: venue.CodeInvalidParam, Rule: "order size",
			Text: "quantity is required"}, true
	case q.LessThan(r.BaseMin):
		return bad("quantity must be at least base_min " + r.BaseMin.String())
	case r.BaseMax.IsPositive() && q.GreaterThan(r.BaseMax):
		return bad("quantity must be at most base_max " + r.BaseMax.String())
	case !onGrid(q, r.BaseMin, r.BaseTick):
		return bad("quantity must be a multiple of step " + r.BaseTick.String() + " from " + r.BaseMin.String())
	}
	return Problem{}, false
}

// checkNotional applies the min notional filter: price*quantity must be
// greater than min_notional. Venue-priced orders use the price they are
// expected to trade at (skipped when the book is empty).
func checkNotional(o Order, env Env) (Problem, bool) {
	r := env.Rule
	price := RefPrice(o, env.Book)
	if !price.IsPositive() || !r.MinNotional.IsPositive() {
		return Problem{}, false
	}
	notional := price.Mul(o.Quantity)
	if notional.GreaterThan(r.MinNotional) {
		return Problem{}, false
	}
	return Problem{Field: FieldQuantity, Code: venue.CodeMinNotional, Rule: "min notional filter",
		Text:    fmt.Sprintf("price × quantity = %s must be greater than min_notional %s", notional, r.MinNotional),
		Nearest: MinQuantity(price, r), HasNearest: true}, true
}

// MinQuantity is the smallest valid quantity whose notional at price is
// greater than min_notional.
func MinQuantity(price decimal.Decimal, r Rule) decimal.Decimal {
	q := r.BaseMin
	if price.IsPositive() && r.MinNotional.IsPositive() {
		need := r.AlignQty(r.MinNotional.DivRound(price, 18), Up)
		if need.GreaterThan(q) {
			q = need
		}
		if !price.Mul(q).GreaterThan(r.MinNotional) && r.BaseTick.IsPositive() {
			q = q.Add(r.BaseTick)
		}
	}
	return r.clampQty(q)
}

// checkAmount validates an order sized in quote currency.
func checkAmount(o Order, env Env) (Problem, bool) {
	a := o.Amount
	if -a.Exponent() > MaxAmountDecimals {
		return Problem{Field: FieldAmount, Code: venue.CodeInvalidParam, Rule: "order amount",
			Text:    fmt.Sprintf("amount precision is at most %d digits", MaxAmountDecimals),
			Nearest: a.RoundDown(MaxAmountDecimals), HasNearest: true}, true
	}
	if mn := env.Rule.MinNotional; mn.IsPositive() && !a.GreaterThan(mn) {
		next := mn.Add(decimal.New(1, -MaxAmountDecimals))
		if q := env.Rule.QuoteTick; q.IsPositive() {
			next = mn.Add(q)
		}
		return Problem{Field: FieldAmount, Code: venue.CodeMinNotional, Rule: "min notional filter",
			Text:    fmt.Sprintf("amount %s must be greater than min_notional %s", a, mn),
			Nearest: next, HasNearest: true}, true
	}
	return Problem{}, false
}

// checkFunds applies the risk exposure filter where the client can. A
// perpetual needs an account in FUTURES mode. On a PURE_SPOT account a
// spot order must lie within the holding: BUY spends quote, SELL spends
// base; a MARKET order reserves at its worst price (price_range past the
// best opposite price), as the venue does. Margin exposure depends on the
// venue's margin thresholds, which are not published: its -1101 answer
// covers them.
func checkFunds(o Order, env Env) (Problem, bool) {
	f := env.Funds
	if !f.Known {
		return Problem{}, false
	}
	field := FieldQuantity
	if o.ByAmount() {
		field = FieldAmount
	}
	if IsPerp(o.Symbol) {
		if f.Mode != "" && f.Mode != "FUTURES" {
			return Problem{Field: FieldOrder, Code: venue.CodeRiskTooHigh, Rule: "risk exposure filter",
				Text: "perpetual futures need account mode FUTURES (now " + f.Mode + "); change it on the account screen"}, true
		}
		return Problem{}, false
	}
	if f.Mode != "PURE_SPOT" {
		return Problem{}, false
	}
	r := env.Rule
	price := RefPrice(o, env.Book)
	if o.Type == Market {
		price = MarketWorstPrice(o.Side, env)
	}
	base, quote := Base(o.Symbol), Quote(o.Symbol)
	bad := func(text string, nearest decimal.Decimal) (Problem, bool) {
		if nearest.IsNegative() {
			nearest = decimal.Zero
		}
		return Problem{Field: field, Code: venue.CodeRiskTooHigh, Rule: "risk exposure filter",
			Text: text, Nearest: nearest, HasNearest: true}, true
	}
	switch {
	case o.Side == Buy && o.ByAmount():
		if o.Amount.GreaterThan(f.QuoteAvail) {
			return bad(fmt.Sprintf("BUY needs %s %s, available %s", o.Amount, quote, f.QuoteAvail), f.QuoteAvail.RoundDown(MaxAmountDecimals))
		}
	case o.Side == Buy:
		if !price.IsPositive() {
			return Problem{}, false
		}
		need := price.Mul(o.Quantity)
		if need.GreaterThan(f.QuoteAvail) {
			return bad(fmt.Sprintf("BUY needs %s %s, available %s", need, quote, f.QuoteAvail),
				r.AlignQty(f.QuoteAvail.DivRound(price, 18), Down))
		}
	case o.ByAmount():
		if !price.IsPositive() {
			return Problem{}, false
		}
		need := o.Amount.DivRound(price, 18)
		if need.GreaterThan(f.BaseAvail) {
			return bad(fmt.Sprintf("SELL needs about %s %s, available %s", need.Round(8), base, f.BaseAvail),
				f.BaseAvail.Mul(price).RoundDown(MaxAmountDecimals))
		}
	default:
		if o.Quantity.GreaterThan(f.BaseAvail) {
			return bad(fmt.Sprintf("SELL needs %s %s, available %s", o.Quantity, base, f.BaseAvail),
				r.AlignQty(f.BaseAvail, Down))
		}
	}
	return Problem{}, false
}

// MarketWorstPrice is the worst price a MARKET order may trade at:
// price_range past the best opposite price, on the tick grid and within
// quote_min/quote_max. Zero when that side of the book is empty.
func MarketWorstPrice(side Side, env Env) decimal.Decimal {
	lo, hi := priceBand(side, env)
	r := env.Rule
	switch {
	case hi.IsPositive():
		p := r.AlignPrice(hi, Down)
		if m := r.maxPrice(); m.IsPositive() && p.GreaterThan(m) {
			p = m
		}
		return p
	case lo.IsPositive():
		p := r.AlignPrice(lo, Up)
		if p.LessThan(r.QuoteMin) {
			p = r.QuoteMin
		}
		return p
	}
	return RefPrice(Order{Side: side, Type: Market}, env.Book)
}

// checkReduceOnly: a reduce-only order is for perpetuals, sized by
// quantity, opposite to the position and no larger than it.
func checkReduceOnly(o Order, env Env) (Problem, bool) {
	bad := func(code venue.Code, text string) (Problem, bool) {
		return Problem{Field: FieldOrder, Code: code, Rule: "reduce only", Text: text}, true
	}
	switch {
	case !IsPerp(o.Symbol):
		return bad(venue.CodeInvalidParam, "reduce only is for perpetual symbols")
	case o.ByAmount():
		return bad(venue.CodeInvalidParam, "a reduce-only order needs a quantity, not an amount")
	case !env.PositionKnown:
		return Problem{}, false
	}
	pos := env.Position
	if o.Side == Buy {
		pos = pos.Neg() // a BUY reduces a short
	}
	if !pos.IsPositive() {
		return bad(venue.CodeRiskTooHigh, fmt.Sprintf("reduce-only %s would increase the position %s", o.Side, env.Position))
	}
	if o.Quantity.GreaterThan(pos) {
		p, _ := bad(venue.CodeRiskTooHigh, fmt.Sprintf("reduce-only %s of %s is larger than the position %s", o.Side, o.Quantity, env.Position))
		p.Field, p.Nearest, p.HasNearest = FieldQuantity, env.Rule.AlignQty(pos, Down), true
		return p, true
	}
	return Problem{}, false
}

// badTagChar returns the first character of a tag that is not URL-safe
// (the venue's handling of other characters is not public), or 0.
func badTagChar(tag string) rune {
	for _, c := range tag {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.", c)) {
			return c
		}
	}
	return 0
}
