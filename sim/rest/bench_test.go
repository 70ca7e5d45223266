package rest

import (
	"strconv"
	"testing"
)

// BenchmarkSendCancelHTTP is a signed POST /v1/order and DELETE /v1/order
// pair over loopback HTTP, client signing and JSON decoding included.
func BenchmarkSendCancelHTTP(b *testing.B) {
	e := newEnv(&testing.T{}, Options{NoRateLimits: true})
	e.t = &testing.T{}
	send := vals("symbol", "SPOT_BTC_USDT", "order_type", "LIMIT", "side", "BUY", "order_price", "90", "order_quantity", "0.2")
	b.ReportAllocs()
	for b.Loop() {
		r := e.alice.do("POST", "/v1/order", send)
		id := strconv.FormatInt(int64(r.body["order_id"].(float64)), 10)
		if c := e.alice.do("DELETE", "/v1/order", vals("order_id", id, "symbol", "SPOT_BTC_USDT")); c.status != 200 {
			b.Fatal(string(c.raw))
		}
	}
}

// BenchmarkOrderBookHTTP is a public depth-100 order book read.
func BenchmarkOrderBookHTTP(b *testing.B) {
	e := newEnv(&testing.T{}, Options{NoRateLimits: true})
	e.t = &testing.T{}
	for i := 0; i < 100; i++ {
		if _, err := e.ex.PlaceOrder(mustAccount(e, "BOB"), orderReq("SPOT_BTC_USDT", "SELL", strconv.Itoa(101+i), "0.5")); err != nil {
			b.Fatal(err)
		}
		if _, err := e.ex.PlaceOrder(mustAccount(e, "BOB"), orderReq("SPOT_BTC_USDT", "BUY", strconv.Itoa(99-i/2)+".5", "0.5")); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if r := e.public("/v1/public/orderbook/SPOT_BTC_USDT"); r.status != 200 {
			b.Fatal(string(r.raw))
		}
	}
}
