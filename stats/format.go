package stats

import (
	"math"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// FormatUSD writes an exact amount rounded to places decimals with thousands
// separators: 1234567.891 -> "1,234,567.89".
func FormatUSD(d decimal.Decimal, places int32) string {
	return groupThousands(d.StringFixed(places))
}

// FormatCount writes an integer with thousands separators.
func FormatCount(n int64) string { return groupThousands(strconv.FormatInt(n, 10)) }

func groupThousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	b.WriteString(sign)
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// CompactUSD writes an amount for an axis or a headline: "$0", "$950",
// "$12.3K", "$4.56M", "$1.2B", "$3.4T". The value is already a float because
// it is only drawn, never computed with.
func CompactUSD(v float64) string { return "$" + Compact(v) }

// Compact writes v with a K/M/B/T suffix and three significant digits.
func Compact(v float64) string {
	neg := v < 0
	v = math.Abs(v)
	if v >= 999.5e12 { // beyond trillions: scientific, still short
		s := strings.Replace(strconv.FormatFloat(v, 'g', 3, 64), "e+", "e", 1)
		if neg {
			s = "-" + s
		}
		return s
	}
	units := []struct {
		div    float64
		suffix string
	}{{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}}
	s := ""
	for _, u := range units {
		// Round first so 999,950 shows as 1M rather than 1000K.
		if r := roundSig(v/u.div, 3); r >= 1 {
			s = trimFloat(r) + u.suffix
			break
		}
	}
	if s == "" {
		s = trimFloat(roundSig(v, 3))
	}
	if neg && s != "0" {
		s = "-" + s
	}
	return s
}

func roundSig(v float64, sig int) float64 {
	if v == 0 {
		return 0
	}
	digits := sig - 1 - int(math.Floor(math.Log10(v)))
	if digits < 0 {
		digits = 0
	}
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func trimFloat(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i > 3 {
		s = s[:i+3]
	}
	return s
}

// FormatChange writes a change in percent with its sign: "+4.21%", "-0.50%".
func FormatChange(pct decimal.Decimal) string {
	s := pct.StringFixed(2) + "%"
	if pct.IsPositive() {
		s = "+" + s
	}
	return s
}

// ToFloat converts an exact amount for drawing only (chart geometry).
func ToFloat(d decimal.Decimal) float64 {
	f, _ := d.Float64()
	return f
}
