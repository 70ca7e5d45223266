package engine

import (
	"math"
	"reflect"
	"testing"
)

// lim builds a fully visible limit order.
func lim(id OrderID, owner uint32, s Side, price, qty int64) Order {
	return Order{ID: id, Owner: owner, Side: s, Kind: Limit, Price: price, Qty: qty, Visible: qty}
}

// seed rests orders that must not cross each other.
func seed(t *testing.T, b *Book, orders ...Order) {
	t.Helper()
	for _, o := range orders {
		res, fills := b.Submit(o, nil)
		if !res.Rested || len(fills) != 0 {
			t.Fatalf("seeding %+v: %+v %+v", o, res, fills)
		}
	}
}

// standard book: asks 101x5 (id1), 101x3 (id2), 102x4 (id3); bids 99x2 (id4), 98x6 (id5).
func standard(t *testing.T) *Book {
	b := New(2, 3)
	seed(t, b,
		lim(1, 10, Sell, 101, 5),
		lim(2, 11, Sell, 101, 3),
		lim(3, 12, Sell, 102, 4),
		lim(4, 13, Buy, 99, 2),
		lim(5, 14, Buy, 98, 6),
	)
	return b
}

func depth(b *Book, s Side) []Level { return b.Depth(s, 0, nil) }

func TestSubmitKinds(t *testing.T) {
	const T = 100 // taker id
	f := func(maker OrderID, mo uint32, price, qty int64, done bool) Fill {
		return Fill{MakerID: maker, TakerID: T, MakerOwner: mo, TakerOwner: 7, Price: price, Qty: qty, MakerDone: done}
	}
	tests := []struct {
		name  string
		o     Order
		res   Result
		fills []Fill
		asks  []Level
		bids  []Level
	}{
		{
			name: "limit rests without crossing",
			o:    lim(T, 7, Buy, 100, 4),
			res:  Result{Remaining: 4, Rested: true},
			asks: []Level{{101, 8}, {102, 4}},
			bids: []Level{{100, 4}, {99, 2}, {98, 6}},
		},
		{
			name:  "limit partial fill within first maker, time priority",
			o:     lim(T, 7, Buy, 101, 2),
			res:   Result{Filled: 2},
			fills: []Fill{f(1, 10, 101, 2, false)},
			asks:  []Level{{101, 6}, {102, 4}},
			bids:  []Level{{99, 2}, {98, 6}},
		},
		{
			name:  "limit fills a level then rests the remainder at its price",
			o:     lim(T, 7, Buy, 101, 10),
			res:   Result{Filled: 8, Remaining: 2, Rested: true},
			fills: []Fill{f(1, 10, 101, 5, true), f(2, 11, 101, 3, true)},
			asks:  []Level{{102, 4}},
			bids:  []Level{{101, 2}, {99, 2}, {98, 6}},
		},
		{
			name:  "limit sweeps levels at maker prices",
			o:     lim(T, 7, Buy, 105, 12),
			res:   Result{Filled: 12},
			fills: []Fill{f(1, 10, 101, 5, true), f(2, 11, 101, 3, true), f(3, 12, 102, 4, true)},
			bids:  []Level{{99, 2}, {98, 6}},
		},
		{
			name:  "sell limit crosses bids best first",
			o:     lim(T, 7, Sell, 98, 3),
			res:   Result{Filled: 3},
			fills: []Fill{f(4, 13, 99, 2, true), f(5, 14, 98, 1, false)},
			asks:  []Level{{101, 8}, {102, 4}},
			bids:  []Level{{98, 5}},
		},
		{
			name:  "market by qty stops at the end of the book",
			o:     Order{ID: T, Owner: 7, Side: Buy, Kind: Market, Qty: 20},
			res:   Result{Filled: 12, Remaining: 8},
			fills: []Fill{f(1, 10, 101, 5, true), f(2, 11, 101, 3, true), f(3, 12, 102, 4, true)},
			bids:  []Level{{99, 2}, {98, 6}},
		},
		{
			name:  "market price bound stops before a worse level",
			o:     Order{ID: T, Owner: 7, Side: Buy, Kind: Market, Qty: 20, Price: 101},
			res:   Result{Filled: 8, Remaining: 12},
			fills: []Fill{f(1, 10, 101, 5, true), f(2, 11, 101, 3, true)},
			asks:  []Level{{102, 4}},
			bids:  []Level{{99, 2}, {98, 6}},
		},
		{
			name:  "market sell price bound",
			o:     Order{ID: T, Owner: 7, Side: Sell, Kind: Market, Qty: 5, Price: 99},
			res:   Result{Filled: 2, Remaining: 3},
			fills: []Fill{f(4, 13, 99, 2, true)},
			asks:  []Level{{101, 8}, {102, 4}},
			bids:  []Level{{98, 6}},
		},
		{
			// 1000 of quote: 8 at 101 = 808, then 192/102 = 1 whole unit at 102 (102), 90 left unspent.
			name:  "market buy by quote amount rounds down per level",
			o:     Order{ID: T, Owner: 7, Side: Buy, Kind: Market, QuoteAmt: 1000},
			res:   Result{Filled: 9},
			fills: []Fill{f(1, 10, 101, 5, true), f(2, 11, 101, 3, true), f(3, 12, 102, 1, false)},
			asks:  []Level{{102, 3}},
			bids:  []Level{{99, 2}, {98, 6}},
		},
		{
			name: "market buy by quote amount smaller than one unit at the best does nothing",
			o:    Order{ID: T, Owner: 7, Side: Buy, Kind: Market, QuoteAmt: 100},
			res:  Result{},
			asks: []Level{{101, 8}, {102, 4}},
			bids: []Level{{99, 2}, {98, 6}},
		},
		{
			// 400 of quote: 2 at 99 = 198, then 202/98 = 2 at 98 = 196.
			name:  "market sell by quote amount",
			o:     Order{ID: T, Owner: 7, Side: Sell, Kind: Market, QuoteAmt: 400},
			res:   Result{Filled: 4},
			fills: []Fill{f(4, 13, 99, 2, true), f(5, 14, 98, 2, false)},
			asks:  []Level{{101, 8}, {102, 4}},
			bids:  []Level{{98, 4}},
		},
		{
			name:  "market with both qty and quote amount stops at the first limit reached",
			o:     Order{ID: T, Owner: 7, Side: Buy, Kind: Market, Qty: 3, QuoteAmt: 10000},
			res:   Result{Filled: 3},
			fills: []Fill{f(1, 10, 101, 3, false)},
			asks:  []Level{{101, 5}, {102, 4}},
			bids:  []Level{{99, 2}, {98, 6}},
		},
		{
			name:  "IOC keeps the executed part and cancels the rest",
			o:     Order{ID: T, Owner: 7, Side: Buy, Kind: IOC, Price: 101, Qty: 10},
			res:   Result{Filled: 8, Remaining: 2},
			fills: []Fill{f(1, 10, 101, 5, true), f(2, 11, 101, 3, true)},
			asks:  []Level{{102, 4}},
			bids:  []Level{{99, 2}, {98, 6}},
		},
		{
			name: "IOC that does not cross does nothing",
			o:    Order{ID: T, Owner: 7, Side: Sell, Kind: IOC, Price: 100, Qty: 10},
			res:  Result{Remaining: 10},
			asks: []Level{{101, 8}, {102, 4}},
			bids: []Level{{99, 2}, {98, 6}},
		},
		{
			name: "FOK that cannot fill completely does nothing",
			o:    Order{ID: T, Owner: 7, Side: Buy, Kind: FOK, Price: 101, Qty: 9},
			res:  Result{Remaining: 9},
			asks: []Level{{101, 8}, {102, 4}},
			bids: []Level{{99, 2}, {98, 6}},
		},
		{
			name:  "FOK fills completely across levels",
			o:     Order{ID: T, Owner: 7, Side: Buy, Kind: FOK, Price: 102, Qty: 9},
			res:   Result{Filled: 9},
			fills: []Fill{f(1, 10, 101, 5, true), f(2, 11, 101, 3, true), f(3, 12, 102, 1, false)},
			asks:  []Level{{102, 3}},
			bids:  []Level{{99, 2}, {98, 6}},
		},
		{
			name: "PostOnly that would take is rejected",
			o:    Order{ID: T, Owner: 7, Side: Buy, Kind: PostOnly, Price: 101, Qty: 1, Visible: 1},
			res:  Result{Remaining: 1, Rejected: true},
			asks: []Level{{101, 8}, {102, 4}},
			bids: []Level{{99, 2}, {98, 6}},
		},
		{
			name: "PostOnly sell at the best bid is rejected",
			o:    Order{ID: T, Owner: 7, Side: Sell, Kind: PostOnly, Price: 99, Qty: 1, Visible: 1},
			res:  Result{Remaining: 1, Rejected: true},
			asks: []Level{{101, 8}, {102, 4}},
			bids: []Level{{99, 2}, {98, 6}},
		},
		{
			name: "PostOnly inside the spread rests",
			o:    Order{ID: T, Owner: 7, Side: Sell, Kind: PostOnly, Price: 100, Qty: 1, Visible: 1},
			res:  Result{Remaining: 1, Rested: true},
			asks: []Level{{100, 1}, {101, 8}, {102, 4}},
			bids: []Level{{99, 2}, {98, 6}},
		},
		{
			name: "iceberg shows only its visible part",
			o:    Order{ID: T, Owner: 7, Side: Buy, Kind: Limit, Price: 99, Qty: 10, Visible: 3},
			res:  Result{Remaining: 10, Rested: true},
			asks: []Level{{101, 8}, {102, 4}},
			bids: []Level{{99, 5}, {98, 6}},
		},
		{
			name: "hidden order is omitted from depth",
			o:    Order{ID: T, Owner: 7, Side: Buy, Kind: Limit, Price: 100, Qty: 10},
			res:  Result{Remaining: 10, Rested: true},
			asks: []Level{{101, 8}, {102, 4}},
			bids: []Level{{99, 2}, {98, 6}},
		},
		{name: "duplicate resting id is rejected", o: lim(3, 7, Buy, 50, 1), res: Result{Remaining: 1, Rejected: true},
			asks: []Level{{101, 8}, {102, 4}}, bids: []Level{{99, 2}, {98, 6}}},
		{name: "zero quantity is rejected", o: lim(T, 7, Buy, 50, 0), res: Result{Rejected: true},
			asks: []Level{{101, 8}, {102, 4}}, bids: []Level{{99, 2}, {98, 6}}},
		{name: "limit without a price is rejected", o: lim(T, 7, Buy, 0, 1), res: Result{Remaining: 1, Rejected: true},
			asks: []Level{{101, 8}, {102, 4}}, bids: []Level{{99, 2}, {98, 6}}},
		{name: "visible above quantity is rejected", o: Order{ID: T, Side: Buy, Kind: Limit, Price: 50, Qty: 1, Visible: 2},
			res: Result{Remaining: 1, Rejected: true}, asks: []Level{{101, 8}, {102, 4}}, bids: []Level{{99, 2}, {98, 6}}},
		{name: "unknown side is rejected", o: Order{ID: T, Side: 0, Kind: Limit, Price: 50, Qty: 1, Visible: 1},
			res: Result{Remaining: 1, Rejected: true}, asks: []Level{{101, 8}, {102, 4}}, bids: []Level{{99, 2}, {98, 6}}},
		{name: "a level total past int64 is rejected", o: lim(T, 7, Sell, 101, math.MaxInt64-7),
			res: Result{Remaining: math.MaxInt64 - 7, Rejected: true}, asks: []Level{{101, 8}, {102, 4}}, bids: []Level{{99, 2}, {98, 6}}},
		{name: "a huge order at a new level rests", o: lim(T, 7, Sell, 103, math.MaxInt64),
			res: Result{Remaining: math.MaxInt64, Rested: true}, asks: []Level{{101, 8}, {102, 4}, {103, math.MaxInt64}}, bids: []Level{{99, 2}, {98, 6}}},
		{name: "unknown kind is rejected", o: Order{ID: T, Side: Buy, Kind: 9, Price: 50, Qty: 1},
			res: Result{Remaining: 1, Rejected: true}, asks: []Level{{101, 8}, {102, 4}}, bids: []Level{{99, 2}, {98, 6}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := standard(t)
			res, fills := b.Submit(tc.o, nil)
			if res != tc.res {
				t.Errorf("result %+v, want %+v", res, tc.res)
			}
			if len(fills) != 0 || len(tc.fills) != 0 {
				if !reflect.DeepEqual(fills, tc.fills) {
					t.Errorf("fills\n%+v\nwant\n%+v", fills, tc.fills)
				}
			}
			if got := depth(b, Sell); !levelsEqual(got, tc.asks) {
				t.Errorf("asks %v, want %v", got, tc.asks)
			}
			if got := depth(b, Buy); !levelsEqual(got, tc.bids) {
				t.Errorf("bids %v, want %v", got, tc.bids)
			}
			checkInvariants(t, b)
		})
	}
}

