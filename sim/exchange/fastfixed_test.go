package exchange

import (
	"math"
	"testing"

	"tradedeck/fixed"
)

func TestToFixedMatchesFixedFromDecimal(t *testing.T) {
	for _, s := range []string{"0", "1", "-1", "100.10", "0.001", "0.0015", "123456789.123", "-0.5", "1e3", "1.5e-3",
		"9223372036854775807", "92233720368547758.08", "0.00000000000000000001", "100000000000000000000", "1.10000"} {
		for dec := 0; dec <= 10; dec++ {
			v1, ok1 := toFixed(d(s), dec)
			v2, ok2 := fixed.FromDecimal(d(s), dec)
			if v1 != v2 || ok1 != ok2 {
				t.Fatalf("%s at %d: toFixed %d %v, FromDecimal %d %v", s, dec, v1, ok1, v2, ok2)
			}
		}
	}
}

func TestU128Amounts(t *testing.T) {
	var u u128
	u.addProduct(math.MaxInt64, math.MaxInt64)
	u.addProduct(3, 7)
	want := d("85070591730234615847396907784232501270").Shift(-4) // (2^63-1)^2 + 21
	if got := u.decimal(4); !got.Equal(want) {
		t.Fatalf("%s != %s", got, want)
	}
	if back := u128From(want, 4); back != u {
		t.Fatalf("round trip %+v != %+v", back, u)
	}
	var s u128
	s.addProduct(12, 5)
	s.add(u128{lo: 40})
	if !s.decimal(2).Equal(d("1")) {
		t.Fatal(s.decimal(2))
	}
	if cmpProducts(3, 4, 2, 6) != 0 || cmpProducts(math.MaxInt64, 2, math.MaxInt64, 1) != 1 || cmpProducts(1, 1, 1, 2) != -1 {
		t.Fatal("cmpProducts")
	}
}
