package rest

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/internal/testkit"
	"tradedeck/sim/exchange"
	"tradedeck/venue"
)

type env struct {
	t     *testing.T
	ex    *exchange.Exchange
	srv   *httptest.Server
	clock *testkit.Clock
	rs    *Server
	alice *client
	sub   *client
	bob   *client
}

type client struct {
	e             *env
	key, secret   string
	upperHex      bool
	deleteInQuery bool
	tsOffset      time.Duration
}

// newEnv serves the test universe over a real loopback HTTP server.
func newEnv(t *testing.T, opts Options) *env {
	t.Helper()
	b, err := os.ReadFile("testdata/universe.json")
	if err != nil {
		t.Fatal(err)
	}
	u, err := exchange.ParseUniverse(b)
	if err != nil {
		t.Fatal(err)
	}
	c := testkit.NewClock(time.Date(2024, 1, 1, 0, 10, 0, 0, time.UTC))
	ex, err := exchange.New(exchange.Options{Universe: u, Clock: c.Now, NoSeedLiquidity: true, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	opts.Clock = c.Now
	mux := http.NewServeMux()
	rs := New(ex, opts)
	rs.Register(mux, "/pub")
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e := &env{t: t, ex: ex, srv: srv, clock: c, rs: rs}
	e.alice = &client{e: e, key: "alice-key", secret: "alice-secret"}
	e.sub = &client{e: e, key: "sub-key", secret: "sub-secret"}
	e.bob = &client{e: e, key: "bob-key", secret: "bob-secret"}
	return e
}

type reply struct {
	status int
	raw    []byte
	body   map[string]any
}

func (r reply) code() int {
	switch c := r.body["code"].(type) {
	case float64:
		return int(c)
	case string:
		n, _ := strconv.Atoi(c)
		return n
	}
	return 0
}

// do sends a signed request the way a client of the venue does: GET
// parameters in the query, POST and DELETE parameters form-encoded in the
// body (or DELETE in the query when deleteInQuery).
func (c *client) do(method, path string, params url.Values) reply {
	c.e.t.Helper()
	canonical := venue.CanonicalParams(params)
	ts := c.e.clock.Now().Add(c.tsOffset).UnixMilli()
	sig := venue.Sign(c.secret, canonical, ts)
	if c.upperHex {
		sig = strings.ToUpper(sig)
	}
	target := c.e.srv.URL + path
	var body io.Reader
	inBody := method == http.MethodPost || (method == http.MethodDelete && !c.deleteInQuery)
	if inBody {
		body = strings.NewReader(canonical)
	} else if canonical != "" {
		target += "?" + canonical
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		c.e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if c.key != "" {
		req.Header.Set(venue.HeaderKey, c.key)
		req.Header.Set(venue.HeaderTimestamp, strconv.FormatInt(ts, 10))
		req.Header.Set(venue.HeaderSignature, sig)
	}
	return c.e.send(req)
}

func (e *env) send(req *http.Request) reply {
	e.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, raw: raw}
	if err := json.Unmarshal(raw, &r.body); err != nil {
		e.t.Fatalf("%s %s: not JSON: %s", req.Method, req.URL, raw)
	}
	return r
}

func (e *env) public(path string) reply {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	return e.send(req)
}

func vals(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

func (r reply) ok(t *testing.T) reply {
	t.Helper()
	if r.status != 200 || r.body["success"] != true {
		t.Fatalf("status %d: %s", r.status, r.raw)
	}
	return r
}

func (r reply) fails(t *testing.T, status, code int) {
	t.Helper()
	if r.status != status || r.body["success"] != false || r.code() != code || r.body["message"] == "" {
		t.Fatalf("got %d %s, want %d code %d", r.status, r.raw, status, code)
	}
}

func TestAuthentication(t *testing.T) {
	e := newEnv(t, Options{})
	e.alice.do("GET", "/v1/client/holding", nil).ok(t)

	t.Run("missing headers", func(t *testing.T) {
		(&client{e: e}).do("GET", "/v1/client/holding", nil).fails(t, 401, -1002)
	})
	t.Run("signature not hex", func(t *testing.T) {
		req, _ := http.NewRequest("GET", e.srv.URL+"/v1/client/holding", nil)
		req.Header.Set(venue.HeaderKey, "alice-key")
		req.Header.Set(venue.HeaderTimestamp, strconv.FormatInt(e.clock.Now().UnixMilli(), 10))
		req.Header.Set(venue.HeaderSignature, "xyz")
		e.send(req).fails(t, 401, -1001)
	})
	t.Run("timestamp not a number", func(t *testing.T) {
		req, _ := http.NewRequest("GET", e.srv.URL+"/v1/client/holding", nil)
		req.Header.Set(venue.HeaderKey, "alice-key")
		req.Header.Set(venue.HeaderTimestamp, "yesterday")
		req.Header.Set(venue.HeaderSignature, strings.Repeat("a", 64))
		e.send(req).fails(t, 401, -1001)
	})
	t.Run("wrong secret", func(t *testing.T) {
		(&client{e: e, key: "alice-key", secret: "nope"}).do("GET", "/v1/client/holding", nil).fails(t, 401, -1001)
	})
	t.Run("unknown key", func(t *testing.T) {
		(&client{e: e, key: "who", secret: "x"}).do("GET", "/v1/client/holding", nil).fails(t, 401, -1002)
	})
	t.Run("timestamp window", func(t *testing.T) {
		(&client{e: e, key: "alice-key", secret: "alice-secret", tsOffset: -300 * time.Second}).do("GET", "/v1/client/holding", nil).fails(t, 401, -1002)
		(&client{e: e, key: "alice-key", secret: "alice-secret", tsOffset: 300 * time.Second}).do("GET", "/v1/client/holding", nil).fails(t, 401, -1002)
		(&client{e: e, key: "alice-key", secret: "alice-secret", tsOffset: -299 * time.Second}).do("GET", "/v1/client/holding", nil).ok(t)
	})
	t.Run("upper-case hex", func(t *testing.T) {
		(&client{e: e, key: "alice-key", secret: "alice-secret", upperHex: true}).do("GET", "/v2/client/holding", vals("all", "true")).ok(t)
	})
	t.Run("bare trailing question mark", func(t *testing.T) {
		ts := e.clock.Now().UnixMilli()
		req, _ := http.NewRequest("GET", e.srv.URL+"/v1/client/info?", nil)
		req.Header.Set(venue.HeaderKey, "alice-key")
		req.Header.Set(venue.HeaderTimestamp, strconv.FormatInt(ts, 10))
		req.Header.Set(venue.HeaderSignature, venue.Sign("alice-secret", "", ts))
		e.send(req).ok(t)
	})
	t.Run("parameters signed in the order sent", func(t *testing.T) {
		// a client that percent-encodes differently from the server's canonical form still verifies
		ts := e.clock.Now().UnixMilli()
		text := "order_tag=a%2Db&symbol=SPOT_BTC_USDT"
		req, _ := http.NewRequest("GET", e.srv.URL+"/v1/orders?"+text, nil)
		req.Header.Set(venue.HeaderKey, "alice-key")
		req.Header.Set(venue.HeaderTimestamp, strconv.FormatInt(ts, 10))
		req.Header.Set(venue.HeaderSignature, venue.Sign("alice-secret", text, ts))
		e.send(req).ok(t)
	})
	t.Run("DELETE parameters in body or query", func(t *testing.T) {
		for _, inQuery := range []bool{false, true} {
			c := &client{e: e, key: "alice-key", secret: "alice-secret", deleteInQuery: inQuery}
			o := c.do("POST", "/v1/order", vals("symbol", "SPOT_BTC_USDT", "order_type", "LIMIT", "side", "BUY", "order_price", "90", "order_quantity", "0.2")).ok(t)
			id := strconv.FormatInt(int64(o.body["order_id"].(float64)), 10)
			r := c.do("DELETE", "/v1/order", vals("order_id", id, "symbol", "SPOT_BTC_USDT")).ok(t)
			if r.body["status"] != "CANCEL_SENT" {
				t.Fatalf("%s", r.raw)
			}
		}
	})
	t.Run("broker_id on send order", func(t *testing.T) {
		e.clock.Advance(time.Second)
		e.alice.do("POST", "/v1/order", vals("symbol", "SPOT_BTC_USDT", "order_type", "LIMIT", "side", "BUY", "order_price", "90",
			"order_quantity", "0.2", "broker_id", "bc830de7-50f3-460b-9ee0-f430f83f9dad")).ok(t)
	})
	t.Run("main account only", func(t *testing.T) {
		e.sub.do("GET", "/v1/sub_account/all", nil).fails(t, 401, -1002)
		e.alice.do("GET", "/v1/sub_account/all", nil).ok(t)
	})
	t.Run("IP allow-list", func(t *testing.T) {
		e.ex.SetIPRestriction("bob-key", []string{"10.1.2.3"})
		e.bob.do("GET", "/v1/client/holding", nil).fails(t, 401, -1002)
		e.ex.SetIPRestriction("bob-key", []string{"10.1.2.3", "127.0.0.1"})
		e.bob.do("GET", "/v1/client/holding", nil).ok(t)
		r := e.bob.do("GET", "/v1/sub_account/ip_restriction", nil).ok(t)
		row := r.body["rows"].([]any)[0].(map[string]any)
		if row["ip_list"] != "10.1.2.3,127.0.0.1" || row["restrict"] != true || row["api_key"] != "bob-key" {
			t.Fatalf("%s", r.raw)
		}
	})
	t.Run("revoked key", func(t *testing.T) {
		e.ex.RevokeKey("bob-key")
		e.bob.do("GET", "/v1/client/holding", nil).fails(t, 401, -1002)
	})
	t.Run("public endpoints need no key", func(t *testing.T) {
		e.public("/v1/public/info").ok(t)
	})
}

func TestRateLimits(t *testing.T) {
	e := newEnv(t, Options{})
	send := func(c *client, sym string) reply {
		return c.do("POST", "/v1/order", vals("symbol", sym, "order_type", "LIMIT", "side", "BUY", "order_price", "90", "order_quantity", "0.2"))
	}
	e.clock.Advance(time.Second - time.Duration(e.clock.Now().UnixMilli()%1000)*time.Millisecond) // start of a window
	send(e.alice, "SPOT_BTC_USDT").ok(t)
	send(e.alice, "SPOT_BTC_USDT").ok(t)
	send(e.alice, "SPOT_BTC_USDT").fails(t, 429, -1003)
	// per symbol, per key
	e.alice.do("POST", "/v1/order", vals("symbol", "PERP_BTC_USDT", "order_type", "LIMIT", "side", "BUY", "order_price", "90", "order_quantity", "0.2")).fails(t, 400, -1101)
	send(e.bob, "SPOT_BTC_USDT").ok(t)
	e.clock.Advance(time.Second)
	send(e.alice, "SPOT_BTC_USDT").ok(t)

	// cancel by id and by client id share one counter of 10 per second
	e.clock.Advance(time.Second)
	for i := 0; i < 5; i++ {
		e.alice.do("DELETE", "/v1/order", vals("order_id", "1", "symbol", "SPOT_BTC_USDT")).fails(t, 400, -1006)
		e.alice.do("DELETE", "/v1/client/order", vals("client_order_id", "1", "symbol", "SPOT_BTC_USDT")).fails(t, 400, -1006)
	}
	e.alice.do("DELETE", "/v1/client/order", vals("client_order_id", "1", "symbol", "SPOT_BTC_USDT")).fails(t, 429, -1003)

	// public: 10 per second per IP
	for i := 0; i < 10; i++ {
		e.public("/v1/public/token").ok(t)
	}
	e.public("/v1/public/token").fails(t, 429, -1003)
	e.public("/v1/public/info").ok(t) // another endpoint, another counter

	// account mode: 5 per 60 s per user
	for i := 0; i < 5; i++ {
		e.bob.do("POST", "/v1/client/account_mode", vals("account_mode", "FUTURES")).ok(t)
	}
	e.bob.do("POST", "/v1/client/account_mode", vals("account_mode", "FUTURES")).fails(t, 429, -1003)
	e.clock.Advance(time.Minute)
	e.bob.do("POST", "/v1/client/account_mode", vals("account_mode", "FUTURES")).ok(t)
}

func TestParameterErrors(t *testing.T) {
	e := newEnv(t, Options{NoRateLimits: true})
	order := func(kv ...string) reply {
		base := vals("symbol", "SPOT_BTC_USDT", "order_type", "LIMIT", "side", "BUY", "order_price", "90", "order_quantity", "0.2")
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				base.Del(kv[i])
			} else {
				base.Set(kv[i], kv[i+1])
			}
		}
		return e.alice.do("POST", "/v1/order", base)
	}
	cases := []struct {
		name   string
		r      func() reply
		status int
		code   int
	}{
		{"unknown parameter", func() reply { return order("colour", "red") }, 400, -1004},
		{"price not a number", func() reply { return order("order_price", "abc") }, 400, -1005},
		{"price in e-notation", func() reply { return order("order_price", "9e1") }, 400, -1005},
		{"bad order type", func() reply { return order("order_type", "STOP") }, 400, -1005},
		{"missing side", func() reply { return order("side", "") }, 400, -1005},
		{"client id negative", func() reply { return order("client_order_id", "-1") }, 400, -1005},
		{"client id too big", func() reply { return order("client_order_id", "9223372036854775808") }, 400, -1005},
		{"amount and quantity", func() reply {
			return order("order_type", "MARKET", "order_amount", "20", "order_price", "")
		}, 400, -1005},
		{"tick", func() reply { return order("order_price", "90.001") }, 400, -1103},
		{"step", func() reply { return order("order_quantity", "0.20001") }, 400, -1104},
		{"notional", func() reply { return order("order_quantity", "0.1") }, 400, -1102},
		{"risk", func() reply { return order("order_price", "200", "order_quantity", "99") }, 400, -1101},
		{"duplicate parameter", func() reply {
			return e.alice.do("GET", "/v1/orders", url.Values{"symbol": {"A", "B"}})
		}, 400, -1005},
		{"page zero", func() reply { return e.alice.do("GET", "/v1/orders", vals("page", "0")) }, 400, -1005},
		{"bad status", func() reply { return e.alice.do("GET", "/v1/orders", vals("status", "OPEN")) }, 400, -1005},
		{"unknown order", func() reply { return e.alice.do("GET", "/v1/order/12345", nil) }, 400, -1006},
		{"unknown client order", func() reply { return e.alice.do("GET", "/v1/client/order/12345", nil) }, 400, -1006},
		{"unknown trade", func() reply { return e.alice.do("GET", "/v1/client/trade/12345", nil) }, 400, -1006},
		{"cancel unknown", func() reply {
			return e.alice.do("DELETE", "/v1/order", vals("order_id", "12345", "symbol", "SPOT_BTC_USDT"))
		}, 400, -1006},
		{"unknown symbol", func() reply { return e.public("/v1/public/info/SPOT_NOPE_USDT") }, 400, -1005},
		{"unknown path", func() reply { return e.alice.do("GET", "/v1/nothing", nil) }, 404, -1006},
		{"kline type", func() reply { return e.alice.do("GET", "/v1/kline", vals("symbol", "SPOT_BTC_USDT", "type", "2m")) }, 400, -1005},
		{"kline limit", func() reply {
			return e.alice.do("GET", "/v1/kline", vals("symbol", "SPOT_BTC_USDT", "type", "1m", "limit", "1001"))
		}, 400, -1005},
		{"leverage not allowed", func() reply { return e.bob.do("POST", "/v1/client/leverage", vals("leverage", "7")) }, 400, -1005},
		{"repay more than owed", func() reply { return e.alice.do("POST", "/v1/interest/repay", vals("token", "USDT", "amount", "1")) }, 400, -1008},
		{"lower-case token interest", func() reply { return e.alice.do("GET", "/v1/token_interest/usdt", nil) }, 400, -1005},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.r().fails(t, c.status, c.code) })
	}
	req := vals("symbol", "SPOT_BTC_USDT", "order_type", "LIMIT", "side", "BUY", "order_price", "90", "order_quantity", "0.2", "client_order_id", "7")
	e.alice.do("POST", "/v1/order", req).ok(t)
	e.alice.do("POST", "/v1/order", req).fails(t, 409, -1007)
}

