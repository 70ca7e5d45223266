package rest

import (
	"strconv"
	"testing"
	"time"
)

// TestOrderLatencyMeetsTheLaterBook: with OrderLatency an order meets the
// book as it stands after the delay, not at arrival: the ask it would have
// taken at arrival goes meanwhile, and it fills at the one that replaced it.
func TestOrderLatencyMeetsTheLaterBook(t *testing.T) {
	e := newEnv(t, Options{NoRateLimits: true, OrderLatency: 2 * time.Second})
	bob := mustAccount(e, "BOB")
	first, _ := e.ex.PlaceOrder(bob, orderReq("SPOT_BTC_USDT", "SELL", "101", "0.5"))
	done := make(chan reply, 1)
	go func() {
		done <- e.alice.do("POST", "/v1/order", vals("symbol", "SPOT_BTC_USDT", "order_type", "MARKET", "side", "BUY", "order_quantity", "0.2"))
	}()
	for deadline := time.Now().Add(30 * time.Second); e.rs.held.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the order never reached the server")
		}
	}
	if err := e.ex.Cancel(bob, "SPOT_BTC_USDT", first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ex.PlaceOrder(bob, orderReq("SPOT_BTC_USDT", "SELL", "102", "0.5")); err != nil {
		t.Fatal(err)
	}
	var r reply
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("no reply")
	}
	r.ok(t)
	id := strconv.FormatInt(int64(r.body["order_id"].(float64)), 10)
	tr := e.alice.do("GET", "/v1/order/"+id+"/trades", nil).ok(t)
	rows, _ := tr.body["rows"].([]any)
	if len(rows) != 1 || rows[0].(map[string]any)["executed_price"] != float64(102) {
		t.Fatalf("fills %s, want one at 102 (the ask at 101 went during the latency)", tr.raw)
	}
}
