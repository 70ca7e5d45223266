package feed

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shopspring/decimal"

	"tradedeck/venue"
	"tradedeck/venue/stream"
)

// countingObserver counts what it is shown.
type countingObserver struct {
	bbos, trades, marks atomic.Int64
	lastBid             atomic.Int64
}

func (o *countingObserver) ObserveTrade(string, Scale, Trade) { o.trades.Add(1) }
func (o *countingObserver) ObserveBBO(b BBO)                  { o.bbos.Add(1); o.lastBid.Store(b.Bid) }
func (o *countingObserver) ObserveTicker(Ticker)              {}
func (o *countingObserver) ObserveMark(string, decimal.Decimal, int64) {
	o.marks.Add(1)
}
func (o *countingObserver) ObserveOrder(Order)       {}
func (o *countingObserver) ObservePosition(Position) {}
func (o *countingObserver) ObserveHealth(Health)     {}

// TestObserverSeesEveryFrameNotCoalesced: 500 bbo and trade pushes between
// two frames reach the UI as one Update with the last bbo, and the
// observer as 500 calls each, in order.
func TestObserverSeesEveryFrameNotCoalesced(t *testing.T) {
	obs := &countingObserver{}
	f := New(Config{Endpoints: venue.Endpoints{BaseURL: "http://127.0.0.1:1"}, Observer: obs})
	f.setRules([]venue.SymbolRule{{Symbol: "PERP_X_USDT", QuoteTick: decimal.RequireFromString("0.01"), BaseTick: decimal.RequireFromString("0.1")}})
	f.Track([]string{"PERP_X_USDT"})
	f.mkt.subscribeAll()
	s := f.mkt.syms["PERP_X_USDT"]
	if !s.showBBO {
		t.Fatal("a tracked symbol's bbo is not shown")
	}
	const n = 500
	for i := 1; i <= n; i++ {
		ts := strconv.Itoa(1000 + i)
		for _, fr := range []string{
			`{"topic":"PERP_X_USDT@bbo","ts":` + ts + `,"data":{"symbol":"PERP_X_USDT","ask":2,"askSize":1,"bid":1.` + strconv.Itoa(i%10) + `,"bidSize":1}}`,
			`{"topic":"PERP_X_USDT@trade","ts":` + ts + `,"data":{"symbol":"PERP_X_USDT","price":1.5,"size":1,"side":"BUY"}}`,
			`{"topic":"PERP_X_USDT@markprice","ts":` + ts + `,"data":{"symbol":"PERP_X_USDT","price":1.5}}`,
		} {
			var env stream.Envelope
			err := stream.ParseEnvelope([]byte(fr), &env)
			f.mkt.onFrame([]byte(fr), &env, err)
		}
	}
	var u Update
	if !f.collect(&u, true) {
		t.Fatal("nothing collected")
	}
	if got := u.BBOs["PERP_X_USDT"].Bid; got != 100+n%10*10 {
		t.Fatalf("the Update's bbo is not the last one: bid %d", got)
	}
	if obs.bbos.Load() != n || obs.trades.Load() != n || obs.marks.Load() != n {
		t.Fatalf("observer saw %d bbos, %d trades, %d marks; want %d each", obs.bbos.Load(), obs.trades.Load(), obs.marks.Load(), n)
	}
	if obs.lastBid.Load() != u.BBOs["PERP_X_USDT"].Bid {
		t.Fatal("the observer's last bbo differs from the Update's")
	}
}

// orderObserver records the own-order views it is shown.
type orderObserver struct {
	countingObserver
	mu     sync.Mutex
	orders []string
}

func (o *orderObserver) ObserveOrder(or Order) {
	o.mu.Lock()
	o.orders = append(o.orders, or.Status+" "+or.Executed.String())
	o.mu.Unlock()
}

// TestObserverSeesOwnOrderNews: each new view of an own order reaches the
// observer once, in order (the algo engine follows its child orders with
// it); a repeated or older view does not.
func TestObserverSeesOwnOrderNews(t *testing.T) {
	obs := &orderObserver{}
	f := New(Config{Endpoints: venue.Endpoints{BaseURL: "http://127.0.0.1:1"}, Observer: obs})
	dec := decimal.RequireFromString
	for _, r := range []stream.ExecutionReport{
		{Symbol: "PERP_X_USDT", OrderID: 7, ClientOrderID: 70, Status: "NEW", Quantity: dec("3")},
		{Symbol: "PERP_X_USDT", OrderID: 7, ClientOrderID: 70, Status: "PARTIAL_FILLED", Quantity: dec("3"), TradeID: 1, ExecutedQuantity: dec("1"), TotalExecutedQuantity: dec("1")},
		{Symbol: "PERP_X_USDT", OrderID: 7, ClientOrderID: 70, Status: "NEW", Quantity: dec("3")}, // late: not news
		{Symbol: "PERP_X_USDT", OrderID: 7, ClientOrderID: 70, Status: "FILLED", Quantity: dec("3"), TradeID: 2, ExecutedQuantity: dec("2"), TotalExecutedQuantity: dec("3")},
		{Symbol: "PERP_X_USDT", OrderID: 7, ClientOrderID: 70, Status: "FILLED", Quantity: dec("3"), TotalExecutedQuantity: dec("3")}, // repeated
	} {
		f.acct.onExecutionReport(&r)
	}
	want := []string{"NEW 0", "PARTIAL_FILLED 1", "FILLED 3"}
	if !slices.Equal(obs.orders, want) {
		t.Fatalf("observer saw %q, want %q", obs.orders, want)
	}
}