// keysOf checks that ours has every key the real sample has, recursively
// through objects and the first element of arrays.
func keysOf(t *testing.T, name string, real, ours any, path string) {
	t.Helper()
	switch r := real.(type) {
	case map[string]any:
		o, ok := ours.(map[string]any)
		if !ok {
			t.Fatalf("%s: %s is %T, sample has an object", name, path, ours)
		}
		for k, v := range r {
			ov, ok := o[k]
			if !ok {
				t.Fatalf("%s: %s.%s missing", name, path, k)
			}
			if k == "holding" && path == "" {
				continue // token names differ
			}
			keysOf(t, name, v, ov, path+"."+k)
		}
	case []any:
		o, ok := ours.([]any)
		if !ok {
			t.Fatalf("%s: %s is %T, sample has an array", name, path, ours)
		}
		if len(r) > 0 && len(o) > 0 {
			keysOf(t, name, r[0], o[0], path+"[0]")
		}
	}
}

func sample(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func num64(t *testing.T, v any) int64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return int64(x)
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			t.Fatalf("not an integer: %q", x)
		}
		return n
	}
	t.Fatalf("not a number: %v", v)
	return 0
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

func mustAccount(e *env, name string) *exchange.Account {
	a, ok := e.ex.AccountByName(name)
	if !ok {
		panic(name)
	}
	return a
}

