package engine

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The benchmark book: ~1,000 resting orders over ~750 price levels (375 a side, spread over the
// 500 ticks each side of benchMid, so random prices land on existing and on new levels).
const (
	benchMid    = 1_000_000
	benchSpan   = 500 // ticks each side of the mid
	benchLevels = 375 // levels each side
	benchOrders = 500 // orders each side
	randCount   = 1 << 12
)

// benchBook builds the benchmark book; makerQty returns each order's quantity.
func benchBook(rng *rand.Rand, makerQty func() int64) (*Book, OrderID) {
	b := New(2, 4)
	id := OrderID(0)
	for _, s := range []Side{Buy, Sell} {
		offs := rng.Perm(benchSpan)[:benchLevels]
		for i := range benchOrders {
			off := int64(offs[i%benchLevels]) + 1
			price := benchMid + off
			if s == Buy {
				price = benchMid - off
			}
			id++
			q := makerQty()
			if res, _ := b.Submit(Order{ID: id, Side: s, Kind: Limit, Price: price, Qty: q, Visible: q}, nil); !res.Rested {
				panic("benchmark book crossed")
			}
		}
	}
	return b, id
}

// restPrices draws non-crossing prices and sides ahead of time so the loop measures the engine only.
type restDraw struct {
	side  Side
	price int64
	qty   int64
}

func restDraws(rng *rand.Rand) []restDraw {
	d := make([]restDraw, randCount)
	for i := range d {
		off := 1 + rng.Int64N(benchSpan)
		d[i] = restDraw{side: Buy, price: benchMid - off, qty: 1 + rng.Int64N(100)}
		if rng.IntN(2) == 0 {
			d[i] = restDraw{side: Sell, price: benchMid + off, qty: d[i].qty}
		}
	}
	return d
}

// BenchmarkRestCancel: one op = a limit order rested at a random price of the book, then cancelled.
func BenchmarkRestCancel(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	book, id := benchBook(rng, func() int64 { return 1 + rng.Int64N(100) })
	draws := restDraws(rng)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		d := &draws[i&(randCount-1)]
		id++
		res, _ := book.Submit(Order{ID: id, Side: d.side, Kind: Limit, Price: d.price, Qty: d.qty, Visible: d.qty}, nil)
		if _, ok := book.Cancel(id); !ok || !res.Rested {
			b.Fatal("rest+cancel failed")
		}
	}
}

// crossBench is the start of the crossing benchmarks: the same book for
// both, and room for a taker's fills.
func crossBench(b *testing.B) (*Book, OrderID, []Fill) {
	rng := rand.New(rand.NewPCG(3, 4))
	book, id := benchBook(rng, func() int64 { return 1 + rng.Int64N(100) })
	b.ReportAllocs()
	return book, id, make([]Fill, 0, 64)
}

// BenchmarkCross: one op = a crossing order that fills the first maker at the best ask exactly,
// and a new maker rested at the back of that level so the book stays the same shape.
func BenchmarkCross(b *testing.B) {
	book, id, fills := crossBench(b)
	for b.Loop() {
		best, _ := book.BestAsk()
		id++
		var res Result
		res, fills = book.Submit(Order{ID: id, Side: Buy, Kind: IOC, Price: best.Price, Qty: 1}, fills[:0])
		if len(fills) != 1 || res.Filled != 1 {
			b.Fatal("cross failed")
		}
		if fills[0].MakerDone {
			id++
			book.Submit(Order{ID: id, Side: Sell, Kind: Limit, Price: best.Price, Qty: 50, Visible: 50}, nil)
		}
	}
}

// BenchmarkRestCross: one op = a maker rested at the best ask and a taker that fills exactly it;
// the "rest + crossing order" pair.
func BenchmarkRestCross(b *testing.B) {
	book, id, fills := crossBench(b)
	for b.Loop() {
		best, _ := book.BestAsk()
		price := best.Price - 1 // a new best level, so the taker meets exactly this maker
		id++
		book.Submit(Order{ID: id, Side: Sell, Kind: Limit, Price: price, Qty: 7, Visible: 7}, nil)
		id++
		var res Result
		res, fills = book.Submit(Order{ID: id, Side: Buy, Kind: Limit, Price: price, Qty: 7, Visible: 7}, fills[:0])
		if len(fills) != 1 || res.Filled != 7 || res.Rested {
			b.Fatal("rest+cross failed")
		}
	}
}

// BenchmarkSweep50: one op = a taker sweeping the 50 best asks (over ~37 levels), then the same
// 50 makers rested again. ns/fill times the sweep alone (a clock read around it, ~1% of it);
// ns/fill+rest charges the re-rests to the fills too.
func BenchmarkSweep50(b *testing.B) {
	const makers, qty = 50, 10
	rng := rand.New(rand.NewPCG(5, 6))
	book, id := benchBook(rng, func() int64 { return qty })
	fills := make([]Fill, 0, 64)
	var sweeping time.Duration
	b.ReportAllocs()
	for b.Loop() {
		id++
		var res Result
		start := time.Now()
		res, fills = book.Submit(Order{ID: id, Side: Buy, Kind: Market, Qty: makers * qty}, fills[:0])
		sweeping += time.Since(start)
		if len(fills) != makers || res.Filled != makers*qty {
			b.Fatal("sweep failed")
		}
		for i := range fills {
			id++
			book.Submit(Order{ID: id, Side: Sell, Kind: Limit, Price: fills[i].Price, Qty: qty, Visible: qty}, nil)
		}
	}
	b.ReportMetric(float64(sweeping.Nanoseconds())/float64(b.N)/makers, "ns/fill")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/makers, "ns/fill+rest")
}

// BenchmarkMixed: one op is a rest (while the book is under 1,000 orders), a cancel of a random
// known order (some already filled) or, one time in ten, an IOC taking at the touch.
func BenchmarkMixed(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	book, id := benchBook(rng, func() int64 { return 1 + rng.Int64N(100) })
	draws := restDraws(rng)
	picks := make([]uint32, randCount)
	for i := range picks {
		picks[i] = rng.Uint32()
	}
	live := make([]OrderID, 0, 1<<16)
	for i := OrderID(1); i <= id; i++ {
		live = append(live, i)
	}
	fills := make([]Fill, 0, 64)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p := picks[i&(randCount-1)]
		d := &draws[i&(randCount-1)]
		switch {
		case p%10 == 0:
			id++
			price := int64(benchMid + benchSpan)
			if d.side == Sell {
				price = benchMid - benchSpan
			}
			_, fills = book.Submit(Order{ID: id, Side: d.side, Kind: IOC, Price: price, Qty: d.qty / 4}, fills[:0])
		case book.Len() < 2*benchOrders:
			id++
			book.Submit(Order{ID: id, Side: d.side, Kind: Limit, Price: d.price, Qty: d.qty, Visible: d.qty}, nil)
			live = append(live, id)
		default:
			k := int(p>>8) % len(live)
			book.Cancel(live[k])
			live[k] = live[len(live)-1]
			live = live[:len(live)-1]
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}
