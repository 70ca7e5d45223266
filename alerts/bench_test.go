package alerts

import (
	"strings"
	"testing"
	"time"

	"tradedeck/feed"
)

// The engine is on the feed's hot path: every trade and bbo of a watched
// symbol goes through it. Neither a symbol without alerts nor an alert
// that does not fire may allocate.
func benchEngine(b *testing.B) *Engine {
	e, err := NewEngine(Options{Now: func() time.Time { return time.Time{} }})
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range []string{"SPOT_BTC_USDT above 200", "SPOT_BTC_USDT below 1", "SPOT_BTC_USDT above 300 bid", "SPOT_BTC_USDT spread above 500"} {
		a, err := Parse(strings.Fields(l), nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Add(a); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

func BenchmarkObserveTrade(b *testing.B) {
	e := benchEngine(b)
	t := feed.Trade{Price: 10000, Qty: 1, Side: feed.Buy}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		t.Price = 10000 + int64(i&63)
		e.ObserveTrade("SPOT_BTC_USDT", btc, t)
	}
}

func BenchmarkObserveBBO(b *testing.B) {
	e := benchEngine(b)
	q := feed.BBO{Symbol: "SPOT_BTC_USDT", Scale: btc, Bid: 10000, Ask: 10001, BidSize: 1, AskSize: 1}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		q.Ask = 10001 + int64(i&7)
		e.ObserveBBO(q)
	}
}

func BenchmarkObserveUnwatched(b *testing.B) {
	e := benchEngine(b)
	t := feed.Trade{Price: 10000, Qty: 1, Side: feed.Buy}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		e.ObserveTrade("SPOT_ETH_USDT", btc, t)
	}
}

func TestObserveDoesNotAllocate(t *testing.T) {
	e := benchEngine(&testing.B{})
	tr := feed.Trade{Price: 10000, Qty: 1, Side: feed.Buy}
	q := feed.BBO{Symbol: "SPOT_BTC_USDT", Scale: btc, Bid: 10000, Ask: 10001}
	if n := testing.AllocsPerRun(200, func() {
		e.ObserveTrade("SPOT_BTC_USDT", btc, tr)
		e.ObserveBBO(q)
		e.ObserveTrade("SPOT_ETH_USDT", btc, tr)
	}); n != 0 {
		t.Fatalf("%v allocations per observation without a firing", n)
	}
}

// BenchmarkFanoutTrade is a trade handed to the engines of two sessions
// sharing one feed; like one engine, it must not allocate.
func BenchmarkFanoutTrade(b *testing.B) {
	fan := NewFanout()
	for range 2 {
		fan.Join().Attach(benchEngine(b))
	}
	t := feed.Trade{Price: 10000, Qty: 1, Side: feed.Buy}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		t.Price = 10000 + int64(i&63)
		fan.ObserveTrade("SPOT_BTC_USDT", btc, t)
	}
}