func orderReq(sym, side, price, qty string) exchange.OrderRequest {
	return exchange.OrderRequest{Symbol: sym, Type: exchange.Limit, Side: exchange.Side(side),
		Price: decimal.RequireFromString(price), HasPrice: true, Quantity: decimal.RequireFromString(qty), HasQuantity: true}
}

func TestRequestLogNamesTheCallNeverItsSecrets(t *testing.T) {
	var out testkit.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := newEnv(t, Options{Logger: logger})
	e.alice.do("POST", "/v1/order", vals("symbol", "SPOT_BTC_USDT", "order_type", "LIMIT", "side", "BUY", "order_price", "90", "order_quantity", "0.2")).ok(t)
	e.alice.do("GET", "/v1/order/424242", nil).fails(t, 400, -1006)
	(&client{e: e, key: "alice-key", secret: "wrong"}).do("GET", "/v1/client/holding", nil).fails(t, 401, -1001)
	log := out.String()
	for _, want := range []string{"path=/v1/order ", "status=200", "account=ALICE", "code=-1006", "status=400", "code=-1001", "status=401"} {
		if !strings.Contains(log, want) {
			t.Fatalf("log lacks %q:\n%s", want, log)
		}
	}
	for _, secret := range []string{"alice-secret", "order_price", venue.HeaderSignature} {
		if strings.Contains(log, secret) {
			t.Fatalf("log shows %q:\n%s", secret, log)
		}
	}
}

func TestHandlerPanicIsUnknownError(t *testing.T) {
	e := newEnv(t, Options{})
	s := New(e.ex, Options{Clock: e.clock.Now})
	srv := httptest.NewServer(s.wrap(route{method: "GET", path: "/boom", access: public, limit: lim("boom", 10, time.Second, perIP),
		h: func(*call) (obj, error) { panic("a bug") }}))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/boom", nil)
	e.send(req).fails(t, 500, -1000)
}
