package rest

import (
	"net/http"
	"strconv"
	"testing"

	"tradedeck/venue"
)

// TestUnknownParamsOnReads: by default a read ignores parameters it does not
// take (a widely used client repeats the client order id in the query of
// GET /v1/client/order/{id}), still checking the signature over everything
// sent; writes refuse them; StrictParams refuses them on reads too.
func TestUnknownParamsOnReads(t *testing.T) {
	place := vals("symbol", "SPOT_BTC_USDT", "order_type", "LIMIT", "side", "BUY", "order_price", "90",
		"order_quantity", "0.2", "client_order_id", "4242")
	ccxtRead := vals("clientOrderId", "4242")

	e := newEnv(t, Options{})
	e.alice.do("POST", "/v1/order", place).ok(t)
	r := e.alice.do("GET", "/v1/client/order/4242", ccxtRead).ok(t)
	if r.body["client_order_id"] != float64(4242) || r.body["status"] != "NEW" {
		t.Fatalf("read with an extra parameter: %s", r.raw)
	}
	e.alice.do("GET", "/v1/orders", vals("symbol", "SPOT_BTC_USDT", "recvWindow", "5000")).ok(t)
	e.alice.do("POST", "/v1/order", withParam(place, "colour", "red")).fails(t, 400, -1004)

	// the ignored parameter is still signed over: one added after signing fails
	ts := e.clock.Now().UnixMilli()
	req, _ := http.NewRequest("GET", e.srv.URL+"/v1/client/order/4242?clientOrderId=4242", nil)
	req.Header.Set(venue.HeaderKey, e.alice.key)
	req.Header.Set(venue.HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(venue.HeaderSignature, venue.Sign(e.alice.secret, "", ts))
	e.send(req).fails(t, 401, -1001)

	strict := newEnv(t, Options{StrictParams: true})
	strict.alice.do("POST", "/v1/order", place).ok(t)
	strict.alice.do("GET", "/v1/client/order/4242", nil).ok(t)
	strict.alice.do("GET", "/v1/client/order/4242", ccxtRead).fails(t, 400, -1004)
	strict.alice.do("GET", "/v1/client/holding", vals("x", "1")).fails(t, 400, -1004)
}

func withParam(v map[string][]string, name, value string) map[string][]string {
	out := map[string][]string{name: {value}}
	for k, vs := range v {
		out[k] = vs
	}
	return out
}
