package trade

import "testing"

// The form validates and previews on every keystroke and every book
// update (up to 60 a second): both must stay far below a frame.
func BenchmarkValidate(b *testing.B) {
	env := btcEnv()
	env.Funds = Funds{Known: true, Mode: "PURE_SPOT", BaseAvail: d("0.5"), QuoteAvail: d("100000")}
	o := limit(Buy, "27000.50", "0.0123")
	b.ReportAllocs()
	for b.Loop() {
		if !Validate(o, env).OK() {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkValidateInvalid(b *testing.B) {
	env := btcEnv()
	o := limit(Buy, "27012.343", "0.01234")
	b.ReportAllocs()
	for b.Loop() {
		if Validate(o, env).OK() {
			b.Fatal("valid")
		}
	}
}

func BenchmarkPreview(b *testing.B) {
	fees := Fees{MakerBps: d("2"), TakerBps: d("5")}
	bk := Book{BestBid: d("27000"), BestAsk: d("27002")}
	o := limit(Buy, "26730.99", "0.1")
	b.ReportAllocs()
	for b.Loop() {
		_ = MakePreview(o, bk, fees).String()
	}
}
