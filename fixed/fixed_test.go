package fixed

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		dec  int
		want int64
		ok   bool
	}{
		{"123", 2, 12300, true},
		{"-0.5", 2, -50, true},
		{`"1.250"`, 2, 125, true},
		{"1.255", 2, 0, false}, // more precision than the scale
		{"1e-3", 3, 1, true},
		{"2.5E+2", 0, 250, true},
		{"0", 8, 0, true},
		{"0.00000000", 8, 0, true},
		{"00012.10", 1, 121, true},
		{"", 2, 0, false},
		{"-", 2, 0, false},
		{"1.2.3", 2, 0, false},
		{"abc", 2, 0, false},
		{"1e", 2, 0, false},
		{"9223372036854775807", 0, 9223372036854775807, true},
		{"9223372036854775808", 0, 0, false},
		{"92233720368547758070", 0, 0, false},
		{"92233720368.54775808", 8, 0, false},
		{"0.000000000000000000000", 18, 0, true},
		{"1e400", 0, 0, false},
		{"12345.678900000000000000000", 4, 123456789, true},
	}
	for _, c := range cases {
		got, ok := Parse([]byte(c.in), c.dec)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("Parse(%q,%d) = %d,%v want %d,%v", c.in, c.dec, got, ok, c.want, c.ok)
		}
	}
}

func TestFormat(t *testing.T) {
	cases := []struct {
		v    int64
		dec  int
		want string
		pad  string
	}{
		{12300, 2, "123", "123.00"},
		{-50, 2, "-0.5", "-0.50"},
		{1, 8, "0.00000001", "0.00000001"},
		{7, 0, "7", "7"},
	}
	for _, c := range cases {
		if got := Format(c.v, c.dec); got != c.want {
			t.Errorf("Format(%d,%d)=%q want %q", c.v, c.dec, got, c.want)
		}
		if got := FormatPadded(c.v, c.dec); got != c.pad {
			t.Errorf("FormatPadded(%d,%d)=%q want %q", c.v, c.dec, got, c.pad)
		}
	}
}

func TestDecimalRoundTrip(t *testing.T) {
	d := decimal.RequireFromString("1234.5678")
	v, ok := FromDecimal(d, 6)
	if !ok || v != 1234567800 {
		t.Fatalf("FromDecimal = %d,%v", v, ok)
	}
	if !ToDecimal(v, 6).Equal(d) {
		t.Fatalf("ToDecimal = %s", ToDecimal(v, 6))
	}
	for in, want := range map[string]int{"0.01": 2, "5": 0, "0.00050": 4, "10": 0, "0": 0} {
		if got := DecimalsOf(decimal.RequireFromString(in)); got != want {
			t.Errorf("DecimalsOf(%s)=%d want %d", in, got, want)
		}
	}
}

func TestMulDiv(t *testing.T) {
	// price 30000.12 (2 dec) * qty 1.5 (4 dec) = notional in 2 dec
	got, ok := MulDiv(3000012, 15000, 10000)
	if !ok || got != 4500018 {
		t.Fatalf("MulDiv = %d %v", got, ok)
	}
	if _, ok := MulDiv(1<<62, 1<<62, 1); ok {
		t.Fatal("overflow not detected")
	}
	if v, _ := MulDiv(-7, 3, 2); v != -10 {
		t.Fatalf("MulDiv(-7,3,2)=%d", v)
	}
}

// BenchmarkParse covers the shapes venues send: a price with trailing
// zeros, a quoted negative size, an exponent, and a plain integer.
func BenchmarkParse(b *testing.B) {
	for _, c := range []struct {
		name string
		in   string
		dec  int
	}{
		{"price", "30123.45670000", 6},
		{"quoted", `"-0.00125000"`, 8},
		{"exponent", "2.5E+2", 2},
		{"integer", "1234567", 0},
	} {
		in := []byte(c.in)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := Parse(in, c.dec); !ok {
					b.Fatal("parse")
				}
			}
		})
	}
}
