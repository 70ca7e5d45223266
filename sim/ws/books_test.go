package ws

import (
	"reflect"
	"testing"

	"tradedeck/sim/exchange"
)

func TestAggregateBuckets(t *testing.T) {
	asks := []exchange.LevelPrint{{Price: 1001, Qty: 1}, {Price: 1009, Qty: 2}, {Price: 1010, Qty: 4}, {Price: 1011, Qty: 8}}
	bids := []exchange.LevelPrint{{Price: 999, Qty: 1}, {Price: 991, Qty: 2}, {Price: 990, Qty: 4}, {Price: 989, Qty: 8}}
	// asks round up to the bucket, bids down: a bucket never shows a better price than its orders
	if got := aggregate(asks, 10, false); len(got) != 2 || got[0] != (level{Price: 1010, Qty: 7}) || got[1] != (level{Price: 1020, Qty: 8}) {
		t.Fatalf("asks %v", got)
	}
	if got := aggregate(bids, 10, true); len(got) != 2 || got[0] != (level{Price: 990, Qty: 7}) || got[1] != (level{Price: 980, Qty: 8}) {
		t.Fatalf("bids %v", got)
	}
}

func TestDiffSide(t *testing.T) {
	lp := func(p, q int64, print uint64) exchange.LevelPrint {
		return exchange.LevelPrint{Price: p, Qty: q, Print: print}
	}
	asc := func(a, b int64) bool { return a < b }
	prev := []exchange.LevelPrint{lp(100, 1, 1), lp(101, 2, 2), lp(103, 3, 3), lp(105, 5, 5)}
	cur := []exchange.LevelPrint{lp(100, 1, 1), lp(101, 2, 9), lp(104, 4, 4), lp(105, 6, 5)}
	touched := map[touch]struct{}{
		{buy: false, price: 102}: {}, // came and went between the captures
		{buy: false, price: 100}: {}, // touched, same now: sent anyway
		{buy: true, price: 99}:   {}, // the other side: not here
	}
	got := diffSide(prev, cur, touched, false, false, asc)
	want := []level{{Price: 100, Qty: 1}, {Price: 101, Qty: 2}, {Price: 102}, {Price: 103}, {Price: 104, Qty: 4}, {Price: 105, Qty: 6}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("diff %v, want %v", got, want)
	}
	if got := diffSide(prev, prev, nil, false, false, asc); len(got) != 0 {
		t.Fatalf("no change: %v", got)
	}
	if got := diffSide(prev, prev, nil, false, true, asc); len(got) != len(prev) {
		t.Fatalf("resend: %v", got)
	}
}