func levelsEqual(a, b []Level) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func TestIcebergHiddenQuantityMatches(t *testing.T) {
	b := New(0, 0)
	seed(t, b,
		Order{ID: 1, Owner: 1, Side: Sell, Kind: Limit, Price: 10, Qty: 10, Visible: 2}, // iceberg
		Order{ID: 2, Owner: 2, Side: Sell, Kind: Limit, Price: 10, Qty: 5},              // hidden
		lim(3, 3, Sell, 10, 4),
	)
	if got := depth(b, Sell); !levelsEqual(got, []Level{{10, 6}}) {
		t.Fatalf("depth %v", got)
	}
	// The iceberg keeps its place: it fills beyond its visible part before the others.
	res, fills := b.Submit(lim(9, 9, Buy, 10, 9), nil)
	if res.Filled != 9 || len(fills) != 1 || fills[0].MakerID != 1 || fills[0].Qty != 9 {
		t.Fatalf("res %+v fills %+v", res, fills)
	}
	if got := depth(b, Sell); !levelsEqual(got, []Level{{10, 5}}) { // 1 left of the iceberg + 4
		t.Fatalf("depth %v", got)
	}
	r, ok := b.Order(1)
	if !ok || r.Qty != 1 || r.Visible != 2 || r.Filled != 9 {
		t.Fatalf("iceberg now %+v %v", r, ok)
	}
	// The hidden order matches too, in time order.
	res, fills = b.Submit(lim(10, 9, Buy, 10, 7), nil)
	want := []Fill{
		{MakerID: 1, TakerID: 10, MakerOwner: 1, TakerOwner: 9, Price: 10, Qty: 1, MakerDone: true},
		{MakerID: 2, TakerID: 10, MakerOwner: 2, TakerOwner: 9, Price: 10, Qty: 5, MakerDone: true},
		{MakerID: 3, TakerID: 10, MakerOwner: 3, TakerOwner: 9, Price: 10, Qty: 1},
	}
	if res.Filled != 7 || !reflect.DeepEqual(fills, want) {
		t.Fatalf("res %+v fills %+v", res, fills)
	}
	if got := depth(b, Sell); !levelsEqual(got, []Level{{10, 3}}) {
		t.Fatalf("depth %v", got)
	}
	checkInvariants(t, b)
}

