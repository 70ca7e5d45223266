package venue

import (
	"net/url"
	"strings"
	"testing"
)

// The worked example of the venue's API documentation (WOO X API docs,
// https://docs.woox.io/, "Authentication"):
// an order's parameters, the secret and the timestamp it is signed with.
const (
	exampleSecret = "QHKRXHPAW1MC9YGZMAT8YDJG2HPR"
	exampleTs     = 1578565539808
)

func exampleParams() url.Values {
	return url.Values{"symbol": {"SPOT_BTC_USDT"}, "order_type": {"LIMIT"}, "order_price": {"9000"},
		"order_quantity": {"0.11"}, "side": {"BUY"}}
}

func TestSignOfficialExample(t *testing.T) {
	canonical := CanonicalParams(exampleParams())
	if canonical != "order_price=9000&order_quantity=0.11&order_type=LIMIT&side=BUY&symbol=SPOT_BTC_USDT" {
		t.Fatalf("canonical = %q", canonical)
	}
	const want = "20da0852f73b20da0208c7e627975a59ff072379883d8457d03104651032033d"
	got := Sign(exampleSecret, canonical, exampleTs)
	if got != want {
		t.Fatalf("signature = %s want %s", got, want)
	}
	if !VerifySignature(exampleSecret, canonical, exampleTs, strings.ToUpper(want)) {
		t.Fatal("upper-case hex not accepted")
	}
	if VerifySignature("wrong", canonical, exampleTs, want) {
		t.Fatal("wrong secret accepted")
	}
}

func BenchmarkSign(b *testing.B) {
	params := exampleParams()
	b.ReportAllocs()
	for b.Loop() {
		Sign(exampleSecret, CanonicalParams(params), exampleTs)
	}
}
