package venue

import (
	"net/url"
	"strings"
	"testing"
)

// The official example of the venue's documentation (real-venue-notes.md).
func TestSignOfficialExample(t *testing.T) {
	params := url.Values{}
	params.Set("symbol", "SPOT_BTC_USDT")
	params.Set("order_type", "LIMIT")
	params.Set("order_price", "9000")
	params.Set("order_quantity", "0.11")
	params.Set("side", "BUY")
	canonical := CanonicalParams(params)
	if canonical != "order_price=9000&order_quantity=0.11&order_type=LIMIT&side=BUY&symbol=SPOT_BTC_USDT" {
		t.Fatalf("canonical = %q", canonical)
	}
	const want = "20da0852f73b20da0208c7e627975a59ff072379883d8457d03104651032033d"
	got := Sign("QHKRXHPAW1MC9YGZMAT8YDJG2HPR", canonical, 1578565539808)
	if got != want {
		t.Fatalf("signature = %s want %s", got, want)
	}
	if !VerifySignature("QHKRXHPAW1MC9YGZMAT8YDJG2HPR", canonical, 1578565539808, strings.ToUpper(want)) {
		t.Fatal("upper-case hex not accepted")
	}
	if VerifySignature("wrong", canonical, 1578565539808, want) {
		t.Fatal("wrong secret accepted")
	}
}

func BenchmarkSign(b *testing.B) {
	params := url.Values{}
	params.Set("symbol", "SPOT_BTC_USDT")
	params.Set("order_type", "LIMIT")
	params.Set("order_price", "9000")
	params.Set("order_quantity", "0.11")
	params.Set("side", "BUY")
	b.ReportAllocs()
	for b.Loop() {
		Sign("QHKRXHPAW1MC9YGZMAT8YDJG2HPR", CanonicalParams(params), 1578565539808)
	}
}
