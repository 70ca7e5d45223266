package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tradedeck/sim"
	"tradedeck/sim/exchange"
	"tradedeck/venue"
)

// TestStatePersistsAcrossRestarts places an order, stops the sim cleanly,
// starts it again from the state file and finds everything back.
func TestStatePersistsAcrossRestarts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.json")
	still := sim.LivingOptions{NoMarket: true} // the resting order must stay unfilled
	inst, err := sim.Start(ctx, sim.Options{StatePath: path, Seed: 5, Living: still})
	if err != nil {
		t.Fatal(err)
	}
	c := venue.NewClient(inst.Endpoints, inst.Credentials)
	book, err := c.OrderBook(ctx, "SPOT_SOL_USDT", 1)
	if err != nil {
		t.Fatal(err)
	}
	resting, err := c.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_SOL_USDT", Type: venue.Limit, Side: venue.Buy,
		Price: book.Bids[0].Price.Sub(d("1")), Quantity: d("2"), ClientOrderID: 9})
	if err != nil {
		t.Fatal(err)
	}
	filled, err := c.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_SOL_USDT", Type: venue.Market, Side: venue.Sell, Quantity: d("1")})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := c.Holding(ctx)
	beforeTrades, _, _ := c.ListTrades(ctx, venue.TradeFilter{})
	if err := inst.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal("no state file after a clean shutdown")
	}

	inst2, err := sim.Start(ctx, sim.Options{StatePath: path, Seed: 5, Living: still})
	if err != nil {
		t.Fatal(err)
	}
	defer inst2.Close()
	c2 := venue.NewClient(inst2.Endpoints, inst2.Credentials)
	after, err := c2.Holding(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for tok, v := range before {
		if !after[tok].Equal(v) {
			t.Fatalf("%s: %s before, %s after", tok, v, after[tok])
		}
	}
	o, err := c2.GetOrder(ctx, resting.OrderID.Int64())
	if err != nil || o.Status != venue.StatusNew {
		t.Fatalf("resting order after restart: %+v %v", o, err)
	}
	if f, err := c2.GetOrder(ctx, filled.OrderID.Int64()); err != nil || f.Status != venue.StatusFilled {
		t.Fatalf("filled order after restart: %+v %v", f, err)
	}
	afterTrades, _, _ := c2.ListTrades(ctx, venue.TradeFilter{})
	if len(afterTrades) != len(beforeTrades) || len(afterTrades) == 0 {
		t.Fatalf("%d trades before, %d after", len(beforeTrades), len(afterTrades))
	}
	// the restored order rests on the book again and can be cancelled
	b2, _ := c2.OrderBook(ctx, "SPOT_SOL_USDT", 100)
	found := false
	for _, l := range b2.Bids {
		found = found || l.Price.Equal(o.Price.Decimal)
	}
	if !found {
		t.Fatalf("restored order not on the book: %+v", b2.Bids)
	}
	if err := c2.CancelOrderByClientID(ctx, "SPOT_SOL_USDT", 9); err != nil {
		t.Fatal(err)
	}
}

