package algo

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo/store"
	"tradedeck/feed"
	"tradedeck/sim"
	"tradedeck/sim/exchange"
	"tradedeck/sim/simtest"
	"tradedeck/venue"
)

// harness is the simulated venue on loopback with a quiet market (prices
// move only when the test's mover trades through the venue's REST), the
// engine's account (the demo main account), a feed on real sockets
// feeding the engine, and every order body the venue received.
type harness struct {
	t      *testing.T
	inst   *sim.Instance
	client *venue.Client // the engine's account
	mover  *venue.Client // another FUTURES account that moves the market
	dbPath string

	mu     sync.Mutex
	orders []url.Values // POST /v1/order bodies as they reached the venue
	at     []time.Time  // when each reached it
	reads  []int64      // client order ids the account read from REST (GET /v1/client/order/ID)

	ended  atomic.Bool // the test returned: no more t.Log
	eng    *Engine
	st     *store.Store
	feed   *feed.Feed
	stop   context.CancelFunc
	kill   context.CancelFunc // stop the feed, leave the engine's goroutines where they are
	events *eventLog
}

// moverKey and moverSecret sign the mover's requests.
const moverKey, moverSecret = "MoverKey000000000000000A==", "MOVERSECRET0000000000000000000"

// universeWithMover is the embedded universe plus a well-funded FUTURES
// account for the mover.
func universeWithMover(t *testing.T) string {
	t.Helper()
	var u map[string]any
	if err := json.Unmarshal(exchange.DefaultUniverseJSON(), &u); err != nil {
		t.Fatal(err)
	}
	accts := u["accounts"].([]any)
	mover := map[string]any{}
	for k, v := range accts[0].(map[string]any) {
		mover[k] = v
	}
	mover["name"], mover["alias"], mover["api_key"], mover["api_secret"] = "MOVER", "mover", moverKey, moverSecret
	mover["application_id"] = "11111111-2222-3333-4444-555555555555"
	mover["balances"] = map[string]any{"USDT": "50000000", "BTC": "100", "ETH": "1000"}
	u["accounts"] = append(accts, mover)
	b, _ := json.Marshal(u)
	p := filepath.Join(t.TempDir(), "universe.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

type hopts struct {
	rateLimits bool
	living     sim.LivingOptions
	venueWrap  func(Venue) Venue
	work       *workClock                  // the working orders' clock (nil: the engine's)
	observer   func(*Engine) feed.Observer // what the feed reports to (nil: the engine)
}

func newHarness(t *testing.T, o hopts) *harness {
	t.Helper()
	h := &harness{t: t, dbPath: filepath.Join(t.TempDir(), "desk.db")}
	record := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/client/order/") && r.Header.Get(venue.HeaderKey) != moverKey {
				cid, _ := strconv.ParseInt(strings.TrimPrefix(r.URL.Path, "/v1/client/order/"), 10, 64)
				h.mu.Lock()
				h.reads = append(h.reads, cid)
				h.mu.Unlock()
			}
			if r.Method == http.MethodPost && r.URL.Path == "/v1/order" && r.Header.Get(venue.HeaderKey) != moverKey {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				v, _ := url.ParseQuery(string(body))
				h.mu.Lock()
				h.orders = append(h.orders, v)
				h.at = append(h.at, time.Now())
				h.mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	}
	living := o.living
	living.NoMarket = true
	if living.Streams.BBOInterval == 0 {
		living.Streams.BBOInterval = 5 * time.Millisecond
	}
	if living.Streams.StatsInterval == 0 {
		living.Streams.StatsInterval = 200 * time.Millisecond
	}
	h.inst = simtest.Start(t, sim.Options{Seed: 7, NoRateLimits: !o.rateLimits, Universe: universeWithMover(t),
		Living: living, Middleware: []func(http.Handler) http.Handler{record}})
	opts := []venue.Option{}
	if !o.rateLimits {
		opts = append(opts, venue.WithLimiter(nil))
	}
	h.client = venue.NewClient(h.inst.Endpoints, h.inst.Credentials, opts...)
	h.mover = venue.NewClient(h.inst.Endpoints, venue.Credentials{APIKey: moverKey, APISecret: moverSecret,
		ApplicationID: "11111111-2222-3333-4444-555555555555"}, venue.WithLimiter(nil))
	t.Cleanup(func() { h.ended.Store(true) })
	h.start(o)
	return h
}

// start runs an engine (and its feed) on the harness's database.
func (h *harness) start(o hopts) {
	t := h.t
	t.Helper()
	st, err := store.Open(h.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	var v Venue = h.client
	if o.venueWrap != nil {
		v = o.venueWrap(h.client)
	}
	var fp atomic.Pointer[feed.Feed]
	var tracked atomic.Value
	e, err := New(Config{Account: AccountKey(h.inst.Endpoints, h.inst.Credentials), Venue: v, Store: st,
		Poll: 300 * time.Millisecond, Timeout: 5 * time.Second,
		OnSymbols: func(s []string) {
			tracked.Store(s)
			if f := fp.Load(); f != nil {
				f.Track(s)
			}
		},
		Log: h.log})
	if err != nil {
		t.Fatal(err)
	}
	if o.work != nil {
		e.work = *o.work
	}
	var obs feed.Observer = e
	if o.observer != nil {
		obs = o.observer(e)
	}
	f := feed.New(feed.Config{Endpoints: h.inst.Endpoints, Credentials: h.inst.Credentials, REST: h.client,
		Symbol: "PERP_ETH_USDT", Observer: obs, StaleAfter: 400 * time.Millisecond, DeadAfter: 2 * time.Second})
	fp.Store(f)
	if s, ok := tracked.Load().([]string); ok {
		f.Track(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg, run sync.WaitGroup
	wg.Add(2)
	run.Add(1)
	go func() { defer wg.Done(); _ = f.Run(ctx) }()
	go func() {
		defer wg.Done()
		for {
			select {
			case <-f.Updates():
			case <-ctx.Done():
				return
			}
		}
	}()
	runErr := make(chan error, 1)
	go func() { defer run.Done(); runErr <- e.Run(ctx) }()
	h.events = newEventLog(e)
	h.eng, h.st, h.feed = e, st, f
	h.stop = func() { cancel(); wg.Wait(); run.Wait() }
	h.kill = func() { cancel(); wg.Wait() }
	t.Cleanup(func() { h.stop(); st.Close() })
	select {
	case <-e.Ready():
	case err := <-runErr:
		t.Fatalf("engine: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("engine not ready")
	}
	// The private stream live before a test acts, as a desk's is long
	// before a trader's first order (the engine's reading of children the
	// stream never carried has its own test).
	h.eventually("the private stream live", 10*time.Second, func() bool {
		for _, x := range f.Health() {
			if x.Stream == feed.StreamPrivate {
				return x.State == feed.Connected
			}
		}
		return false
	})
}

func (h *harness) log(s string) {
	if !h.ended.Load() {
		h.t.Log(s)
	}
}

// crash drops the engine and its feed without any cleanup of the algos
// (the journal is all that is left), as kill -9 would.
func (h *harness) crash() {
	h.kill()
	h.stop = func() {}
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// trade sends a plain order of the engine's account (outside the engine).
func (h *harness) trade(sym string, side venue.Side, typ venue.OrderType, price, qty string) venue.OrderAck {
	h.t.Helper()
	r := venue.OrderRequest{Symbol: sym, Type: typ, Side: side, Quantity: dec(qty)}
	if price != "" {
		r.Price = dec(price)
	}
	ack, err := h.client.SendOrder(context.Background(), r)
	if err != nil {
		h.t.Fatalf("%s %s %s: %v", side, qty, sym, err)
	}
	return ack
}

// sweep is the mover taking the book through price with an IOC: every
// level up to it trades, and the rest of the IOC is cancelled.
func (h *harness) sweep(sym string, side venue.Side, price, qty string) {
	h.t.Helper()
	_, err := h.mover.SendOrder(context.Background(), venue.OrderRequest{Symbol: sym, Type: venue.IOC, Side: side, Price: dec(price), Quantity: dec(qty)})
	if err != nil {
		h.t.Fatalf("mover %s %s @ %s: %v", side, sym, price, err)
	}
}

// quote is the mover resting a LIMIT order.
func (h *harness) quote(sym string, side venue.Side, price, qty string) {
	h.t.Helper()
	_, err := h.mover.SendOrder(context.Background(), venue.OrderRequest{Symbol: sym, Type: venue.Limit, Side: side, Price: dec(price), Quantity: dec(qty)})
	if err != nil {
		h.t.Fatalf("mover quote %s %s @ %s: %v", side, sym, price, err)
	}
}

func (h *harness) book(sym string) (bid, ask decimal.Decimal) {
	h.t.Helper()
	b, err := h.client.OrderBook(context.Background(), sym, 1)
	if err != nil || len(b.Bids) == 0 || len(b.Asks) == 0 {
		h.t.Fatalf("book %s: %v", sym, err)
	}
	return b.Bids[0].Price, b.Asks[0].Price
}

func (h *harness) position(sym string) decimal.Decimal {
	h.t.Helper()
	p, err := h.client.Position(context.Background(), sym)
	if err != nil {
		h.t.Fatal(err)
	}
	return p.Holding
}

// sent lists the order bodies the engine's account sent with the engine's
// client order ids of an algo.
func (h *harness) sent(id ID) []url.Values {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []url.Values
	for _, v := range h.orders {
		cid, _ := strconv.ParseInt(v.Get("client_order_id"), 10, 64)
		if gid, _, _, ok := ParseClientOrderID(h.st.ClientIDPrefix(), cid); ok && gid == id {
			out = append(out, v)
		}
	}
	return out
}

// eventually waits for cond (bounded), failing with what.
func (h *harness) eventually(what string, d time.Duration, cond func() bool) {
	h.t.Helper()
	end := time.Now().Add(d)
	for !cond() {
		if time.Now().After(end) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (h *harness) state(id ID) State {
	a, _ := h.eng.Get(id)
	return a.State
}

func (h *harness) waitState(id ID, st State) Algo {
	h.t.Helper()
	h.eventually("algo "+strconv.Itoa(int(id))+" "+st.String(), 15*time.Second, func() bool { return h.state(id) == st })
	a, _ := h.eng.Get(id)
	return a
}

// waitFresh waits until the engine has a fresh price of the symbol's
// source (its feed is subscribed and the stream live).
func (h *harness) waitFresh(sym string, src Source) {
	h.t.Helper()
	last := time.Time{}
	h.eventually("a fresh "+src.String()+" of "+sym, 10*time.Second, func() bool {
		if time.Since(last) > 300*time.Millisecond {
			// A quiet market pushes no bbo: the mover joins the best bid
			// with one lot, which changes its size and makes one.
			last = time.Now()
			bid, _ := h.book(sym)
			h.quote(sym, venue.Buy, bid.String(), "0.01")
			if src == SourceLast {
				_, ask := h.book(sym)
				h.sweep(sym, venue.Buy, ask.String(), "0.01")
			}
		}
		h.eng.mu.Lock()
		defer h.eng.mu.Unlock()
		s := h.eng.bySym[sym]
		if s == nil {
			return false
		}
		_, _, ok := s.price(src, time.Now(), h.eng.cfg.MaxAge)
		return ok
	})
}

// add parses and adds an algo, failing the test on a refusal.
func (h *harness) add(spec string, c Confirm) Algo {
	h.t.Helper()
	s, err := Parse(spec)
	if err != nil {
		h.t.Fatal(err)
	}
	a, err := h.eng.Add(s, c)
	if err != nil {
		h.t.Fatalf("%s: %v", spec, err)
	}
	return a
}

// eventLog keeps an engine's events.
type eventLog struct {
	mu  sync.Mutex
	evs []Event
}

func newEventLog(e *Engine) *eventLog {
	l := &eventLog{}
	ch, _ := e.Subscribe(1024)
	go func() {
		for ev := range ch {
			l.mu.Lock()
			l.evs = append(l.evs, ev)
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *eventLog) count(id ID, k EventKind) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.evs {
		if e.Algo == id && e.Kind == k {
			n++
		}
	}
	return n
}

func (l *eventLog) text(id ID) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, e := range l.evs {
		if e.Algo == id {
			b.WriteString(e.Kind.String() + ": " + e.Text + "\n")
		}
	}
	return b.String()
}
