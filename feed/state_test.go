package feed

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/feed/book"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

func TestCandleMerge(t *testing.T) {
	c := &candleSeries{}
	k := func(start int64, close string) Candle {
		return Candle{Start: start, End: start + 60, Close: decimal.RequireFromString(close)}
	}
	for _, x := range []Candle{k(60, "1"), k(120, "2"), k(180, "3")} {
		c.merge(x, 3)
	}
	c.merge(k(180, "3.5"), 3) // same start: replaces
	c.merge(k(240, "4"), 3)   // newer: appends, oldest falls off
	c.merge(k(120, "2.5"), 3) // an older one present: replaced in place
	c.merge(k(90, "9"), 3)    // an older one absent: inserted in order
	var starts []int64
	for _, r := range c.rows {
		starts = append(starts, r.Start)
	}
	if len(c.rows) != 4 || starts[0] != 90 || starts[1] != 120 || starts[3] != 240 || c.rows[1].Close.String() != "2.5" || c.rows[2].Close.String() != "3.5" {
		t.Fatalf("%v %+v", starts, c.rows)
	}
}

// TestCandleSeriesStaysWithinLimit: a full series slides in place, its
// array never grows past the limit (append would double it), and keeps
// the newest candles in order.
func TestCandleSeriesStaysWithinLimit(t *testing.T) {
	c := &candleSeries{rows: make([]Candle, 0, 100)}
	for i := int64(1); i <= 1000; i++ {
		c.merge(Candle{Start: i * 60}, 100)
	}
	if len(c.rows) != 100 || cap(c.rows) != 100 {
		t.Fatalf("len %d cap %d, want 100 and 100", len(c.rows), cap(c.rows))
	}
	for i, r := range c.rows {
		if want := int64(901+i) * 60; r.Start != want {
			t.Fatalf("row %d starts %d, want %d", i, r.Start, want)
		}
	}
}

func TestTradeRingNewestFirst(t *testing.T) {
	r := newTradeRing(3)
	for i := int64(1); i <= 5; i++ {
		r.push(Trade{TS: i})
	}
	rows := r.newestFirst()
	if len(rows) != 3 || rows[0].TS != 5 || rows[2].TS != 3 {
		t.Fatalf("%+v", rows)
	}
}

