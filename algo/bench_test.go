package algo

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo/store"
	"tradedeck/feed"
	"tradedeck/trade"
	"tradedeck/venue"
)

// benchVenue is a venue on loopback that answers at once and notes when
// each order request reached it (the far end of the socket).
type benchVenue struct {
	srv *httptest.Server
	got chan time.Time
}

func newBenchVenue(tb testing.TB) *benchVenue {
	v := &benchVenue{got: make(chan time.Time, 16)}
	var mu sync.Mutex
	next := int64(1)
	v.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/order":
			at := time.Now()
			_ = r.ParseForm()
			mu.Lock()
			id := next
			next++
			mu.Unlock()
			v.got <- at
			fmt.Fprintf(w, `{"success":true,"order_id":%d,"client_order_id":%s,"order_type":"MARKET","order_quantity":"1","timestamp":"1.0"}`, id, r.Form.Get("client_order_id"))
		case r.URL.Path == "/v1/positions":
			fmt.Fprint(w, `{"success":true,"positions":[]}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"success":false,"code":-1006,"message":"not found"}`)
		}
	}))
	tb.Cleanup(v.srv.Close)
	return v
}

// benchEngine is an engine on a fresh database with 100 stops armed
// across 20 perpetuals (far from the market: they never fire), a long
// position on each, and the symbols' rules known.
func benchEngine(tb testing.TB, v Venue) (*Engine, []string) {
	st, err := store.Open(filepath.Join(tb.TempDir(), "desk.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	e, err := New(Config{Account: "bench", Venue: v, Store: st, Poll: time.Hour})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = e.Run(ctx); close(done) }()
	tb.Cleanup(func() { cancel(); <-done })
	<-e.Ready()
	syms := make([]string, 20)
	for i := range syms {
		syms[i] = "PERP_S" + strconv.Itoa(i) + "_USDT"
		e.rules[syms[i]] = ruleInfo{rule: trade.Rule{Symbol: syms[i], QuoteTick: dec("0.01"), BaseTick: dec("0.001"), BaseMin: dec("0.001")}}
		e.pos[syms[i]], e.posSeen[syms[i]] = dec("1"), true
	}
	for i := 0; i < 100; i++ {
		benchStop(tb, e, syms[i%20], dec("50"))
	}
	return e, syms
}

// benchStop arms a stop on a long directly (no venue round trip).
func benchStop(tb testing.TB, e *Engine, sym string, level decimal.Decimal) *algoState {
	now := time.Now()
	a := &algoState{spec: Spec{Kind: KindStop, Symbol: sym, Trigger: level, Source: SourceBid}, side: trade.Sell, perp: true,
		state: StateArmed, created: now, updated: now, attempts: map[Leg]int{}}
	a.triggers = []*trigger{{a: a, leg: LegStop, src: SourceBid, levelDec: level, dec: -1}}
	err := e.cfg.Store.Tx(func(tx *store.Tx) error {
		id, err := tx.InsertAlgo(e.algoRowLocked(a))
		a.id = ID(id)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	e.mu.Lock()
	e.algos[a.id] = a
	e.armLocked(a)
	e.mu.Unlock()
	return a
}

var benchScale = feed.Scale{PriceDec: 2, QtyDec: 3}

// BenchmarkObserveNoFire: a bbo and a trade that cross nothing, with 100
// stops armed across 20 symbols. Must not allocate.
func BenchmarkObserveNoFire(b *testing.B) {
	e, syms := benchEngine(b, newBenchVenue(b).client())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		now := time.Now().UnixMilli() // fresh: a stale frame is not evaluated at all
		sym := syms[i%20]
		px := int64(10000_00 + i%100)
		e.ObserveBBO(feed.BBO{Symbol: sym, Scale: benchScale, Bid: px, Ask: px + 1, TS: now})
		e.ObserveTrade(sym, benchScale, feed.Trade{Price: px, Qty: 1000, Side: feed.Buy, TS: now})
	}
}

func (v *benchVenue) client() *venue.Client {
	return venue.NewClient(venue.Endpoints{BaseURL: v.srv.URL}, venue.Credentials{APIKey: "k", APISecret: "s"}, venue.WithLimiter(nil))
}

// BenchmarkTriggerToWire: from the bbo frame that crosses a stop to its
// exit's order request arriving at the venue's socket on loopback, with
// 100 other stops armed across 20 symbols: the trigger check, the exit's
// sizing from the live position, the journal's synchronous commit (on
// disk before the order leaves), signing and the HTTP request. Reports
// p50 and p99 of that latency.
func BenchmarkTriggerToWire(b *testing.B) {
	v := newBenchVenue(b)
	e, syms := benchEngine(b, v.client())
	lat := make([]time.Duration, 0, b.N)
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		now := time.Now().UnixMilli()
		sym := syms[i%20]
		e.mu.Lock()
		e.pos[sym] = dec("1")
		e.mu.Unlock()
		a := benchStop(b, e, sym, dec("9000"))
		e.ObserveBBO(feed.BBO{Symbol: sym, Scale: benchScale, Bid: 9100_00, Ask: 9100_01, TS: now})
		b.StartTimer()
		c0 := cpuTime()
		t0 := time.Now()
		e.ObserveBBO(feed.BBO{Symbol: sym, Scale: benchScale, Bid: 8999_00, Ask: 9000_01, TS: now})
		t1 := <-v.got
		b.StopTimer()
		cpu += cpuTime() - c0
		lat = append(lat, t1.Sub(t0))
		// The exit filled: the engine reads the position (flat) and ends.
		e.mu.Lock()
		c := a.children[0]
		e.mu.Unlock()
		e.ObserveOrder(feed.Order{OrderID: 1, ClientOrderID: c.cid, Symbol: sym, Status: "FILLED", Executed: dec("1"), Quantity: dec("1")})
		for e.view(a).State != StateDone {
			time.Sleep(50 * time.Microsecond)
		}
		b.StartTimer()
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
}

// cpuTime is the process's CPU time (user + system): unlike wall time it
// is not stretched by other processes on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
