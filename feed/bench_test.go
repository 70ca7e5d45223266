package feed

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"tradedeck/feed/book"
	"tradedeck/venue"
	"tradedeck/venue/stream"
)

// benchFeed is a feed with 100 symbols, the first focused with a live
// 500-level book, without any connection.
func benchFeed(b *testing.B) (*Feed, []string) {
	f := New(Config{Endpoints: venue.Endpoints{BaseURL: "http://127.0.0.1:1"}})
	var rules []venue.SymbolRule
	var names []string
	for i := 0; i < 100; i++ {
		s := fmt.Sprintf("SPOT_T%02d_USDT", i)
		names = append(names, s)
		rules = append(rules, venue.SymbolRule{Symbol: s, QuoteTick: decimal.RequireFromString("0.01"), BaseTick: decimal.RequireFromString("0.00001")})
	}
	f.setRules(rules)
	for _, s := range f.mkt.syms {
		s.showBBO = true // every symbol watched
	}
	s := f.mkt.syms[names[0]]
	s.book = &bookState{}
	s.trades = newTradeRing(200)
	var asks, bids []book.Level
	for k := int64(0); k < 500; k++ {
		asks = append(asks, book.Level{Price: 5000000 + 2*k, Qty: 100000 + k})
		bids = append(bids, book.Level{Price: 4999998 - 2*k, Qty: 100000 + k})
	}
	s.book.sync.Snapshot(1000, asks, bids, false)
	return f, names
}

// BenchmarkFeedOrderbookUpdate is the whole per-frame cost in the feed of
// a 20-level orderbookupdate: envelope, decode, lock, sync, dirty mark.
func BenchmarkFeedOrderbookUpdate(b *testing.B) {
	f, names := benchFeed(b)
	var frames [][]byte
	for i := 0; i < 2; i++ {
		var sb strings.Builder
		sb.WriteString(`{"topic":"` + names[0] + `@orderbookupdate","ts":0000000000000,"data":{"symbol":"` + names[0] + `","prevTs":0000000000000,"asks":[`)
		for j := 0; j < 10; j++ {
			if j > 0 {
				sb.WriteByte(',')
			}
			q := 100000 + i*7 + j
			if j < 2 && i == 1 {
				q = 0
			}
			fmt.Fprintf(&sb, "[%d.%02d,%d.%05d]", (5000000+2*j*20+1)/100, (5000000+2*j*20+1)%100, q/100000, q%100000)
		}
		sb.WriteString(`],"bids":[`)
		for j := 0; j < 10; j++ {
			if j > 0 {
				sb.WriteByte(',')
			}
			q := 100000 + i*7 + j
			fmt.Fprintf(&sb, "[%d.%02d,%d.%05d]", (4999998-2*j*20)/100, (4999998-2*j*20)%100, q/100000, q%100000)
		}
		sb.WriteString(`]}}`)
		frames = append(frames, []byte(sb.String()))
	}
	tsAt := strings.Index(string(frames[0]), `"ts":`) + 5
	prevAt := strings.Index(string(frames[0]), `"prevTs":`) + 9
	var env stream.Envelope
	ts := int64(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fr := frames[i&1]
		put13(fr[prevAt:], ts)
		ts++
		put13(fr[tsAt:], ts)
		if err := stream.ParseEnvelope(fr, &env); err != nil {
			b.Fatal(err)
		}
		f.mkt.onFrame(fr, &env, nil)
		if i&1023 == 0 {
			f.mkt.dirty = f.mkt.dirty[:0] // the coalescer's job, outside the timing of a frame
			f.mkt.syms[names[0]].dirty = 0
		}
	}
	b.StopTimer()
	if !f.mkt.syms[names[0]].book.sync.Live() {
		b.Fatal("book lost sync")
	}
}

// put13 writes v as exactly 13 digits, in place.
func put13(b []byte, v int64) {
	for i := 12; i >= 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
}

// BenchmarkFeedBBO is the per-frame cost of a bbo push in the feed.
func BenchmarkFeedBBO(b *testing.B) {
	f, names := benchFeed(b)
	frame := []byte(`{"topic":"` + names[7] + `@bbo","ts":1614152296945,"data":{"symbol":"` + names[7] + `","ask":30939.12,"askSize":4508.53,"bid":30776.01,"bidSize":25246.14}}`)
	var env stream.Envelope
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := stream.ParseEnvelope(frame, &env); err != nil {
			b.Fatal(err)
		}
		f.mkt.onFrame(frame, &env, nil)
		if i&1023 == 0 {
			f.mkt.dirty = f.mkt.dirty[:0]
			f.mkt.syms[names[7]].dirty = 0
		}
	}
}

// BenchmarkCollectFrame is the coalescer's cost per frame: a changed
// 500-level book (top 100 copied), trades, 100 bbos and an event.
func BenchmarkCollectFrame(b *testing.B) {
	f, names := benchFeed(b)
	b.ReportAllocs()
	var u Update
	for i := 0; i < b.N; i++ {
		f.mkt.mu.Lock()
		for _, n := range names {
			f.mkt.markSym(f.mkt.syms[n], dBBO)
		}
		f.mkt.markSym(f.mkt.syms[names[0]], dBook|dTrades)
		f.mkt.mu.Unlock()
		f.events.add(Event{Kind: EventInfo, Text: "x"})
		f.collect(&u, true)
	}
}

// BenchmarkCollectIdle is a frame where nothing changed.
func BenchmarkCollectIdle(b *testing.B) {
	f, _ := benchFeed(b)
	var u Update
	f.collect(&u, true)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f.collect(&u, true)
	}
}

// BenchmarkCollectTrades is a frame that brings one new trade of the
// focused symbol: the push and the tape's snapshot.
func BenchmarkCollectTrades(b *testing.B) {
	f, names := benchFeed(b)
	s := f.mkt.syms[names[0]]
	var u Update
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f.mkt.mu.Lock()
		s.trades.push(Trade{Price: 5000000, Qty: int64(i), TS: int64(i)})
		f.mkt.markSym(s, dTrades)
		f.mkt.mu.Unlock()
		f.collect(&u, true)
	}
}
