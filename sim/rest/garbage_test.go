package rest

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// TestGarbageNeverBreaksTheServer signs random parameters of random
// shapes for every endpoint: each reply must be JSON with a venue code and
// a 4xx status (or success), never a 5xx, a panic or a dropped connection.
func TestGarbageNeverBreaksTheServer(t *testing.T) {
	e := newEnv(t, Options{NoRateLimits: true})
	rng := rand.New(rand.NewPCG(42, 7))
	names := []string{"symbol", "order_type", "side", "order_price", "order_quantity", "order_amount", "visible_quantity",
		"client_order_id", "order_id", "page", "start_t", "end_t", "status", "token", "amount", "leverage", "account_mode",
		"max_level", "limit", "type", "start_time", "all", "application_id", "from_application_id", "to_application_id"}
	values := []string{"", "0", "-1", "1e9", "NaN", "0.0000000001", "99999999999999999999999", "SPOT_BTC_USDT", "PERP_BTC_USDT",
		"BUY", "SELL", "LIMIT", "MARKET", "ASK", "FOK", "1m", "1y", "INCOMPLETE", "true", "USDT", "app-sub", "%00", "\u00e9", "1.5.5",
		strings.Repeat("9", 200), "FUTURES", "20", "  1", "+1", ".5"}
	routes := e.mustRoutes()
	for i := 0; i < 600; i++ {
		rt := routes[rng.IntN(len(routes))]
		params := url.Values{}
		for n := rng.IntN(6); n > 0; n-- {
			params.Set(names[rng.IntN(len(names))], values[rng.IntN(len(values))])
		}
		path := strings.NewReplacer("{symbol}", values[rng.IntN(len(values))], "{oid}", values[rng.IntN(len(values))],
			"{cid}", "1", "{tid}", "x", "{token}", "USDT").Replace(rt.path)
		path = "/" + strings.TrimLeft(url.PathEscape(path), "/")
		path = strings.ReplaceAll(path, "%2F", "/")
		r := e.alice.do(rt.method, path, params)
		if r.status >= 500 || (r.status != 200 && (r.code() == 0 || r.body["success"] != false)) {
			t.Fatalf("%s %s %v: %d %s", rt.method, path, params, r.status, r.raw)
		}
	}
}

func (e *env) mustRoutes() []route {
	s := New(e.ex, Options{})
	return s.routes("/pub")
}