func TestHiddenOnlyLevelIsTopOfBookButNotInDepth(t *testing.T) {
	b := New(0, 0)
	seed(t, b, Order{ID: 1, Side: Buy, Kind: Limit, Price: 10, Qty: 5}, lim(2, 0, Buy, 9, 1))
	if lv, ok := b.BestBid(); !ok || lv != (Level{10, 0}) {
		t.Fatalf("best bid %v %v", lv, ok)
	}
	if got := depth(b, Buy); !levelsEqual(got, []Level{{9, 1}}) {
		t.Fatalf("depth %v", got)
	}
	// A PostOnly sell at the hidden bid would take, so it is rejected.
	if res, _ := b.Submit(Order{ID: 3, Side: Sell, Kind: PostOnly, Price: 10, Qty: 1, Visible: 1}, nil); !res.Rejected {
		t.Fatalf("post only %+v", res)
	}
	if _, ok := b.BestAsk(); ok {
		t.Fatal("empty ask side has a best")
	}
}

func TestCancel(t *testing.T) {
	b := standard(t)
	if _, ok := b.Cancel(999); ok {
		t.Fatal("cancelled an unknown order")
	}
	r, ok := b.Cancel(2)
	if !ok || r != (Resting{ID: 2, Owner: 11, Side: Sell, Price: 101, Qty: 3, Visible: 3}) {
		t.Fatalf("cancel %+v %v", r, ok)
	}
	if _, ok := b.Cancel(2); ok {
		t.Fatal("cancelled twice")
	}
	// Partly filled, then cancelled: the snapshot says what was left.
	b.Submit(lim(50, 7, Sell, 99, 1), nil)
	r, ok = b.Cancel(4)
	if !ok || r.Qty != 1 || r.Filled != 1 {
		t.Fatalf("cancel partly filled %+v %v", r, ok)
	}
	// Filled orders are gone.
	b.Submit(lim(51, 7, Buy, 101, 5), nil)
	if _, ok := b.Cancel(1); ok {
		t.Fatal("cancelled a filled order")
	}
	if b.Len() != 2 {
		t.Fatalf("len %d", b.Len())
	}
	if got := depth(b, Sell); !levelsEqual(got, []Level{{102, 4}}) {
		t.Fatalf("asks %v", got)
	}
	if got := depth(b, Buy); !levelsEqual(got, []Level{{98, 6}}) {
		t.Fatalf("bids %v", got)
	}
	// A cancelled id can be used again.
	seed(t, b, lim(1, 1, Buy, 97, 1))
	checkInvariants(t, b)
}

