// Package fixed is exact fixed-point arithmetic on int64 for the hot paths
// (order book, matching engine, frame decoders): a value v with d decimals
// stands for v / 10^d. Parsing reads ASCII bytes straight from JSON, never
// through float64, and allocates nothing.
package fixed

import (
	"strconv"

	"github.com/shopspring/decimal"
)

// MaxDecimals is the largest scale supported; 10^18 still fits an int64.
const MaxDecimals = 18

var pow10 = [...]int64{
	1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
}

// Pow10 returns 10^n for 0 <= n <= 18.
func Pow10(n int) int64 { return pow10[n] }

// Parse reads a decimal number such as "123", "-0.5", "1.250", "1e-3" or
// "2.5E+2" into an int64 scaled by 10^dec. Surrounding double quotes are
// accepted, because venues send numbers both as JSON numbers and strings.
// It fails (ok=false) on syntax errors, on overflow, and when the value has
// more significant fraction digits than dec (trailing zeros are fine):
// silently rounding a price would corrupt a book.
//
// The digit loop stays here, on the hot path; the sign, the exponent and
// the scaling are small helpers the compiler inlines.
func Parse(b []byte, dec int) (v int64, ok bool) {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	if len(b) == 0 || dec < 0 || dec > MaxDecimals {
		return 0, false
	}
	neg, i := leadingSign(b)
	var mant uint64 // digits read so far, as an integer
	digits := 0     // significant digits in mant
	fracDigits := 0 // digits after the point held in mant
	sawDigit, sawPoint := false, false
	for ; i < len(b); i++ {
		c := b[i]
		if c == '.' {
			if sawPoint {
				return 0, false
			}
			sawPoint = true
			continue
		}
		if c == 'e' || c == 'E' {
			break
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		sawDigit = true
		if mant == 0 && c == '0' && !sawPoint {
			continue // leading zero
		}
		if digits >= 19 {
			if c != '0' || !sawPoint {
				return 0, false // integer part too long, or a digit the scale cannot hold
			}
			continue
		}
		mant = mant*10 + uint64(c-'0')
		if mant != 0 {
			digits++
		}
		if sawPoint {
			fracDigits++
		}
	}
	if !sawDigit {
		return 0, false
	}
	exp := 0
	if i < len(b) { // b[i] is 'e' or 'E'
		if exp, ok = parseExponent(b[i+1:]); !ok {
			return 0, false
		}
	}
	// value = mant * 10^(exp - fracDigits); we want value * 10^dec.
	u, ok := scaleMantissa(mant, dec+exp-fracDigits)
	if !ok {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// leadingSign reports whether b starts with a minus and where its digits
// start (after a sign).
func leadingSign(b []byte) (neg bool, start int) {
	switch b[0] {
	case '-':
		return true, 1
	case '+':
		return false, 1
	}
	return false, 0
}

// parseExponent reads the digits after an exponent mark: an optional sign
// and at least one digit. Exponents beyond ±400 fail: no int64 at 18
// decimals needs one. It is written to stay within the inliner's budget
// (go build -gcflags=-m shows it inlined into Parse).
func parseExponent(b []byte) (exp int, ok bool) {
	neg := false
	if len(b) > 1 && (b[0] == '-' || b[0] == '+') {
		neg, b = b[0] == '-', b[1:]
	}
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		if exp = exp*10 + int(d); exp > 400 {
			return 0, false
		}
	}
	if neg {
		exp = -exp
	}
	return exp, len(b) > 0
}

// scaleMantissa returns mant * 10^shift. A negative shift may only drop
// zeros (more precision than the scale holds fails); the result must fit
// an int64.
func scaleMantissa(mant uint64, shift int) (uint64, bool) {
	if mant == 0 {
		return 0, true
	}
	for shift < 0 {
		if mant%10 != 0 {
			return 0, false
		}
		mant /= 10
		shift++
	}
	if shift > MaxDecimals {
		return 0, false
	}
	if shift > 0 {
		p := uint64(pow10[shift])
		if mant > (1<<63-1)/p {
			return 0, false
		}
		mant *= p
	}
	if mant > 1<<63-1 {
		return 0, false
	}
	return mant, true
}

// ParseString is Parse for a string.
func ParseString(s string, dec int) (int64, bool) {
	return Parse([]byte(s), dec)
}

// Append writes v (scaled by 10^dec) as a plain decimal, trimming trailing
// zeros of the fraction, and returns the extended buffer.
func Append(dst []byte, v int64, dec int) []byte {
	return appendFixed(dst, v, dec, false)
}

// AppendPadded is Append that keeps all dec fraction digits (for aligned
// columns: "1.50", "12.00").
func AppendPadded(dst []byte, v int64, dec int) []byte {
	return appendFixed(dst, v, dec, true)
}

func appendFixed(dst []byte, v int64, dec int, pad bool) []byte {
	u := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		u = uint64(-v)
	}
	if dec == 0 {
		return strconv.AppendUint(dst, u, 10)
	}
	p := uint64(pow10[dec])
	dst = strconv.AppendUint(dst, u/p, 10)
	frac := u % p
	if frac == 0 && !pad {
		return dst
	}
	var buf [MaxDecimals]byte
	for i := dec - 1; i >= 0; i-- {
		buf[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := dec
	if !pad {
		for n > 0 && buf[n-1] == '0' {
			n--
		}
	}
	dst = append(dst, '.')
	return append(dst, buf[:n]...)
}

// Format is Append into a new string.
func Format(v int64, dec int) string { return string(Append(nil, v, dec)) }

// FormatPadded is AppendPadded into a new string.
func FormatPadded(v int64, dec int) string { return string(AppendPadded(nil, v, dec)) }

// FromDecimal converts an exact decimal to fixed point; ok is false when d
// has more fraction digits than dec or does not fit.
func FromDecimal(d decimal.Decimal, dec int) (int64, bool) {
	return ParseString(d.String(), dec)
}

// ToDecimal converts a fixed-point value to an exact decimal.
func ToDecimal(v int64, dec int) decimal.Decimal {
	return decimal.New(v, int32(-dec))
}

// DecimalsOf returns how many fraction digits d needs: 0.01 -> 2, 5 -> 0,
// 0.00050 -> 4. Used to derive a symbol's scale from its tick sizes.
func DecimalsOf(d decimal.Decimal) int {
	e := -int(d.Exponent())
	c := d.Coefficient()
	if c.Sign() == 0 {
		return 0
	}
	ten := decimalTen
	for e > 0 {
		q, r := c.QuoRem(c, ten, new(bigInt))
		if r.Sign() != 0 {
			break
		}
		c = q
		e--
	}
	if e < 0 {
		return 0
	}
	return e
}

// MulDiv returns a*b/c rounded toward zero, without overflow for values that
// fit the result (it uses 128-bit intermediate arithmetic). ok is false if c
// is zero or the result overflows.
func MulDiv(a, b, c int64) (int64, bool) {
	if c == 0 {
		return 0, false
	}
	neg := (a < 0) != (b < 0) != (c < 0)
	ua, ub, uc := abs(a), abs(b), abs(c)
	hi, lo := mul64(ua, ub)
	if hi >= uc {
		return 0, false
	}
	q, _ := div128(hi, lo, uc)
	if q > 1<<63-1 {
		return 0, false
	}
	if neg {
		return -int64(q), true
	}
	return int64(q), true
}

func abs(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}
