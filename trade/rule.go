// Package trade is the pure logic of order entry: the order request, its
// validation against the venue's order acceptance rules (symbol rule, book,
// balance), the preview line (notional, fee, distance from mid), client
// order ids and the explanation of venue errors. No I/O and no UI: the
// order form and the tests call it with plain values.
package trade

import (
	"strings"

	"github.com/shopspring/decimal"
)

// Rule is a symbol's trading rule (exchange information), exact decimals.
// A zero field means "not limited" (for example quote_min 0 on perpetuals).
type Rule struct {
	Symbol      string
	QuoteMin    decimal.Decimal // minimum price
	QuoteMax    decimal.Decimal // maximum price
	QuoteTick   decimal.Decimal // price tick, counted from QuoteMin
	BaseMin     decimal.Decimal // minimum quantity
	BaseMax     decimal.Decimal // maximum quantity
	BaseTick    decimal.Decimal // quantity step, counted from BaseMin
	MinNotional decimal.Decimal // price*quantity must be greater
	PriceRange  decimal.Decimal // allowed deviation fraction from the best opposite price
}

// Base and Quote split a symbol written <TYPE>_<BASE>_<QUOTE>.
func Base(symbol string) string  { return symbolPart(symbol, 1) }
func Quote(symbol string) string { return symbolPart(symbol, 2) }

// IsPerp reports a perpetual-futures symbol.
func IsPerp(symbol string) bool { return strings.HasPrefix(symbol, "PERP_") }

func symbolPart(symbol string, i int) string {
	parts := strings.SplitN(symbol, "_", 3)
	if len(parts) != 3 {
		return ""
	}
	return parts[i]
}

// Rounding says where an unaligned value goes.
type Rounding uint8

const (
	Nearest Rounding = iota
	Down
	Up
)

// align puts v on the grid origin + k*step (k integer). A zero step means
// no grid. Exact: QuoRem with precision 0 gives the integer quotient.
func align(v, origin, step decimal.Decimal, r Rounding) decimal.Decimal {
	if !step.IsPositive() {
		return v
	}
	q, rem := v.Sub(origin).QuoRem(step, 0)
	if rem.IsZero() {
		return v
	}
	// QuoRem truncates toward zero; rem has the sign of v-origin.
	lower := origin.Add(q.Mul(step))
	if rem.IsNegative() {
		lower = lower.Sub(step)
	}
	upper := lower.Add(step)
	switch r {
	case Down:
		return lower
	case Up:
		return upper
	}
	if v.Sub(lower).Cmp(upper.Sub(v)) < 0 {
		return lower
	}
	return upper
}

// onGrid reports whether (v - origin) % step == 0.
func onGrid(v, origin, step decimal.Decimal) bool {
	if !step.IsPositive() {
		return true
	}
	_, rem := v.Sub(origin).QuoRem(step, 0)
	return rem.IsZero()
}

// grid is one axis of a rule: values from min to max (zero max: no
// limit) on steps of tick counted from min. Prices and quantities follow
// the same rules on their own grids.
type grid struct{ min, max, tick decimal.Decimal }

func (r Rule) priceGrid() grid { return grid{r.QuoteMin, r.QuoteMax, r.QuoteTick} }
func (r Rule) qtyGrid() grid   { return grid{r.BaseMin, r.BaseMax, r.BaseTick} }

func (g grid) align(v decimal.Decimal, how Rounding) decimal.Decimal {
	return align(v, g.min, g.tick, how)
}

// step moves v by n ticks, first aligning it, and keeps it on the grid.
func (g grid) step(v decimal.Decimal, n int) decimal.Decimal {
	how := Nearest
	if !onGrid(v, g.min, g.tick) {
		// An off-grid value first snaps in the direction of the step.
		switch {
		case n > 0:
			how, n = Up, n-1
		case n < 0:
			how, n = Down, n+1
		}
	}
	v = g.align(v, how)
	if g.tick.IsPositive() {
		v = v.Add(g.tick.Mul(decimal.NewFromInt(int64(n))))
	}
	return g.clamp(v)
}

// top is the highest value on the grid not above max (zero when max is
// zero: unlimited).
func (g grid) top() decimal.Decimal {
	if !g.max.IsPositive() {
		return decimal.Zero
	}
	return g.align(g.max, Down)
}

// clamp keeps v within [min, top], and above zero where there is a tick.
func (g grid) clamp(v decimal.Decimal) decimal.Decimal {
	if v.LessThan(g.min) {
		v = g.min
	}
	if m := g.top(); m.IsPositive() && v.GreaterThan(m) {
		v = m
	}
	if !v.IsPositive() && g.tick.IsPositive() {
		v = g.align(g.tick, Up) // a price or quantity is never 0
	}
	return v
}

// AlignPrice puts a price on the tick grid (from quote_min).
func (r Rule) AlignPrice(p decimal.Decimal, how Rounding) decimal.Decimal {
	return r.priceGrid().align(p, how)
}

// AlignQty puts a quantity on the step grid (from base_min).
func (r Rule) AlignQty(q decimal.Decimal, how Rounding) decimal.Decimal {
	return r.qtyGrid().align(q, how)
}

// StepPrice moves a price by n ticks (n may be negative), first aligning
// it, and keeps it within [quote_min, quote_max]. The order form's up and
// down arrows use it.
func (r Rule) StepPrice(p decimal.Decimal, n int) decimal.Decimal { return r.priceGrid().step(p, n) }

// StepQty moves a quantity by n steps, within [base_min, base_max].
func (r Rule) StepQty(q decimal.Decimal, n int) decimal.Decimal { return r.qtyGrid().step(q, n) }

// maxPrice is the highest price on the grid not above quote_max (zero
// quote_max: unlimited, returned as zero).
func (r Rule) maxPrice() decimal.Decimal { return r.priceGrid().top() }

func (r Rule) clampPrice(p decimal.Decimal) decimal.Decimal { return r.priceGrid().clamp(p) }

func (r Rule) clampQty(q decimal.Decimal) decimal.Decimal { return r.qtyGrid().clamp(q) }
