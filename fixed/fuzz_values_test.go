package fixed

import (
	"math/big"
	"regexp"
	"testing"
)

// decimalLiteral is the number grammar Parse implements: an optional
// sign, digits with an optional point (or a point and digits), an
// optional exponent.
var decimalLiteral = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// Parse's range is symmetric, ±(2^63-1): -2^63 has no positive twin and
// no venue sends it.
var exponent = regexp.MustCompile(`[eE][+-]?0*([0-9]+)$`)

var maxInt64 = big.NewRat(1<<63-1, 1)
var minInt64 = big.NewRat(-(1<<63 - 1), 1)

// reference parses s with math/big, independently of Parse: the value
// scaled by 10^dec, and whether it is an integer within int64 (what Parse
// must accept).
func reference(s string, dec int) (int64, bool) {
	if len(s) > 200 || !decimalLiteral.MatchString(s) {
		return 0, false
	}
	// Parse refuses exponents beyond ±400 outright (no int64 at 18
	// decimals needs one; even 0e700 is a sign of garbage), which also
	// keeps big.Rat cheap here.
	if m := exponent.FindStringSubmatch(s); m != nil && (len(m[1]) > 3 || m[1] > "400" && len(m[1]) == 3) {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, false
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec)), nil)))
	if !r.IsInt() || r.Cmp(maxInt64) > 0 || r.Cmp(minInt64) < 0 {
		return 0, false
	}
	return r.Num().Int64(), true
}

// FuzzParseValue: Parse agrees with an independent exact parse (math/big)
// on every input: the same value when both accept, a refusal exactly
// when the value has more decimals than dec or does not fit an int64;
// Format writes back a literal with the same value, which parses to it.
func FuzzParseValue(f *testing.F) {
	for _, s := range []string{"1", "-0.5", "1e-3", `"2.5"`, "9223372036854775807", "-9223372036854775808", "9223372036854775808",
		".", "e9", "5.", ".5", "+2", "0.000000000000000001", "1.50", "1.05", "00012.30", "-0", "1E+2", "2.5E-1", "123456789.123456789",
		"1e-19", "1.0000000000000000000001", "--1", "1.2.3", "1e", `"1`, ""} {
		for _, dec := range []int{0, 2, 8, 18} {
			f.Add([]byte(s), dec)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, dec int) {
		if dec < 0 || dec > MaxDecimals {
			dec = int(uint(dec) % (MaxDecimals + 1))
		}
		v, ok := Parse(b, dec)
		s := string(b)
		if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
			s = s[1 : len(s)-1]
		}
		want, wok := reference(s, dec)
		switch {
		case ok && !decimalLiteral.MatchString(s):
			t.Fatalf("Parse(%q, %d) accepted a non-number as %d", b, dec, v)
		case wok && (!ok || v != want):
			t.Fatalf("Parse(%q, %d) = %d, %v; math/big says %d", b, dec, v, ok, want)
		case ok && !wok && len(s) <= 200:
			t.Fatalf("Parse(%q, %d) = %d, which math/big refuses", b, dec, v)
		}
		if !ok {
			return
		}
		out := Append(nil, v, dec)
		back, ok2 := Parse(out, dec)
		if !ok2 || back != v {
			t.Fatalf("Append(%d, %d) = %q parses to %d, %v", v, dec, out, back, ok2)
		}
		if ref, rok := reference(string(out), dec); !rok || ref != v {
			t.Fatalf("Append(%d, %d) = %q, which math/big reads as %d, %v", v, dec, out, ref, rok)
		}
	})
}