func TestPriceTimePriority(t *testing.T) {
	b := New(0, 0)
	seed(t, b,
		lim(1, 0, Buy, 10, 1),
		lim(2, 0, Buy, 11, 1),
		lim(3, 0, Buy, 10, 1),
		lim(4, 0, Buy, 12, 1),
		lim(5, 0, Buy, 11, 1),
		lim(6, 0, Buy, 9, 1),
	)
	var ids []OrderID
	b.Orders(Buy, func(r Resting) bool { ids = append(ids, r.ID); return true })
	if want := []OrderID{4, 2, 5, 1, 3, 6}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("orders %v, want %v", ids, want)
	}
	_, fills := b.Submit(Order{ID: 20, Side: Sell, Kind: Market, Qty: 6}, nil)
	ids = ids[:0]
	for _, f := range fills {
		ids = append(ids, f.MakerID)
	}
	if want := []OrderID{4, 2, 5, 1, 3, 6}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("fill order %v, want %v", ids, want)
	}
	if b.Len() != 0 {
		t.Fatalf("len %d", b.Len())
	}
	// Stopping early.
	seed(t, b, lim(1, 0, Sell, 10, 1), lim(2, 0, Sell, 10, 1))
	n := 0
	b.Orders(Sell, func(Resting) bool { n++; return false })
	if n != 1 {
		t.Fatalf("iterated %d after stop", n)
	}
}

