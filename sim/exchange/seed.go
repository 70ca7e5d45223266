package exchange

import (
	"github.com/shopspring/decimal"
)

// SeedAccount is the internal account holding the initial liquidity.
const SeedAccount = "SEED_LIQUIDITY"

// seedLiquidity rests SeedLevels POST_ONLY orders on each side of every
// book around its last price, spaced two basis points (at least a tick)
// apart, each worth about SeedNotional with a seeded random factor, so the
// books are never empty even before the market generator runs.
func (e *Exchange) seedLiquidity() {
	levels := e.u.SeedLevels
	if levels <= 0 {
		return
	}
	notional := e.u.SeedNotional
	if !notional.IsPositive() {
		notional = decimal.NewFromInt(5000)
	}
	a := e.internalAccount(SeedAccount)
	for _, m := range e.marketList {
		mid := m.price(m.last)
		step := mid.Mul(decimal.RequireFromString("0.0002")).Shift(int32(m.pd)).Floor().IntPart()
		step = max(step-step%m.quoteTick, m.quoteTick)
		for i := int64(1); i <= int64(levels); i++ {
			for _, side := range []Side{Sell, Buy} {
				p := m.last + i*step
				if side == Buy {
					p = m.last - i*step
				}
				if p < max(m.quoteMin, 1) || p > m.quoteMax {
					continue
				}
				price := m.price(p)
				factor := decimal.New(int64(50+e.rng.IntN(101)), -2) // 0.50 .. 1.50
				q := notional.Mul(factor).Div(price).Shift(int32(m.qd)).Floor().IntPart()
				q -= (q - m.baseMin) % m.baseTick
				q = min(max(q, m.baseMin), m.baseMax)
				o, err := e.accept(a, OrderRequest{Symbol: m.spec.Symbol, Type: PostOnly, Side: side,
					Price: price, HasPrice: true, Quantity: m.qty(q), HasQuantity: true, Tag: "seed"})
				if err == nil {
					e.execute(o)
				}
			}
		}
	}
}
