package book

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"tradedeck/venue/stream"
)

// benchFrames builds a cycle of 20-level orderbookupdate frames (10 asks,
// 10 bids) against a 500-level-a-side book: even frames insert 2 levels a
// side and update 8, odd frames delete those 2 and update 8, so the book
// stays at ~500 levels. ts and prevTs are 13-digit fields patched in place.
func benchFrames(quoted bool) (frames [][]byte, tsAt, prevAt []int, asks, bids []Level) {
	num := func(v int64, dec int) string {
		s := strconv.FormatInt(v/pow(dec), 10) + "." + fmt.Sprintf("%0*d", dec, v%pow(dec))
		if quoted {
			return `"` + s + `"`
		}
		return s
	}
	for k := int64(0); k < 500; k++ {
		asks = append(asks, Level{Price: 5000000 + 2*k, Qty: 100000 + k})
		bids = append(bids, Level{Price: 4999998 - 2*k, Qty: 100000 + k})
	}
	for f := 0; f < 64; f++ {
		var sb strings.Builder
		sb.WriteString(`{"topic":"SPOT_BTC_USDT@orderbookupdate","ts":1618826337580,"data":{"symbol":"SPOT_BTC_USDT","prevTs":1618826337380,"asks":[`)
		side := func(sign int64, base int64) {
			for j := 0; j < 10; j++ {
				if j > 0 {
					sb.WriteByte(',')
				}
				k := int64((f/2*37 + j*47) % 480)
				var p, q int64
				if j < 2 { // insert (even) / delete (odd) between existing levels
					p = base + sign*(2*k+1)
					if f%2 == 0 {
						q = 777
					}
				} else {
					p = base + sign*2*k
					q = 100000 + int64(f*10+j)
				}
				sb.WriteString("[" + num(p, 2) + "," + num(q, 5) + "]")
			}
		}
		side(1, 5000000)
		sb.WriteString(`],"bids":[`)
		side(-1, 4999998)
		sb.WriteString(`]}}`)
		b := []byte(sb.String())
		frames = append(frames, b)
		tsAt = append(tsAt, strings.Index(sb.String(), `"ts":`)+5)
		prevAt = append(prevAt, strings.Index(sb.String(), `"prevTs":`)+9)
	}
	return
}

func pow(d int) int64 {
	p := int64(1)
	for ; d > 0; d-- {
		p *= 10
	}
	return p
}

// put13 writes v as exactly 13 digits.
func put13(b []byte, v int64) {
	for i := 12; i >= 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
}

// BenchmarkDecodeApplyOrderbookUpdate is one 20-level delta frame decoded
// (envelope, topic, data) and applied through the prevTs sync into a book
// of ~500 levels a side: the whole per-frame cost of the hot path.
func BenchmarkDecodeApplyOrderbookUpdate(b *testing.B) {
	for _, quoted := range []bool{false, true} {
		name := "numbers"
		if quoted {
			name = "strings"
		}
		b.Run(name, func(b *testing.B) {
			frames, tsAt, prevAt, asks, bids := benchFrames(quoted)
			var s Sync
			const t0 = int64(1618826337380)
			s.Snapshot(t0, asks, bids, false)
			var env stream.Envelope
			var d stream.BookData
			ts := t0
			b.SetBytes(int64(len(frames[0])))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f := frames[i&63]
				put13(f[prevAt[i&63]:], ts)
				ts += 200
				put13(f[tsAt[i&63]:], ts)
				if err := stream.ParseEnvelope(f, &env); err != nil {
					b.Fatal(err)
				}
				sym, _ := stream.SplitTopic(env.Topic)
				if err := stream.DecodeBook(env.Data, 2, 5, &d); err != nil {
					b.Fatal(err)
				}
				if len(sym) == 0 || s.Delta(env.TS, d.PrevTs, d.Asks, d.Bids) {
					b.Fatal("lost sync")
				}
			}
			b.StopTimer()
			if n := len(s.Book.Asks); n < 490 || n > 510 {
				b.Fatalf("book drifted to %d levels", n)
			}
		})
	}
}

// BenchmarkApplyOnly is the book update alone, without decoding.
func BenchmarkApplyOnly(b *testing.B) {
	frames, _, _, asks, bids := benchFrames(false)
	var book Book
	book.Reset(asks, bids, false)
	var env stream.Envelope
	ds := make([]stream.BookData, len(frames))
	for i, f := range frames {
		if err := stream.ParseEnvelope(f, &env); err != nil {
			b.Fatal(err)
		}
		if err := stream.DecodeBook(env.Data, 2, 5, &ds[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := &ds[i&63]
		book.Apply(d.Asks, d.Bids)
	}
}
