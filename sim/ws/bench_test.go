package ws

import (
	"context"
	"testing"

	"tradedeck/sim/exchange"
)

// captureOf builds a side of n levels one tick apart starting at p, each with its own print.
func captureOf(n int, p, step int64, seed uint64) []exchange.LevelPrint {
	out := make([]exchange.LevelPrint, n)
	for i := range out {
		out[i] = exchange.LevelPrint{Price: p + int64(i)*step, Qty: int64(100 + i), Print: seed + uint64(i)}
	}
	return out
}

// BenchmarkUpdateFrame is the work of one orderbookupdate push of one symbol: diff two
// 100-level captures per side with 10 changed levels each and encode the frame.
func BenchmarkUpdateFrame(b *testing.B) {
	m := marketInfo{symbol: "SPOT_BTC_USDT", pd: 2, qd: 5, tick: 1}
	prevA, curA := captureOf(100, 9700000, 1, 0), captureOf(100, 9700000, 1, 0)
	prevB, curB := captureOf(100, 9699999, -1, 0), captureOf(100, 9699999, -1, 0)
	for i := 0; i < 100; i += 10 {
		curA[i].Qty += 7
		curB[i].Print++
	}
	// 10 touched levels a side, half of them unchanged between the captures (sent only as touched).
	var touched []exchange.TouchedLevel
	for i := int64(0); i < 10; i++ {
		touched = append(touched, exchange.TouchedLevel{Price: 9700000 + 5*i}, exchange.TouchedLevel{Price: 9699999 - 5*i, Buy: true})
	}
	var tb, ta []int64
	var asks, bids []level
	b.ReportAllocs()
	for b.Loop() {
		tb, ta = splitTouched(touched, tb[:0], ta[:0])
		asks = diffSide(asks[:0], prevA, curA, ta, false, askBetter)
		bids = diffSide(bids[:0], prevB, curB, tb, false, bidBetter)
		buf := appendPushHead(make([]byte, 0, 512), "SPOT_BTC_USDT@orderbookupdate", 1)
		buf = appendLevels(buf, asks, m)
		buf = appendLevels(buf, bids, m)
		if len(buf) == 0 {
			b.Fatal()
		}
	}
}

// BenchmarkCaptureBooks is one capture of every book of the seeded venue (13 symbols, 25
// levels per side).
func BenchmarkCaptureBooks(b *testing.B) {
	ex, err := exchange.New(exchange.Options{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	events, cancel := ex.Subscribe()
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		ex.CaptureBooks(depthOrderbook, nil)
		<-events
	}
}

// BenchmarkFanout queues one frame to 100 subscribers (and takes it off their queues, as their
// writers would).
func BenchmarkFanout(b *testing.B) {
	h := newHub()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &Server{}
	var conns []*conn
	for range 100 {
		c := &conn{srv: s, queue: make(chan frame, 16), ctx: ctx, cancel: cancel}
		conns = append(conns, c)
		h.add("t", c)
	}
	frame := []byte(`{"topic":"t","ts":1,"data":{}}`)
	b.ReportAllocs()
	for b.Loop() {
		h.publish("t", frame)
		for _, c := range conns {
			<-c.queue
		}
	}
}
