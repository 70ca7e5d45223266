package exchange

import (
	"math/big"
	"math/bits"

	"github.com/shopspring/decimal"

	"tradedeck/fixed"
)

// toFixed converts an exact decimal to fixed point with dec decimals
// without going through text (fixed.FromDecimal formats and parses, which
// is most of an order's cost). false when d has more fraction digits than
// dec or does not fit an int64.
func toFixed(d decimal.Decimal, dec int) (int64, bool) {
	if d.NumDigits() > 18 {
		return fixed.FromDecimal(d, dec)
	}
	c := d.CoefficientInt64()
	e := int(d.Exponent()) + dec
	switch {
	case c == 0:
		return 0, true
	case e >= 0:
		if e > 18 {
			return 0, false
		}
		p := fixed.Pow10(e)
		hi, lo := bits.Mul64(uabs(c), uint64(p))
		if hi != 0 || lo > 1<<63-1 {
			return 0, false
		}
		if c < 0 {
			return -int64(lo), true
		}
		return int64(lo), true
	default:
		if -e > 18 {
			return 0, false
		}
		p := fixed.Pow10(-e)
		if c%p != 0 {
			return 0, false
		}
		return c / p, true
	}
}

func uabs(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}

// cmpProducts compares a*b with c*d for non-negative values, exactly.
func cmpProducts(a, b, c, d int64) int {
	h1, l1 := bits.Mul64(uint64(a), uint64(b))
	h2, l2 := bits.Mul64(uint64(c), uint64(d))
	switch {
	case h1 != h2:
		if h1 < h2 {
			return -1
		}
		return 1
	case l1 < l2:
		return -1
	case l1 > l2:
		return 1
	}
	return 0
}

// u128 accumulates price*quantity products (quote amounts) exactly.
type u128 struct{ hi, lo uint64 }

func (u *u128) addProduct(a, b int64) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	var carry uint64
	u.lo, carry = bits.Add64(u.lo, lo, 0)
	u.hi, _ = bits.Add64(u.hi, hi, carry)
}

func (u *u128) add(v u128) {
	var carry uint64
	u.lo, carry = bits.Add64(u.lo, v.lo, 0)
	u.hi, _ = bits.Add64(u.hi, v.hi, carry)
}

// decimal returns the amount with dec decimals.
func (u u128) decimal(dec int) decimal.Decimal {
	if u.hi == 0 && u.lo <= 1<<63-1 {
		return decimal.New(int64(u.lo), int32(-dec))
	}
	v := new(big.Int).SetUint64(u.hi)
	v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(u.lo))
	return decimal.NewFromBigInt(v, int32(-dec))
}

// u128From converts a non-negative decimal amount at dec decimals (state files).
func u128From(d decimal.Decimal, dec int) u128 {
	v := d.Shift(int32(dec)).Truncate(0).BigInt()
	if v.Sign() <= 0 {
		return u128{}
	}
	lo := new(big.Int).And(v, new(big.Int).SetUint64(^uint64(0))).Uint64()
	return u128{hi: new(big.Int).Rsh(v, 64).Uint64(), lo: lo}
}
