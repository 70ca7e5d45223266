package ws

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/sim/exchange"
	"tradedeck/sim/journal"
	"tradedeck/venue"
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

// BenchmarkOrderPathStream is exchange.BenchmarkOrderPath's journal-8-clients
// with the private stream running: 8 clients place and cancel a LIMIT order,
// each acknowledged as the REST layer does (Durable), while a real private
// Websocket client of the same account reads every executionreport and
// balance frame those changes produce. Its cost per round is what an
// acknowledged change costs when its events also go out on the stream.
func BenchmarkOrderPathStream(b *testing.B) {
	ex, err := exchange.New(exchange.Options{Seed: 7, NoHistory: true})
	if err != nil {
		b.Fatal(err)
	}
	j, err := journal.Open(filepath.Join(b.TempDir(), "state.json"), 1)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	ex.SetJournal(j)
	v := serveVenue(b, ex, Options{})
	cl := v.private(b)
	ts := time.Now().UnixMilli()
	cl.send(`{"id":"a","event":"auth","params":{"apikey":"` + demoKey + `","sign":"` + venue.SignWS(demoSecret, ts) + `","timestamp":"` + strconv.FormatInt(ts, 10) + `"}}`)
	cl.Next(5*time.Second, "auth", replyTo("a"))
	subscribe(cl, "e", "executionreport")
	subscribe(cl, "b", "balance")
	go func() { // the client keeps reading; frames are counted, not decoded again
		for range cl.In {
		}
	}()
	demo, _ := ex.AccountByName("DEMO_MAIN")
	top, berr := ex.BestBidAsk("SPOT_BTC_USDT")
	if berr != nil {
		b.Fatal(berr)
	}
	req := exchange.OrderRequest{Symbol: "SPOT_BTC_USDT", Type: exchange.Limit, Side: exchange.Buy,
		Price: top.Bid.Sub(decimal.NewFromInt(100)), Quantity: decimal.RequireFromString("0.001"), HasPrice: true, HasQuantity: true}
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			o, perr := ex.PlaceOrder(demo, req)
			if perr != nil {
				b.Fatal(perr)
			}
			if err := ex.Durable(); err != nil {
				b.Fatal(err)
			}
			if cerr := ex.Cancel(demo, "SPOT_BTC_USDT", o.ID); cerr != nil {
				b.Fatal(cerr)
			}
			if err := ex.Durable(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