func TestFillableQtyAndDepthLimit(t *testing.T) {
	b := standard(t)
	for _, c := range []struct {
		side        Side
		limit, want int64
		got         int64
	}{
		{Buy, 0, 100, 12}, {Buy, 101, 100, 8}, {Buy, 100, 5, 0}, {Buy, 102, 9, 9},
		{Sell, 99, 100, 2}, {Sell, 0, 3, 3}, {Sell, 0, 0, 0}, {0, 0, 5, 0},
	} {
		if got := b.FillableQty(c.side, c.limit, c.want); got != c.got {
			t.Errorf("FillableQty(%v, %d, %d) = %d, want %d", c.side, c.limit, c.want, got, c.got)
		}
	}
	if got := b.Depth(Sell, 1, nil); !levelsEqual(got, []Level{{101, 8}}) {
		t.Errorf("depth 1 %v", got)
	}
	dst := make([]Level, 0, 8)
	if got := b.Depth(Buy, 5, dst); !levelsEqual(got, []Level{{99, 2}, {98, 6}}) || &got[0] != &dst[:1][0] {
		t.Errorf("depth into dst %v", got)
	}
}

func TestSelfTradeAllowed(t *testing.T) {
	b := New(0, 0)
	seed(t, b, lim(1, 5, Sell, 10, 1))
	res, fills := b.Submit(lim(2, 5, Buy, 10, 1), nil)
	if res.Filled != 1 || len(fills) != 1 || fills[0].MakerOwner != 5 || fills[0].TakerOwner != 5 {
		t.Fatalf("self trade %+v %+v", res, fills)
	}
}