// A crash while writing leaves a temporary file behind, never a torn
// state file: the next start reads the last complete state.
func TestStateSurvivesATornWrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	inst, err := sim.Start(ctx, sim.Options{StatePath: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.Close(); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	// what a crash mid-write leaves: a partial temporary file next to the state
	if err := os.WriteFile(filepath.Join(dir, ".state.json.tmp123"), good[:len(good)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	inst2, err := sim.Start(ctx, sim.Options{StatePath: path})
	if err != nil {
		t.Fatalf("restart after a torn write: %v", err)
	}
	inst2.Close()
	// a corrupt state file is reported, not silently replaced
	os.WriteFile(path, good[:len(good)/2], 0o600)
	if _, err := sim.Start(ctx, sim.Options{StatePath: path}); err == nil {
		t.Fatal("corrupt state accepted")
	}
}

func TestStartLayoutAndShutdown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var wrapped atomic.Bool
	inst, err := sim.Start(ctx, sim.Options{Middleware: []func(http.Handler) http.Handler{
		func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { wrapped.Store(true); h.ServeHTTP(w, r) })
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	e := inst.Endpoints
	if e.PublicHistoryURL != e.BaseURL+"/pub" || e.StatsURL != e.BaseURL+"/woofi" || e.WSMarketURL != "ws://"+inst.Addr || e.WSPrivateURL != e.WSMarketURL {
		t.Fatalf("endpoints %+v", e)
	}
	if inst.Credentials.APIKey == "" || inst.SubCredentials.APIKey == "" || inst.Credentials.ApplicationID == inst.SubCredentials.ApplicationID {
		t.Fatalf("credentials %v %v", inst.Credentials, inst.SubCredentials)
	}
	// other packages mount handlers on the same listener
	inst.Mux.HandleFunc("GET /woofi/ping", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("pong")) })
	resp, err := http.Get(e.StatsURL + "/ping")
	if err != nil || resp.StatusCode != 200 || !wrapped.Load() {
		t.Fatalf("mounted handler: %v %v wrapped=%v", resp, err, wrapped.Load())
	}
	resp.Body.Close()
	cancel() // ending the context shuts the sim down
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := http.Get(e.BaseURL + "/v1/public/info"); err != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("still serving after the context ended")
}

// ownCredentials writes the embedded universe with every demo key and
// secret replaced, as an operator exposing the venue would.
func ownCredentials(t *testing.T) string {
	t.Helper()
	doc := string(exchange.DefaultUniverseJSON())
	def, err := exchange.DefaultUniverse()
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range def.Accounts {
		doc = strings.ReplaceAll(doc, a.APIKey, fmt.Sprintf("OwnKey%d", i))
		doc = strings.ReplaceAll(doc, a.APISecret, fmt.Sprintf("OwnSecret%d-not-public", i))
	}
	path := filepath.Join(t.TempDir(), "universe.json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNonLoopbackListenNeedsOwnCredentials(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0", "example.org:0"} {
		_, err := sim.Start(context.Background(), sim.Options{Listen: addr})
		if err == nil || !strings.Contains(err.Error(), "demo credentials are public") || !strings.Contains(err.Error(), "--universe") {
			t.Fatalf("listen %s with the demo credentials: %v", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		inst, err := sim.Start(context.Background(), sim.Options{Listen: addr})
		if err != nil {
			if strings.Contains(err.Error(), "demo credentials") {
				t.Fatalf("loopback %s refused: %v", addr, err)
			}
			continue // no IPv6 here
		}
		inst.Close()
	}
}

func TestStateInMissingDirectoryFailsAtStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "state.json")
	_, err := sim.Start(context.Background(), sim.Options{StatePath: path})
	if err == nil || !strings.Contains(err.Error(), filepath.Dir(path)) {
		t.Fatalf("state in a missing directory: %v", err)
	}
}

func TestWildcardListenGivesLoopbackURLs(t *testing.T) {
	inst, err := sim.Start(context.Background(), sim.Options{Listen: "0.0.0.0:0", Universe: ownCredentials(t)})
	if err != nil {
		t.Skip("cannot listen on all interfaces here:", err)
	}
	defer inst.Close()
	resp, err := http.Get(inst.Endpoints.BaseURL + "/v1/public/info")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s: %v %v", inst.Endpoints.BaseURL, resp, err)
	}
	resp.Body.Close()
}

// Every path the venue does not serve, inside /v1 and /v2 or not, is
// answered as the venue answers errors: JSON, 404, code -1006 (some real
// clients call /v3 paths and parse every error body as JSON).
func TestUnknownPathsGetTheVenuesJSON404(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inst, err := sim.Start(ctx, sim.Options{Living: sim.LivingOptions{NoMarket: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	for _, c := range []struct{ method, path string }{
		{"GET", "/v3/balances"},
		{"GET", "/v1/nothing"},
		{"GET", "/v2/client/nothing"},
		{"GET", "/"},
		{"GET", "/favicon.ico"},
		{"POST", "/v3/order"},
		{"DELETE", "/pub/v1/nothing"},
	} {
		req, _ := http.NewRequest(c.method, inst.Endpoints.BaseURL+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var body struct {
			Success *bool  `json:"success"`
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(raw, &body); err != nil || resp.StatusCode != http.StatusNotFound ||
			resp.Header.Get("Content-Type") != "application/json" || body.Success == nil || *body.Success ||
			body.Code != -1006 || !strings.Contains(body.Message, c.path) {
			t.Errorf("%s %s: %d %q %s, want 404 JSON with code -1006 naming the path", c.method, c.path,
				resp.StatusCode, resp.Header.Get("Content-Type"), raw)
		}
	}
	// the endpoints, the Websocket streams and the swap statistics are
	// still theirs: not the catch-all's 404
	for _, path := range []string{"/v1/public/info", "/woofi/stat", "/ws/stream/demo"} {
		resp, err := http.Get(inst.Endpoints.BaseURL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound {
			t.Errorf("GET %s: 404, want its own handler's answer", path)
		}
	}
}
