package market

import "testing"

// BenchmarkStep is one participant action (requote, take or sweep) through the exchange.
func BenchmarkStep(b *testing.B) {
	ex := newVenue(b)
	mk, err := New(ex, Options{Seed: 1, Symbols: []string{"SPOT_BTC_USDT"}})
	if err != nil {
		b.Fatal(err)
	}
	mk.Step(200) // warm the book up
	b.ReportAllocs()
	for b.Loop() {
		mk.Step(1)
	}
}
