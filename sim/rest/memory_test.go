package rest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"tradedeck/internal/testkit"
)

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 { return testkit.MemAfterGC().HeapAlloc }

// fromIP returns an HTTP client whose connections leave from the loopback
// address 127.0.0.n, so the server sees n different clients.
func fromIP(n int) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, byte(n/250), byte(1+n%250))}}
	return &http.Client{Transport: &http.Transport{
		DialContext:       func(ctx context.Context, nw, addr string) (net.Conn, error) { return d.DialContext(ctx, nw, addr) },
		DisableKeepAlives: true,
	}}
}

// TestMemoryFlatUnderHostileRequests sends what an attacker would choose:
// signed orders with 60 KB symbols, random unlisted symbols, random client
// ids and parameter names, unknown keys and public reads from hundreds of
// addresses. Nothing of it may stay: the rate limiter holds only counters
// of checked keys, they expire with their window, and the heap stays flat.
func TestMemoryFlatUnderHostileRequests(t *testing.T) {
	e := newEnv(t, Options{})
	rng := rand.New(rand.NewPCG(5, 12))
	junk := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('A' + rng.IntN(26))
		}
		return string(b)
	}
	storm := func(rounds int) {
		for i := range rounds {
			switch i % 5 {
			case 0: // the reported attack: a signed order with a 60 KB symbol
				e.alice.do("POST", "/v1/order", vals("symbol", "SPOT_"+junk(60_000)+"_USDT", "order_type", "LIMIT",
					"side", "BUY", "order_price", "1", "order_quantity", "1"))
			case 1: // unlisted symbols of an accepted length, random client ids
				e.alice.do("POST", "/v1/order", vals("symbol", "SPOT_"+junk(200)+"_USDT", "order_type", "LIMIT", "side", "BUY",
					"order_price", "1", "order_quantity", "1", "client_order_id", strconv.Itoa(rng.IntN(1<<30))))
			case 2: // unknown parameters on a read, tolerated and dropped
				e.alice.do("GET", "/v1/orders", vals(junk(60), junk(250)))
			case 3: // keys that do not exist
				(&client{e: e, key: junk(100), secret: "x"}).do("GET", "/v1/client/holding", nil)
			case 4: // public reads from many addresses
				resp, err := fromIP(i / 5 % 400).Get(e.srv.URL + "/v1/public/info/" + url.PathEscape(junk(200)))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
			}
		}
	}
	storm(200) // warm up: connections, buffers, first counters
	e.clock.Advance(2 * time.Minute)
	before := heapInUse()
	storm(3000)
	if n := e.limits().size(); n > 1000 {
		t.Fatalf("rate limiter holds %d counters after the storm", n)
	}
	after := heapInUse()
	if grew := int64(after) - int64(before); grew > 8<<20 {
		t.Fatalf("heap grew by %d MB under hostile requests (%d -> %d)", grew>>20, before>>20, after>>20)
	}
	e.clock.Advance(2 * time.Minute) // every window is over: counters expire by age
	e.alice.do("GET", "/v1/client/holding", nil).ok(t)
	if n := e.limits().size(); n != 1 {
		t.Fatalf("rate limiter holds %d counters two minutes later, want only the one just used", n)
	}
	t.Logf("heap before %d KB, after 3000 hostile requests %d KB", before>>10, after>>10)
}

// TestLongParametersRefused: names and values past the bounds are refused
// before anything looks at them.
func TestLongParametersRefused(t *testing.T) {
	e := newEnv(t, Options{})
	e.alice.do("GET", "/v1/orders", vals("symbol", strings.Repeat("S", 257))).fails(t, 400, -1005)
	e.alice.do("GET", "/v1/orders", vals(strings.Repeat("n", 65), "1")).fails(t, 400, -1005)
	r := e.alice.do("POST", "/v1/asset/withdraw", vals("token", "USDT", "address", "0xabc", "amount", "10", "extra", strings.Repeat("x", 300)))
	r.fails(t, 400, -1005)
	if !strings.Contains(fmt.Sprint(r.body["message"]), "too long") {
		t.Fatalf("message %q does not say what is wrong", r.body["message"])
	}
}

func (e *env) limits() *limiter { return e.rs.limits }