// A snapshot is never changed by later pushes, the shelf's moves
// included, and every snapshot holds the newest trades newest first.
func TestTradeRingSnapshotsStayAsTaken(t *testing.T) {
	const n = 5
	r := newTradeRing(n)
	var snaps [][]Trade
	for i := int64(1); i <= 10*shelfRows*n; i++ {
		r.push(Trade{TS: i})
		rows := r.newestFirst()
		if want := min(i, n); int64(len(rows)) != want || rows[0].TS != i || rows[len(rows)-1].TS != i-want+1 {
			t.Fatalf("after %d pushes: %+v", i, rows)
		}
		snaps = append(snaps, rows)
	}
	for k, rows := range snaps {
		newest := int64(k + 1)
		for j, tr := range rows {
			if tr.TS != newest-int64(j) {
				t.Fatalf("snapshot after %d pushes, row %d: ts %d, want %d (a later push wrote over it)", newest, j, tr.TS, newest-int64(j))
			}
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { r.push(Trade{TS: 1}); _ = r.newestFirst() }); allocs > 0.5 {
		t.Fatalf("%.2f allocations per push and snapshot", allocs)
	}
}

func newTestFeed() *Feed {
	return New(Config{Endpoints: venue.Endpoints{BaseURL: "http://127.0.0.1:1"}, Clock: func() time.Time { return time.Unix(1000, 0) }})
}

// TestOrderViewsNeverGoBackwards: a late NEW after FILLED, the same fill
// from the stream and from REST, a cancel seen twice: one event each.
func TestOrderViewsNeverGoBackwards(t *testing.T) {
	f := newTestFeed()
	d := decimal.RequireFromString
	o := Order{OrderID: 1, ClientOrderID: 5, Symbol: "S", Side: "BUY", Status: "NEW", Quantity: d("2")}
	f.acct.mu.Lock()
	f.acct.applyOrderLocked(o, true)
	f.acct.addFillLocked(Fill{TradeID: 10, OrderID: 1, Qty: d("1"), Time: time.Unix(1, 0)}, true)
	o.Status, o.Executed = "PARTIAL_FILLED", d("1")
	f.acct.applyOrderLocked(o, true)
	f.acct.addFillLocked(Fill{TradeID: 10, OrderID: 1, Qty: d("1")}, true) // again, from REST
	o.Status, o.Executed = "NEW", d("0")
	f.acct.applyOrderLocked(o, true) // late
	if f.acct.open[1].Status != "PARTIAL_FILLED" {
		t.Fatalf("went backwards: %+v", f.acct.open[1])
	}
	o.Status, o.Executed = "CANCELLED", d("1")
	f.acct.applyOrderLocked(o, true)
	f.acct.applyOrderLocked(o, true)
	o.Status = "NEW"
	f.acct.applyOrderLocked(o, true) // a complete order cannot reopen
	f.acct.mu.Unlock()
	var kinds []EventKind
	for _, e := range f.events.snapshot() {
		kinds = append(kinds, e.Kind)
	}
	if len(kinds) != 3 || kinds[0] != EventOrderAck || kinds[1] != EventFill || kinds[2] != EventCancelled {
		t.Fatalf("events %v", kinds)
	}
	if len(f.acct.open) != 0 || len(f.acct.history) != 1 || len(f.acct.fills) != 1 || f.acct.fills[0].ClientOrderID != 5 {
		t.Fatalf("%+v", &f.acct)
	}
}

// TestFirstReconciliationIsNotNews: what REST shows at start is history;
// a later cancel of an order open at start is still announced.
func TestFirstReconciliationIsNotNews(t *testing.T) {
	f := newTestFeed()
	f.acct.mu.Lock()
	f.acct.applyOrderLocked(Order{OrderID: 1, Status: "NEW"}, false)
	f.acct.applyOrderLocked(Order{OrderID: 2, Status: "CANCELLED"}, false)
	f.acct.addFillLocked(Fill{TradeID: 7, OrderID: 2}, false)
	if len(f.events.snapshot()) != 0 {
		t.Fatalf("history announced: %+v", f.events.snapshot())
	}
	f.acct.applyOrderLocked(Order{OrderID: 1, Status: "CANCELLED"}, true)
	f.acct.mu.Unlock()
	if len(f.events.snapshot()) != 1 || f.events.snapshot()[0].Kind != EventCancelled {
		t.Fatalf("%+v", f.events.snapshot())
	}
}

func TestPendingMatchedByClientID(t *testing.T) {
	f := newTestFeed()
	f.TrackPending(Order{ClientOrderID: 9, Symbol: "S"})
	f.TrackPending(Order{ClientOrderID: 0, Symbol: "S"}) // unmatchable: ignored
	if len(f.acct.pending) != 1 {
		t.Fatal(len(f.acct.pending))
	}
	f.acct.mu.Lock()
	f.acct.applyOrderLocked(Order{OrderID: 3, ClientOrderID: 9, Status: "NEW"}, true)
	f.acct.mu.Unlock()
	if len(f.acct.pending) != 0 || f.acct.open[3] == nil || f.acct.open[3].Created.IsZero() {
		t.Fatalf("%+v", &f.acct)
	}
	f.TrackPending(Order{ClientOrderID: 11})
	f.RejectPending(11, "PRICE_FILTER")
	f.RejectPending(11, "again") // already ended: nothing
	n := 0
	for _, e := range f.events.snapshot() {
		if e.Kind == EventRejected {
			n++
		}
	}
	if n != 1 || f.acct.history[0].Status != "REJECTED" || f.acct.history[0].Reason != "PRICE_FILTER" {
		t.Fatalf("%d %+v", n, f.acct.history)
	}
}

func TestHealthLatencySmoothing(t *testing.T) {
	var sh streamHealth
	now := time.UnixMilli(10_000)
	sh.sample(now, 9_990) // 10 ms
	for i := 0; i < 5; i++ {
		sh.sample(now, 10_000) // 0 ms
	}
	if l := time.Duration(sh.latencyEst); l <= 0 || l >= 10*time.Millisecond {
		t.Fatalf("latency %v", l)
	}
}

// TestBadFramesNeverCorruptState: an unreadable delta is a missed delta
// (the book resyncs); other bad frames are counted and shown; none panics.
func TestBadFramesNeverCorruptState(t *testing.T) {
	f := New(Config{Endpoints: venue.Endpoints{BaseURL: "http://127.0.0.1:1"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // ends the snapshot fetch the bad delta starts
	f.ctx.Store(&ctx)
	f.setRules([]venue.SymbolRule{{Symbol: "S", QuoteTick: decimal.RequireFromString("0.01"), BaseTick: decimal.RequireFromString("0.1")}})
	s := f.mkt.syms["S"]
	s.book = &bookState{}
	s.trades = newTradeRing(10)
	s.book.sync.Snapshot(100, []book.Level{{Price: 101, Qty: 1}}, []book.Level{{Price: 99, Qty: 1}}, false)
	frames := []string{
		`{"topic":"S@orderbookupdate","ts":110,"data":{"prevTs":100,"asks":[[1.011,1]]}}`, // finer than the tick
		`{"topic":"S@trade","ts":111,"data":{"price":1,"size":1,"side":"SIDEWAYS"}}`,
		`{"topic":"S@bbo","ts":112,"data":{"ask":"x"}}`,
		`{"topic":"S@ticker","ts":113,"data":[]}`,
		`{"topic":"UNKNOWN@bbo","ts":114,"data":{}}`,
		`{"topic":"S@kline_1m","ts":115,"data":{"open":"nope"}}`,
		`{"topic":"S@markprice","ts":116,"data":{"price":{}}}`,
	}
	for _, fr := range frames {
		var env stream.Envelope
		err := stream.ParseEnvelope([]byte(fr), &env)
		f.mkt.onFrame([]byte(fr), &env, err)
	}
	f.mkt.onFrame(nil, &stream.Envelope{}, errors.New("not json"))
	if s.book.sync.Live() || s.book.sync.Gaps != 1 {
		t.Fatalf("an unreadable delta must resync the book: %+v", s.book.sync)
	}
	if s.trades.n != 0 || s.bbo.Ask != 0 {
		t.Fatal("a bad frame changed state")
	}
	if f.health.streams[mStream].malformed < 5 || f.health.streams[mStream].h.Err == "" {
		t.Fatalf("bad frames not counted: %d %q", f.health.streams[mStream].malformed, f.health.streams[mStream].h.Err)
	}
}

// An array push that is not an array, or breaks off mid-way, is counted
// and shown as a malformed frame, as any other bad frame is.
func TestBadArrayPushIsCounted(t *testing.T) {
	for _, fr := range []string{
		`{"topic":"tickers","ts":1,"data":{"symbol":"S"}}`,
		`{"topic":"bbos","ts":2,"data":[{"symbol":"S","ask":1}`,
		`{"topic":"markprices","ts":3,"data":"x"}`,
	} {
		f := New(Config{Endpoints: venue.Endpoints{BaseURL: "http://127.0.0.1:1"}})
		var env stream.Envelope
		if err := stream.ParseEnvelope([]byte(fr), &env); err != nil {
			t.Fatalf("%s: the envelope itself must parse: %v", fr, err)
		}
		f.mkt.onFrame([]byte(fr), &env, nil)
		if h := f.health.streams[mStream]; h.malformed != 1 || !strings.Contains(h.h.Err, "malformed frame") {
			t.Fatalf("%s: counted %d, shown %q", fr, h.malformed, h.h.Err)
		}
	}
}