func TestFillsAppendWithoutAllocating(t *testing.T) {
	b := New(0, 0)
	buf := make([]Fill, 0, 16)
	allocs := testing.AllocsPerRun(100, func() {
		seed(t, b, lim(1, 0, Sell, 10, 1), lim(2, 0, Sell, 11, 1))
		_, fills := b.Submit(lim(3, 0, Buy, 11, 2), buf[:0])
		if len(fills) != 2 || &fills[0] != &buf[:1][0] {
			t.Fatalf("fills %v", fills)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per rest+rest+sweep", allocs)
	}
}

// checkInvariants recomputes the book's aggregates from its orders.
func checkInvariants(t *testing.T, b *Book) {
	t.Helper()
	n := 0
	for _, s := range []Side{Buy, Sell} {
		var prev int64
		first := true
		var lv []Level
		cur := Level{}
		b.Orders(s, func(r Resting) bool {
			n++
			if r.Side != s || r.Qty <= 0 {
				t.Fatalf("bad resting %+v on %v", r, s)
			}
			if !first && r.Price != prev && (s == Buy) != (r.Price < prev) {
				t.Fatalf("%v out of price order: %d after %d", s, r.Price, prev)
			}
			if first || r.Price != prev {
				if !first && cur.Qty > 0 {
					lv = append(lv, cur)
				}
				cur = Level{Price: r.Price}
			}
			cur.Qty += min(r.Visible, r.Qty)
			prev, first = r.Price, false
			if got, ok := b.Order(r.ID); !ok || got != r {
				t.Fatalf("Order(%d) = %+v %v, want %+v", r.ID, got, ok, r)
			}
			return true
		})
		if !first && cur.Qty > 0 {
			lv = append(lv, cur)
		}
		if got := depth(b, s); !levelsEqual(got, lv) {
			t.Fatalf("%v depth %v, recomputed %v", s, got, lv)
		}
	}
	if n != b.Len() {
		t.Fatalf("Len %d, iterated %d", b.Len(), n)
	}
}

func TestTakeKeepsQueuePlace(t *testing.T) {
	b := New(2, 3)
	b.Submit(Order{ID: 1, Side: Buy, Kind: Limit, Price: 100, Qty: 5, Visible: 5}, nil)
	b.Submit(Order{ID: 2, Side: Buy, Kind: Limit, Price: 100, Qty: 7, Visible: 7}, nil)
	f, ok := b.Take(2, 3)
	if !ok || f.Qty != 3 || f.Price != 100 || f.MakerDone || f.MakerID != 2 {
		t.Fatalf("take 3 of order 2: %+v %v", f, ok)
	}
	if lv, _ := b.BestBid(); lv.Qty != 9 {
		t.Fatalf("level after the take: %+v", lv)
	}
	// order 1 is still first in the queue
	_, fills := b.Submit(Order{ID: 3, Side: Sell, Kind: IOC, Price: 100, Qty: 6}, nil)
	if len(fills) != 2 || fills[0].MakerID != 1 || fills[0].Qty != 5 || fills[1].MakerID != 2 || fills[1].Qty != 1 {
		t.Fatalf("fills %+v", fills)
	}
	f, ok = b.Take(2, 10)
	if !ok || f.Qty != 3 || !f.MakerDone || b.Len() != 0 {
		t.Fatalf("take the rest: %+v %v, %d resting", f, ok, b.Len())
	}
	if _, ok := b.Take(2, 1); ok {
		t.Fatal("took from an order that is gone")
	}
}
